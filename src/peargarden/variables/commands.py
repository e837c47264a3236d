"""The update commands in a reply: ``_.set(…);`` and its kin anywhere in the text, and ``<JSONPatch>`` blocks.

MVU finds a command by its name and opening bracket, then the matching closing bracket by counting
brackets outside quotes (so ``_.set('a', "x);y");`` is one command), requires a ``;`` right after it,
and takes a ``//`` comment after that (across blank space) as the command's reason.  JSON Patch
operations become the same commands, in the order of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from peargarden.text.jsstring import js_trim
from peargarden.variables import lodash
from peargarden.variables.jsvalues import UNDEFINED, json_stringify
from peargarden.variables.parse_string import ParseStringError, parse_string

_COMMAND_START = re.compile(r"_\.(set|insert|assign|remove|unset|delete|add)\(")
# JavaScript's ``.`` stops at every line terminator, Python's only at ``\n``.
_COMMENT = re.compile(r"\s*//([^\n\r\u2028\u2029]*)")
_JSON_PATCH_BLOCK = re.compile(
    r"<(json_?patch)>(?:\s*```[^\n\r\u2028\u2029]*)?((?:(?!<json_?patch>)[\s\S])*?)(?:```\s*)?</\1>",
    re.IGNORECASE,
)
_QUOTES = "\"'`"
_MIN_ARGS = {"set": 2, "assign": 2, "insert": 2, "remove": 1, "unset": 1, "delete": 1}


@dataclass
class Command:
    """One update command: its kind, the text it came from, its raw arguments and its reason."""

    type: str
    full_match: str
    args: list[Any]
    reason: str
    index: int = field(default=0, compare=False)

    def as_json(self) -> dict[str, Any]:
        return {"type": self.type, "full_match": self.full_match, "args": list(self.args), "reason": self.reason}


def find_matching_close_paren(text: str, start: int) -> int:
    """The index of the ``)`` closing the bracket opened just before ``start``, or -1."""
    depth = 1
    quote = ""
    for position in range(start, len(text)):
        char = text[position]
        previous = text[position - 1] if position > 0 else ""
        if char in _QUOTES and previous != "\\":
            if not quote:
                quote = char
            elif char == quote:
                quote = ""
        if not quote:
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return position
    return -1


def parse_parameters(params: str) -> list[str]:
    """Split a command's argument text at the commas outside quotes and brackets (MVU's ``parseParameters``)."""
    result: list[str] = []
    current: list[str] = []
    quote = ""
    parens = brackets = braces = 0
    for position, char in enumerate(params):
        if char in _QUOTES and (position == 0 or params[position - 1] != "\\"):
            if not quote:
                quote = char
            elif char == quote:
                quote = ""
        if not quote:
            parens += (char == "(") - (char == ")")
            brackets += (char == "[") - (char == "]")
            braces += (char == "{") - (char == "}")
        if char == "," and not quote and parens == 0 and brackets == 0 and braces == 0:
            result.append(js_trim("".join(current)))
            current = []
            continue
        current.append(char)
    last = js_trim("".join(current))
    if last:
        result.append(last)
    return result


def _args_valid(kind: str, count: int) -> bool:
    if kind == "add":
        return count == 2
    return count >= _MIN_ARGS[kind]


def _json_or_undefined(value: Any) -> Any:
    text = json_stringify(value)
    return UNDEFINED if text is None else text


def is_json_patch(patch: Any) -> bool:
    """MVU's ``isJsonPatch``: a list of operations with a string ``op`` and a string ``path``."""
    if not isinstance(patch, list):
        return False
    return all(
        isinstance(op, dict)
        and isinstance(op.get("op"), str)
        and (isinstance(op.get("path"), str) or (op.get("op") == "move" and isinstance(op.get("to"), str)))
        for op in patch
    )


def _patch_path(path: Any) -> str:
    if not isinstance(path, str) or not path:
        return ""
    return (path[1:] if path.startswith("/") else path).replace("/", ".")


def _patch_commands(patch: list[dict[str, Any]], index: int) -> list[Command]:
    commands: list[Command] = []
    for op in patch:
        path = _patch_path(op.get("path", op.get("to")))
        value = op.get("value", UNDEFINED)
        full = json_stringify(op) or ""
        kind = op["op"]
        if kind == "replace":
            commands.append(Command("set", full, [path, _json_or_undefined(value)], "json_patch", index))
        elif kind == "delta":
            commands.append(Command("add", full, [path, _json_or_undefined(value)], "json_patch", index))
        elif kind in ("add", "insert"):
            parts = lodash.to_path(path)
            last = parts[-1] if parts else "undefined"
            key = last if re.fullmatch(r"\d+", last) else f"'{last}'"
            container = ".".join(parts[:-1])
            commands.append(Command("insert", full, [container, key, _json_or_undefined(value)], "json_patch", index))
        elif kind == "remove":
            commands.append(Command("delete", full, [path], "json_patch", index))
        elif kind == "move":
            commands.append(Command("move", full, [_patch_path(op.get("from")), path], "json_patch", index))
    return commands


def _json_patch_commands(text: str, refusals: list[str] | None) -> list[Command]:
    commands: list[Command] = []
    for match in _JSON_PATCH_BLOCK.finditer(text):
        try:
            patch = parse_string(js_trim(match.group(2)))
        except ValueError as error:
            if isinstance(error, ParseStringError) and error.refusal and refusals is not None:
                # past a limit: said (an unreadable block MVU skips quietly, as here)
                refusals.append(f"<JSONPatch> 块没有执行：{error}")
            continue
        if is_json_patch(patch):
            commands.extend(_patch_commands(patch, match.start()))
    return commands


def extract_commands(text: str, refusals: list[str] | None = None) -> list[Command]:
    """Every update command in ``text`` (MVU's ``extractCommands``), in the order they appear;
    *refusals* gets a line for each ``<JSONPatch>`` block past a size limit (``bounds``)."""
    commands = _json_patch_commands(text, refusals)
    position = 0
    while position < len(text):
        found = _COMMAND_START.search(text, position)
        if not found:
            break
        kind = found.group(1)
        start = found.start()
        open_paren = found.end()
        close_paren = find_matching_close_paren(text, open_paren)
        if close_paren == -1:
            position = open_paren
            continue
        end = close_paren + 1
        if end >= len(text) or text[end] != ";":
            position = close_paren + 1
            continue
        end += 1
        reason = ""
        comment = _COMMENT.match(text, end)
        if comment:
            reason = js_trim(comment.group(1))
            end = comment.end()
        params = parse_parameters(text[open_paren:close_paren])
        if _args_valid(kind, len(params)):
            commands.append(Command(kind, text[start:end], params, reason, start))
        position = end
    commands.sort(key=lambda command: command.index)
    return commands


def _fix_bracket(match: re.Match[str]) -> str:
    inner = js_trim(match.group(1))
    if not inner:
        return "[]"
    quoted = len(inner) >= 2 and inner[0] in "\"'" and inner[0] == inner[-1]
    if quoted:
        inner = inner[1:-1]
    if re.fullmatch(r"\d+", inner):
        return f'["{inner}"]' if quoted else f"[{inner}]"
    if re.search(r"\s", inner):
        escaped = inner.replace('"', '\\"')
        return f'["{escaped}"]'
    return f"[{inner}]"


def _fix_dotted(match: re.Match[str]) -> str:
    prefix, name = match.group(1), match.group(3)
    if not re.search(r"\s", name) and not re.search(r"[.\[\]]", name):
        return prefix + name
    escaped = name.replace('"', '\\"')
    return f'["{escaped}"]' if prefix == "." else f'{prefix}["{escaped}"]'


def path_fix(path: str) -> str:
    """MVU's ``pathFix``: quotes the model put around path segments made lodash-readable."""
    if not path:
        return path
    fixed = re.sub(r"\[([^\]]*)\]", _fix_bracket, path)
    return re.sub(r"""(^|\.)(["'])([^"']*)\2(?=\.|\[|\Z)""", _fix_dotted, fixed)
