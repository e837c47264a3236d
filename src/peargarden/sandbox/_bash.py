"""Judging a bash command without running it.

The command is parsed with tree-sitter-bash.  Anything the parser cannot read, and any construct we
do not understand, makes the command "needs a person" (ask) — the analysis fails closed.  A command
is safe (allowed without asking) only when it is a sequence/pipeline of simple commands that:
- each start with a no-ask prefix (word by word, exact: no look-alikes, no ``./cat``, no ``c$x``);
- have no environment prefix, no command or process substitution, no function definitions;
- write nothing through redirection (only ``/dev/null`` and fd duplication are accepted) ;
- name only paths that the sandbox would let the ``read`` tool read, judged from the folder that
  earlier ``cd`` segments moved to (``cd /etc && cat passwd`` reads ``/etc/passwd``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import msgspec

from .defaults import FIND_UNSAFE_ACTIONS, NON_PATH_ARGUMENT_COMMANDS

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# (absolute path, whether the command reads the whole subtree) → may it run without asking?
PathOk = Callable[[str, bool], bool]

_STRUCTURE = {"program", "list", "pipeline", "subshell", "compound_statement", "redirected_statement"}
_PUNCTUATION = {"&&", "||", ";", ";;", "|", "|&", "&", "(", ")", "{", "}", "\n", "comment"}
_ALWAYS_ASK = {
    "command_substitution": "命令中含命令替换",
    "process_substitution": "命令中含进程替换",
    "function_definition": "命令中定义了函数",
    "declaration_command": "命令中设置了变量",
    "unset_command": "命令中修改了变量",
    "arithmetic_expansion": "命令中含算术展开",
}
_GLOB_CHARS = set("*?[")
_SAFE_WRITE_TARGETS = {"/dev/null"}


class BashFinding(msgspec.Struct, frozen=True):
    safe: bool
    reason: str


@lru_cache(maxsize=1)
def _parser() -> Parser:
    # Loaded with the first command judged, not with the package: reading config.toml (which imports
    # the sandbox's defaults) must not load tree-sitter and its grammar.
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


class _Unsafe(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def analyse_command(command: str, cwd: str, no_ask: Sequence[str], path_ok: PathOk) -> BashFinding:
    if not command.strip():
        return BashFinding(False, "空命令")
    tree = _parser().parse(command.encode("utf-8"))
    root = tree.root_node
    if root.has_error or _has_missing(root):
        return BashFinding(False, "命令无法解析，需要确认")
    for node in _walk(root):
        if node.type in _ALWAYS_ASK:
            return BashFinding(False, _ALWAYS_ASK[node.type])
        if node.type == "heredoc_body" and ("$" in _text(node) or "`" in _text(node)):
            return BashFinding(False, "here-doc 中含展开")
    prefixes = [tuple(p.split()) for p in no_ask if p.strip()]
    try:
        _Judge(prefixes, path_ok).statement(root, cwd)
    except _Unsafe as unsafe:
        return BashFinding(False, unsafe.reason)
    return BashFinding(True, "免询问")


def _walk(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children:
        yield from _walk(child)


def _has_missing(node: Node) -> bool:
    return any(n.is_missing for n in _walk(node))


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def literal(node: Node) -> str | None:
    """The word's value after quote removal, or None when it depends on expansion."""
    kind = node.type
    if kind in ("word", "number"):
        return _unescape(_text(node))
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "string":
        parts: list[str] = []
        for child in node.children:
            if child.type == '"':
                continue
            if child.type != "string_content":
                return None
            parts.append(_unescape_double(_text(child)))
        return "".join(parts)
    if kind == "concatenation":
        pieces = [literal(child) for child in node.children]
        if any(p is None for p in pieces):
            return None
        return "".join(p for p in pieces if p is not None)
    return None


def _unescape(text: str) -> str:
    out: list[str] = []
    chars = iter(text)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, "")
            if nxt != "\n":
                out.append(nxt)
        else:
            out.append(ch)
    return "".join(out)


def _unescape_double(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


class _Judge:
    def __init__(self, prefixes: list[tuple[str, ...]], path_ok: PathOk) -> None:
        self.prefixes = prefixes
        self.path_ok = path_ok

    def statement(self, node: Node, cwd: str | None) -> str | None:
        """Judge *node*; return the working folder after it (None when unknown)."""
        kind = node.type
        if kind == "command":
            return self.command(node, cwd)
        if kind in _STRUCTURE:
            inner = cwd
            for child in node.named_children:
                if child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                    self.redirect(child, inner)
                elif child.type == "comment":
                    continue
                else:
                    inner = self.statement(child, inner)
            # A subshell's cd does not move the caller; a pipeline runs in subshells too.
            return cwd if kind in ("subshell", "pipeline") else inner
        if kind in _PUNCTUATION:
            return cwd
        raise _Unsafe(f"不支持自动判断的结构：{kind}")

    def redirect(self, node: Node, cwd: str | None) -> None:
        if node.type == "herestring_redirect":
            return
        if node.type == "heredoc_redirect":
            for child in node.named_children:
                if child.type in ("file_redirect", "herestring_redirect"):
                    self.redirect(child, cwd)
            return
        operator = ""
        target: Node | None = None
        for child in node.children:
            if not child.is_named:
                operator += _text(child)
            elif child.type != "file_descriptor":
                target = child
        value = literal(target) if target is not None else None
        if operator in ("<", "<&", "0<"):
            if value is None:
                raise _Unsafe("输入重定向的文件名含展开")
            if not value.isdigit() and value != "-":
                self.check_path(value, cwd)
            return
        if operator in (">&", "<&") and value is not None and (value.isdigit() or value == "-"):
            return
        if value in _SAFE_WRITE_TARGETS:
            return
        raise _Unsafe("命令通过重定向写文件")

    def command(self, node: Node, cwd: str | None) -> str | None:
        words: list[Node] = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                raise _Unsafe("命令前设置了环境变量")
            if child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self.redirect(child, cwd)
                continue
            if child.type == "command_name":
                words.extend(child.named_children)
                continue
            words.append(child)
        if not words:
            raise _Unsafe("无法识别的命令")
        name = literal(words[0])
        if name is None:
            raise _Unsafe("命令名含展开")
        if "/" in name:
            raise _Unsafe(f"以路径调用的程序：{name}")
        values: list[str | None] = [name, *(literal(w) for w in words[1:])]
        prefix = self.matching_prefix(values)
        if prefix is None:
            raise _Unsafe(f"「{name}」不在免询问列表中")
        args = values[1:]
        if name == "cd":
            return self.change_dir(args, cwd)
        if name in NON_PATH_ARGUMENT_COMMANDS:
            return cwd
        if any(a is None for a in args):
            raise _Unsafe(f"「{name}」的参数含展开，无法判断路径")
        literal_args = [a for a in args if a is not None][len(prefix) - 1 :]
        recursive = _reads_subtree(name, literal_args)
        for path in self.path_arguments(name, literal_args):
            self.check_path(path, cwd, recursive)
        return cwd

    def matching_prefix(self, values: list[str | None]) -> tuple[str, ...] | None:
        best: tuple[str, ...] | None = None
        for prefix in self.prefixes:
            matches = len(prefix) <= len(values) and all(values[i] == prefix[i] for i in range(len(prefix)))
            if matches and (best is None or len(prefix) > len(best)):
                best = prefix
        return best

    def change_dir(self, args: list[str | None], cwd: str | None) -> str | None:
        operands = [a for a in args if a is None or not a.startswith("-")]
        if len(operands) != 1 or operands[0] is None or operands[0] == "-":
            return None  # cd with no operand goes home; the later segments are judged as unknown
        target = operands[0]
        if target.startswith("~"):
            return None
        if cwd is None and not target.startswith("/"):
            return None
        base = cwd or "/"
        return posixpath.join(base, target)

    def path_arguments(self, name: str, args: list[str]) -> list[str]:
        options = [a for a in args if a.startswith("-") and a != "-"]
        operands = [a for a in args if not (a.startswith("-") and a != "-")]
        if name == "find":
            if any(a in FIND_UNSAFE_ACTIONS for a in args):
                raise _Unsafe("find 带有会执行或删除的动作")
            roots: list[str] = []
            for arg in args:
                if arg.startswith(("-", "(", "!", ")")):
                    break
                roots.append(arg)
            return roots or ["."]
        if name in ("grep", "rg"):
            for option in options:
                if option.startswith(("--file", "--exclude-from", "--ignore-file", "--pre")) or (
                    not option.startswith("--") and "f" in option[1:]
                ):
                    raise _Unsafe(f"{name} 的选项会读取或运行其他文件")
            explicit_pattern = any(o == "--regexp" or o.startswith(("--regexp=", "-e")) for o in options)
            files = operands if explicit_pattern else operands[1:]
            if not files and _reads_subtree(name, args):
                return ["."]
            return files
        if name == "git":
            if any(a.startswith("--output") or a.startswith("--ext-diff") for a in args):
                raise _Unsafe("git 的选项会写文件或运行外部程序")
            return []
        if name in ("ls", "tree") and not operands:
            return ["."]
        return [a for a in operands if a != "-"]

    def check_path(self, path: str, cwd: str | None, recursive: bool = False) -> None:
        if "{" in path or "}" in path:
            raise _Unsafe("路径含花括号展开")
        if path.startswith("~") and not (path == "~" or path.startswith("~/")):
            raise _Unsafe("路径含 ~user 展开")
        if cwd is None and not path.startswith(("/", "~")):
            raise _Unsafe("cd 之后的目录无法确定")
        judged = _glob_free_part(path)
        # A glob can reach anything below the part before it, like a recursive read.
        recursive = recursive or judged != path
        absolute = judged if judged.startswith(("/", "~")) else posixpath.join(cwd or "/", judged)
        if not self.path_ok(absolute, recursive):
            raise _Unsafe(f"路径不在免询问范围：{path}")


def _reads_subtree(name: str, args: list[str]) -> bool:
    """Does the command read whole folders (so a forbidden folder inside one would be read too)?"""
    options = [a for a in args if a.startswith("-") and a != "-"]
    follows = {"-L", "-follow", "--follow", "--dereference-recursive"}
    if name in ("find", "tree", "rg"):
        if any(o in follows or (name == "tree" and o == "-l") for o in options):
            raise _Unsafe(f"{name} 会跟随符号链接")
        return True
    if name in ("grep", "ls"):
        short = "".join(o[1:] for o in options if not o.startswith("--"))
        if name == "grep" and ("R" in short or "--dereference-recursive" in options):
            raise _Unsafe("grep -R 会跟随符号链接")
        return "r" in short or "R" in short or "--recursive" in options
    return False


def _glob_free_part(path: str) -> str:
    """The part of *path* before its first globbing segment; a glob that could reach ``..`` is refused."""
    segments = path.split("/")
    for index, segment in enumerate(segments):
        if any(ch in _GLOB_CHARS for ch in segment):
            rest = segments[index:]
            if any(s.startswith((".", "[")) or s == ".." for s in rest):
                raise _Unsafe("通配符可能匹配到上级目录")
            kept = "/".join(segments[:index])
            if not kept:
                return "/" if path.startswith("/") else "."
            return kept
    return path
