"""Tool-call arguments: parse the model's JSON text, repair a truncated one, validate against the schema.

Models send arguments as JSON text that may be cut short (an output limit, a dropped connection) or
slightly off (a string where a number was asked).  Parsing tries strict JSON, then ``json_repair``; a
repaired object is used only if it then validates.  Simple scalar coercion (``"3"`` → 3, ``"true"`` →
True) follows AJV's ``coerceTypes`` for top-level properties, as pi does.  The error texts are pi's,
because models have learned to react to them.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

# json_repair and jsonschema are imported when first needed (a broken JSON text, a tool call to
# check): with its format checkers jsonschema alone is about a tenth of `pear chat`'s start, and a
# beat in which the model calls no tool needs neither.


class ParsedArguments(msgspec.Struct, frozen=True):
    args: dict[str, Any] | None
    repaired: bool = False
    error: str | None = None


def parse_arguments(raw: str) -> ParsedArguments:
    text = raw.strip() or "{}"
    try:
        value = json.loads(text)
    except ValueError:
        import json_repair

        try:
            value = json_repair.loads(text)
        except Exception:  # json_repair is lenient but not total
            value = None
        if isinstance(value, dict):
            return ParsedArguments(value, repaired=True)
        return ParsedArguments(None, error="invalid JSON")
    if not isinstance(value, dict):
        return ParsedArguments(None, error="arguments must be a JSON object")
    return ParsedArguments(value)


def unparsable_message(name: str, raw: str) -> str:
    return (
        f'Tool call "{name}" was not executed: its arguments are not valid JSON '
        "(they may have been cut off). "
        f"Re-issue the tool call with complete arguments.\n\nReceived arguments:\n{raw}"
    )


_COERCE_TRUE = {"true": True, "false": False}


def _coerce(value: Any, schema: Any) -> Any:
    if not isinstance(schema, dict) or not isinstance(value, str):
        return value
    kind = schema.get("type")
    try:
        if kind == "integer" and value.strip().lstrip("-").isdigit():
            return int(value)
        if kind == "number":
            return float(value)
    except ValueError:
        return value
    if kind == "boolean" and value.lower() in _COERCE_TRUE:
        return _COERCE_TRUE[value.lower()]
    return value


def coerce(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    if not isinstance(props, dict):
        return args
    return {key: _coerce(value, props.get(key)) for key, value in args.items()}


_validators: dict[str, Any] = {}  # jsonschema's Draft202012Validator per schema text


def _validator(schema: dict[str, Any]) -> Any:
    key = json.dumps(schema, sort_keys=True, ensure_ascii=False)
    found = _validators.get(key)
    if found is None:
        from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

        found = Draft202012Validator(schema)
        _validators[key] = found
    return found


def validation_errors(args: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """``<path>: <message>`` lines, empty when *args* satisfies *schema*."""
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

    try:
        validator = _validator(schema)
    except SchemaError as bad:
        return [f"root: the tool's own schema is invalid ({bad.message})"]
    out = []
    for problem in sorted(validator.iter_errors(args), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(str(part) for part in problem.absolute_path) or "root"
        out.append(f"{where}: {problem.message}")
    return out


def validation_message(name: str, errors: list[str], args: dict[str, Any]) -> str:
    lines = "\n".join(f"  - {error}" for error in errors)
    pretty = json.dumps(args, ensure_ascii=False, indent=2)
    return f'Validation failed for tool "{name}":\n{lines}\n\nReceived arguments:\n{pretty}'
