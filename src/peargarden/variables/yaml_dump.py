"""``YAML.stringify(value, {blockQuote: 'literal'})`` of the JavaScript ``yaml`` package, for JSON values.

TavernHelper prints ``{{format_message_variable::…}}`` this way, and the text goes to the model,
so the layout must be the same to the byte: two-space indents with sequences indented under
their key, plain scalars unless the core schema would read them as something else (``"12"``,
``"true"``, ``""``), double quotes by default and single quotes for text with double quotes in it,
``|`` literal blocks for multi-line strings, and long plain or quoted lines folded at spaces near 80
columns (the package's ``lineWidth``; Chinese text without spaces is never folded).
"""

from __future__ import annotations

import math
import re
from typing import Any

import msgspec
from msgspec.structs import replace

from peargarden.variables.jsvalues import UNDEFINED, is_number, js_keys, js_length, json_stringify, number_to_string

_LINE_WIDTH = 80
_MIN_CONTENT_WIDTH = 20
_DOUBLE_QUOTED_MIN_MULTILINE = 40
_INDENT_STEP = "  "

_CORE_SCALARS = (
    re.compile(r"^(?:~|[Nn]ull|NULL)?$"),
    re.compile(r"^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$"),
    re.compile(r"^0o[0-7]+$"),
    re.compile(r"^[-+]?[0-9]+$"),
    re.compile(r"^0x[0-9a-fA-F]+$"),
    re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$"),
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$"),
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$"),
)
_NEEDS_QUOTES = re.compile(r"^[\n\t ,\[\]{}#&*!|>'\"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$")
_DOCUMENT_MARKER = re.compile(r"^(%|---|\.\.\.)", re.MULTILINE)
_FORCE_DOUBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_BLOCK_END_NEWLINES = re.compile(r"(^|(?<!\n))\n+(?!\n|$)")
_DOUBLE_ESCAPES = {
    "0000": "\\0",
    "0007": "\\a",
    "000b": "\\v",
    "001b": "\\e",
    "0085": "\\N",
    "00a0": "\\_",
    "2028": "\\L",
    "2029": "\\P",
}


class _Ctx(msgspec.Struct, frozen=True):
    indent: str = ""
    implicit_key: bool = False
    indent_at_start: int | None = None
    force_block_indent: bool = False


# --- folding ------------------------------------------------------------------------------------


def _utf16(text: str) -> str:
    """The text with each character outside the BMP as its two surrogates, so indices count like JavaScript's."""
    if text.isascii() or all(ord(char) <= 0xFFFF for char in text):
        return text
    return "".join(
        chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF)) if ord(c) > 0xFFFF else c
        for c in text
    )


def _from_utf16(text: str) -> str:
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def _fold(text: str, indent: str, mode: str, indent_at_start: int | None) -> str:
    """The package's ``foldFlowLines`` (modes ``flow`` and ``quoted``; ``block`` is unused with literal blocks)."""
    units = _utf16(text)
    if units is text:
        return _fold_units(text, indent, mode, indent_at_start)
    return _from_utf16(_fold_units(units, indent, mode, indent_at_start))


def _fold_units(text: str, indent: str, mode: str, indent_at_start: int | None) -> str:
    end_step = max(1 + _MIN_CONTENT_WIDTH, 1 + _LINE_WIDTH - len(indent))
    if len(text) <= end_step:
        return text
    folds: list[int] = []
    escaped_folds: set[int] = set()
    end = _LINE_WIDTH - len(indent)
    if indent_at_start is not None:
        if indent_at_start > _LINE_WIDTH - max(2, _MIN_CONTENT_WIDTH):
            folds.append(0)
        else:
            end = _LINE_WIDTH - indent_at_start
    split: int | None = None
    prev = ""
    i = -1
    esc_start = esc_end = -1
    while True:
        i += 1
        if i >= len(text):
            break
        ch = text[i]
        if mode == "quoted" and ch == "\\":
            esc_start = i
            nxt = text[i + 1] if i + 1 < len(text) else ""
            i += {"x": 3, "u": 5, "U": 9}.get(nxt, 1)
            esc_end = i
        if ch == "\n":
            end = i + len(indent) + end_step
            split = None
        else:
            if ch == " " and prev and prev not in " \n\t":
                nxt = text[i + 1] if i + 1 < len(text) else ""
                if nxt and nxt not in " \n\t":
                    split = i
            if i >= end:
                if split:
                    folds.append(split)
                    end = split + end_step
                    split = None
                elif mode == "quoted":
                    while prev in (" ", "\t"):
                        prev = ch
                        i += 1
                        ch = text[i] if i < len(text) else ""
                    j = i - 2 if i > esc_end + 1 else esc_start - 1
                    if j in escaped_folds:
                        return text
                    folds.append(j)
                    escaped_folds.add(j)
                    end = j + end_step
                    split = None
        prev = ch
    if not folds:
        return text
    result = text[: folds[0]]
    for position, fold in enumerate(folds):
        stop = folds[position + 1] if position + 1 < len(folds) else len(text)
        if fold == 0:
            result = f"\n{indent}{text[0:stop]}"
        else:
            if mode == "quoted" and fold in escaped_folds:
                result += f"{text[fold]}\\"
            result += f"\n{indent}{text[fold + 1 : stop]}"
    return result


# --- strings ------------------------------------------------------------------------------------


def _double_quoted(value: str, ctx: _Ctx) -> str:
    json = json_stringify(value) or '""'
    indent = ctx.indent or ("  " if _DOCUMENT_MARKER.search(value) else "")
    out: list[str] = []
    start = 0
    i = 0
    while i < len(json):
        ch = json[i]
        if ch == " " and json[i + 1 : i + 3] == "\\n":
            # a space before a newline is escaped so that folding keeps it
            out.append(json[start:i] + "\\ ")
            i += 1
            start = i
            ch = "\\"
        if ch == "\\":
            nxt = json[i + 1] if i + 1 < len(json) else ""
            if nxt == "u":
                out.append(json[start:i])
                code = json[i + 2 : i + 6]
                if code in _DOUBLE_ESCAPES:
                    out.append(_DOUBLE_ESCAPES[code])
                elif code.startswith("00"):
                    out.append("\\x" + code[2:])
                else:
                    out.append(json[i : i + 6])
                i += 5
                start = i + 1
            elif nxt == "n":
                if ctx.implicit_key or json[i + 2 : i + 3] == '"' or len(json) < _DOUBLE_QUOTED_MIN_MULTILINE:
                    i += 1
                else:
                    out.append(json[start:i] + "\n\n")
                    while json[i + 2 : i + 4] == "\\n" and json[i + 4 : i + 5] != '"':
                        out.append("\n")
                        i += 2
                    out.append(indent)
                    if json[i + 2 : i + 3] == " ":
                        out.append("\\")
                    i += 1
                    start = i + 1
            else:
                i += 1
        i += 1
    text = "".join(out) + json[start:] if start else json
    return text if ctx.implicit_key else _fold(text, indent, "quoted", ctx.indent_at_start)


def _single_quoted(value: str, ctx: _Ctx) -> str:
    if (ctx.implicit_key and "\n" in value) or re.search(r"[ \t]\n|\n[ \t]", value):
        return _double_quoted(value, ctx)
    indent = ctx.indent or ("  " if _DOCUMENT_MARKER.search(value) else "")
    quoted = "'" + re.sub(r"\n+", lambda m: f"{m.group(0)}\n{indent}", value.replace("'", "''")) + "'"
    return quoted if ctx.implicit_key else _fold(quoted, indent, "flow", ctx.indent_at_start)


def _quoted(value: str, ctx: _Ctx) -> str:
    has_double, has_single = '"' in value, "'" in value
    if has_double and not has_single:
        return _single_quoted(value, ctx)
    return _double_quoted(value, ctx)


def _block(value: str, ctx: _Ctx) -> str:
    if re.search(r"\n[\t ]+$", value):
        return _quoted(value, ctx)
    indent = ctx.indent or ("  " if ctx.force_block_indent or _DOCUMENT_MARKER.search(value) else "")
    if not value:
        return "|\n"
    end_start = len(value)
    while end_start > 0 and value[end_start - 1] in "\n\t ":
        end_start -= 1
    end = value[end_start:]
    newline_at = end.find("\n")
    if newline_at == -1:
        chomp = "-"
    elif value == end or newline_at != len(end) - 1:
        chomp = "+"
    else:
        chomp = ""
    if end:
        value = value[: -len(end)]
        if end.endswith("\n"):
            end = end[:-1]
        end = _BLOCK_END_NEWLINES.sub(lambda m: m.group(0) + indent, end)
    start_with_space = False
    start_end = 0
    start_newline = -1
    while start_end < len(value):
        ch = value[start_end]
        if ch == " ":
            start_with_space = True
        elif ch == "\n":
            start_newline = start_end
        else:
            break
        start_end += 1
    start = value[: start_newline + 1 if start_newline < start_end else start_end]
    if start:
        value = value[len(start) :]
        start = re.sub(r"\n+", lambda m: m.group(0) + indent, start)
    header = ("2" if indent else "1") if start_with_space else ""
    header += chomp
    value = re.sub(r"\n+", lambda m: m.group(0) + indent, value)
    return f"|{header}\n{indent}{start}{value}{end}"


def _plain(value: str, ctx: _Ctx) -> str:
    if ctx.implicit_key and "\n" in value:
        return _quoted(value, ctx)
    if _NEEDS_QUOTES.search(value):
        return _quoted(value, ctx) if ctx.implicit_key or "\n" not in value else _block(value, ctx)
    if not ctx.implicit_key and "\n" in value:
        return _block(value, ctx)
    if _DOCUMENT_MARKER.search(value):
        if ctx.indent == "":
            return _block(value, replace(ctx, force_block_indent=True))
        if ctx.implicit_key and ctx.indent == _INDENT_STEP:
            return _quoted(value, ctx)
    text = re.sub(r"\n+", lambda m: f"{m.group(0)}\n{ctx.indent}", value)
    if any(pattern.match(text) for pattern in _CORE_SCALARS):
        return _quoted(value, ctx)
    return text if ctx.implicit_key else _fold(text, ctx.indent, "flow", ctx.indent_at_start)


def _string(value: str, ctx: _Ctx) -> str:
    if _FORCE_DOUBLE.search(value):
        return _double_quoted(value, ctx)
    return _plain(value, ctx)


# --- values -------------------------------------------------------------------------------------


def _number(value: float) -> str:
    if not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    return number_to_string(value)


def _scalar(value: Any, ctx: _Ctx) -> str:
    if value is None or value is UNDEFINED:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        return _number(value)
    return _string(str(value), ctx)


def _pairs(value: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(key, value[key]) for key in js_keys(value) if value[key] is not UNDEFINED]


def _node(value: Any, ctx: _Ctx) -> str:
    if isinstance(value, list):
        return _collection([("-", item) for item in value], ctx, is_seq=True)
    if isinstance(value, dict):
        return _collection(_pairs(value), ctx, is_seq=False)
    return _scalar(value, ctx)


def _collection(items: list[tuple[str, Any]], ctx: _Ctx, *, is_seq: bool) -> str:
    if not items:
        return "[]" if is_seq else "{}"
    item_indent = ctx.indent + _INDENT_STEP if is_seq else ctx.indent
    item_ctx = replace(ctx, indent=item_indent, implicit_key=False)
    lines = []
    for key, item in items:
        if is_seq:
            lines.append("- " + _node(item, item_ctx))
        else:
            lines.append(_pair(key, item, item_ctx))
    return f"\n{ctx.indent}".join(lines)


def _pair(key: str, value: Any, ctx: _Ctx) -> str:
    inner = ctx.indent + _INDENT_STEP
    key_text = _string(key, replace(ctx, indent=inner, implicit_key=True))
    explicit = js_length(key_text) > 1024
    head = f"? {key_text}\n{ctx.indent}:" if explicit else f"{key_text}:"
    is_collection = isinstance(value, dict | list)
    value_ctx = replace(ctx, indent=inner, implicit_key=False)
    if not explicit and not is_collection:
        value_ctx = replace(value_ctx, indent_at_start=js_length(head) + 1)
    value_text = _node(value, value_ctx)
    if not explicit and is_collection:
        empty = not value
        separator = f"\n{inner}" if ("\n" in value_text or not empty) else " "
    elif value_text == "" or value_text.startswith("\n"):
        separator = ""
    else:
        separator = " "
    return head + separator + value_text


def yaml_stringify(value: Any) -> str:
    """The document text, ending in a newline, as ``YAML.stringify(value, {blockQuote: 'literal'})`` writes it."""
    text = _string(value, _Ctx()) if isinstance(value, str) else _node(value, _Ctx())
    return text + "\n"
