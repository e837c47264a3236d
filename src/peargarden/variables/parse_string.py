"""MVU's ``parseString``: text that is YAML, JSON, JSON5 or almost-JSON, read to a value.

The order matters and is MVU's: text that starts with ``{`` or ``[`` is tried as JSON5, then
repaired JSON, then YAML; any other text as YAML first (lenient: the first document, whatever
follows), then JSON5, then repaired JSON.  ``ParseStringError`` when nothing reads it.
"""

from __future__ import annotations

from typing import Any

from peargarden.text.jsstring import js_trim_start
from peargarden.variables.json5 import Json5Error, parse_json5
from peargarden.variables.json_repair import JsonRepairError, repair_json
from peargarden.variables.yaml_load import YamlError, load_lenient


class ParseStringError(ValueError):
    """The text is none of YAML, JSON5 or repairable JSON."""


def parse_string(content: str) -> Any:
    """The value of ``content`` read as MVU reads initial variables and JSON Patch blocks."""
    json_first = js_trim_start(content)[:1] in ("[", "{")
    if not json_first:
        try:
            return load_lenient(content)
        except YamlError:
            pass
    try:
        return parse_json5(content)
    except Json5Error:
        pass
    try:
        return repair_json(content)
    except JsonRepairError as repair_error:
        if not json_first:
            raise ParseStringError("不是有效的 YAML/JSON/JSON5 格式") from repair_error
    try:
        return load_lenient(content)
    except YamlError as error:
        raise ParseStringError("不是有效的 YAML/JSON/JSON5 格式") from error
