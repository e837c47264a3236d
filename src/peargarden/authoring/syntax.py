"""Checks that run before a card is written back: script syntax (never executed) and regex patterns."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import msgspec

from peargarden.formats import replace_lone_surrogates
from peargarden.text.jsregex import regex_from_string

if TYPE_CHECKING:
    from tree_sitter import Node, Parser


class Problem(msgspec.Struct, frozen=True):
    line: int  # 1-based
    column: int  # 1-based
    message: str


@lru_cache(maxsize=1)
def _parser() -> Parser:
    # tree-sitter is loaded by the first check, not by every module that reads the story through
    # this package (a beat never checks a script).
    import tree_sitter_javascript
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_javascript.language()))


def _problems(node: Node, lines: list[bytes], found: list[Problem]) -> None:
    if node.is_missing or node.type == "ERROR":
        row, byte_col = node.start_point
        # tree-sitter counts UTF-8 bytes; people count characters.
        column = len(lines[row][:byte_col].decode("utf-8", "replace")) + 1 if row < len(lines) else 1
        if node.is_missing:
            found.append(Problem(row + 1, column, f"缺少 {node.type}（missing {node.type}）"))
        else:
            snippet = (node.text or b"").decode("utf-8", "replace").split("\n")[0][:30]
            found.append(Problem(row + 1, column, f"语法错误，无法解析：{snippet!r}（syntax error）"))
        return
    if node.has_error:
        for child in node.children:
            _problems(child, lines, found)


def check_script(source: str) -> list[Problem]:
    """Syntax problems of a JavaScript script or module (tree-sitter parses both), in source order."""
    # A lone surrogate (legal in card text) parses as U+FFFD: same byte length, so columns hold.
    data = replace_lone_surrogates(source).encode("utf-8")
    tree = _parser().parse(data)
    found: list[Problem] = []
    _problems(tree.root_node, data.split(b"\n"), found)
    return sorted(found, key=lambda p: (p.line, p.column))


def check_regex(pattern: str) -> list[Problem]:
    """A regex script's ``findRegex`` (``/body/flags`` or bare) must compile."""
    if not pattern:
        return []
    if regex_from_string(pattern) is None:
        return [Problem(1, 1, f"正则无法编译：{pattern[:40]!r}（invalid regex）")]
    return []
