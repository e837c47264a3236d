"""MVU's ``parseString``: text that is YAML, JSON, JSON5 or almost-JSON, read to a value.

The order matters and is MVU's: text that starts with ``{`` or ``[`` is tried as JSON5, then
repaired JSON, then YAML; any other text as YAML first (lenient: the first document, whatever
follows), then JSON5, then repaired JSON.  ``ParseStringError`` when nothing reads it.

Two refusals end the search at once, with their own words (``bounds``): text nested deeper than
``MAX_DEPTH`` brackets (no reader is tried: each would only recurse until it gave up), and YAML whose
aliases expand past the ``yaml`` package's limit (what JSON5 or a repair would make of such text is
not what its author meant).  A value read past ``MAX_DEPTH`` levels or ``MAX_CHARS`` is refused too.
"""

from __future__ import annotations

from typing import Any

from peargarden.text.jsstring import js_trim_start
from peargarden.variables.bounds import TooLarge, check_value, depth_message, text_nesting_exceeds
from peargarden.variables.json5 import Json5Error, parse_json5
from peargarden.variables.json_repair import JsonRepairError, repair_json
from peargarden.variables.yaml_load import YamlAliasError, YamlError, load_lenient


class ParseStringError(ValueError):
    """The text is none of YAML, JSON5 or repairable JSON; ``refusal``: it was readable, but past a
    limit (``bounds``, the alias count), which is worth saying where MVU would skip a block quietly."""

    def __init__(self, message: str, *, refusal: bool = False) -> None:
        super().__init__(message)
        self.refusal = refusal


def parse_string(content: str) -> Any:
    """The value of ``content`` read as MVU reads initial variables and JSON Patch blocks."""
    if text_nesting_exceeds(content):
        raise ParseStringError(depth_message(), refusal=True)
    try:
        value = _read(content)
        check_value(value)
    except (YamlAliasError, TooLarge) as error:
        raise ParseStringError(str(error), refusal=True) from None
    return value


def _read(content: str) -> Any:
    json_first = js_trim_start(content)[:1] in ("[", "{")
    yaml_error: YamlError | None = None
    if not json_first:
        try:
            return load_lenient(content)
        except YamlAliasError:
            raise
        except YamlError as error:
            yaml_error = error
    try:
        return parse_json5(content)
    except Json5Error:
        pass
    try:
        return repair_json(content)
    except JsonRepairError as repair_error:
        if not json_first:
            raise ParseStringError(_unreadable(yaml_error)) from repair_error
    try:
        return load_lenient(content)
    except YamlAliasError:
        raise
    except YamlError as error:
        raise ParseStringError(_unreadable(error)) from error


def _unreadable(yaml_error: YamlError | None) -> str:
    # The YAML reader's complaint says where the text went wrong (JSON5's and the repair's do not
    # apply to text that was meant as YAML).
    return "不是有效的 YAML/JSON/JSON5 格式" + (f"（YAML {yaml_error}）" if yaml_error else "")
