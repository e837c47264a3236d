"""Edit single values of ``config.toml`` in place, keeping the user's comments and layout.

The file belongs to the user (``pear init`` writes it once, with a comment on every key), so a front
that changes a setting must not rewrite it: :func:`set_values` replaces only the ``key = value`` line
(a multi-line array up to its closing ``]``) inside the right table, or adds the line at the end of
that table (the table at the end of the file when it is missing).  The result is parsed before it is
returned; a change that would make the file invalid raises and nothing is written.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput
from peargarden.workspace import atomic
from peargarden.workspace.config import Settings, parse_settings
from peargarden.workspace.text_files import read_user_text

Value = str | int | float | bool | Sequence[str]

_TABLE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def config_document(config_file: Path) -> dict[str, Any]:
    """``config.toml`` as plain TOML (the tables :class:`Settings` does not read included); ``{}``
    when there is none, one line naming the file when it does not read."""
    try:
        return tomllib.loads(read_user_text(config_file))
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise BadInput(f"无法读取设置文件：{error}", path=config_file) from None


def toml_value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # finite floats only (callers check): 0.35, 1e-05
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if not value:
        return "[]"
    # One item a line, as `pear init` writes the sandbox lists: a saved list stays readable.
    return "[\n" + "".join(f"  {_toml_string(str(item))},\n" for item in value) + "]"


def _toml_string(text: str) -> str:
    """A literal string ('…', no escapes: regexes stay as typed) when TOML allows one, else a basic one."""
    if "'" not in text and not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def toml_key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key, ensure_ascii=False)


def _table_name(header: str) -> str:
    parts = [p.strip() for p in re.findall(r'"[^"]*"|[^.]+', header)]
    return ".".join(json.loads(p) if p.startswith('"') else p for p in parts)


def _key_of(line: str) -> str | None:
    match = re.match(r'^\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*=', line)
    if match is None:
        return None
    raw = match.group(1)
    return str(json.loads(raw)) if raw.startswith('"') else raw


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


def _value_end(lines: list[str], start: int) -> int:
    """One past the last line of the value starting at *start* (multi-line arrays included)."""
    depth = 0
    for index in range(start, len(lines)):
        code = re.sub(r"#.*$", "", _STRINGS.sub('""', lines[index]))
        depth += code.count("[") - code.count("]")
        if depth <= 0:
            return index + 1
    return len(lines)


def _headers(lines: list[str]) -> list[tuple[int, str]]:
    found = []
    for index, line in enumerate(lines):
        match = _TABLE.match(line)
        if match and not line.strip().startswith("[["):
            found.append((index, _table_name(match.group(1))))
    return found


def set_value(text: str, table: str, key: str, value: Value) -> str:
    """*text* with ``table.key`` (``table`` "" for the top level) set to *value*."""
    lines = text.split("\n")
    new_line = f"{toml_key(key)} = {toml_value(value)}"
    headers = _headers(lines)
    if table == "":
        start, end = 0, headers[0][0] if headers else len(lines)
    else:
        at = next((i for i, (_, name) in enumerate(headers) if name == table), None)
        if at is None:
            header_key = ".".join(toml_key(part) for part in table.split("."))
            tail = "" if text.endswith("\n") or not text else "\n"
            return f"{text}{tail}\n[{header_key}]\n{new_line}\n"
        start = headers[at][0] + 1
        end = headers[at + 1][0] if at + 1 < len(headers) else len(lines)
    index, last = start, start
    while index < end:
        if _key_of(lines[index]) == key:
            lines[index : _value_end(lines, index)] = [new_line]
            return "\n".join(lines)
        stripped = lines[index].strip()
        if stripped and not stripped.startswith("#"):
            index = _value_end(lines, index) if _key_of(lines[index]) else index + 1
            last = index
            continue
        index += 1
    lines.insert(last, new_line)
    return "\n".join(lines)


def set_values(config_file: Path, changes: Mapping[tuple[str, str], Value]) -> Settings:
    """Apply *changes* (``(table, key) -> value``) to the file; returns the new settings.

    The edited text is validated first: invalid settings raise :class:`BadInput` and the file stays.
    """
    try:
        text = read_user_text(config_file)
    except FileNotFoundError:
        text = ""
    except OSError as error:
        raise BadInput(f"无法读取设置文件：{error}", path=config_file) from None
    for (table, key), value in changes.items():
        text = set_value(text, table, key, value)
    settings = parse_settings(text, where=config_file)
    atomic.write_text(config_file, text)
    return settings


def remove_value(text: str, table: str, key: str) -> str:
    """*text* without ``table.key`` (unchanged when it is not there); comments and the rest stay."""
    lines = text.split("\n")
    headers = _headers(lines)
    at = next((i for i, (_, name) in enumerate(headers) if name == table), None)
    if at is None:
        return text
    start = headers[at][0] + 1
    end = headers[at + 1][0] if at + 1 < len(headers) else len(lines)
    for index in range(start, end):
        if _key_of(lines[index]) == key:
            del lines[index : _value_end(lines, index)]
            return "\n".join(lines)
    return text


def remove_table(text: str, table: str) -> str:
    """*text* without the table ``[table]`` (its header and its lines, up to the next table)."""
    lines = text.split("\n")
    headers = _headers(lines)
    at = next((i for i, (_, name) in enumerate(headers) if name == table), None)
    if at is None:
        return text
    start = headers[at][0]
    end = headers[at + 1][0] if at + 1 < len(headers) else len(lines)
    while start > 0 and not lines[start - 1].strip():  # the blank line that set it apart goes too
        start -= 1
    del lines[start:end]
    return "\n".join(lines)
