"""A command argument's text read to a value, as MVU's ``parseCommandValue`` reads it.

In order: ``true``/``false``/``null``/``undefined``; JSON; an object or array literal; a math.js
expression (numbers rounded to 12 significant digits, complex numbers and matrices as math.js
prints them); YAML; and last the text with its outer quotes and backslashes trimmed.

Past MVU: text nested deeper than ``bounds.MAX_DEPTH`` brackets, or a value past its limits, raises
``bounds.TooLarge`` (the command is refused); YAML whose aliases expand too far is refused as the
``yaml`` package refuses it, so the value is the trimmed text as in MVU, and *notes* gets a line.
"""

from __future__ import annotations

import json
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from peargarden.text.jsstring import js_trim
from peargarden.variables import mathexpr
from peargarden.variables.bounds import TooLarge, check_value, depth_message, text_nesting_exceeds
from peargarden.variables.json5 import Json5Error, parse_js_literal
from peargarden.variables.jsvalues import UNDEFINED, from_json, is_number, js_number
from peargarden.variables.yaml_load import YamlAliasError, YamlError
from peargarden.variables.yaml_load import load as yaml_parse

# JavaScript's ``.`` stops at line terminators: a value spanning lines is left as it is.
_TRIM_QUOTES = re.compile(r"^[\\\"'` ]*([^\n\r\u2028\u2029]*?)[\\\"'` ]*\Z")
_SYMBOL_NAME = re.compile(r"^[a-zA-Z_]+\Z")


def trim_quotes_and_backslashes(text: Any) -> Any:
    """MVU's ``trimQuotesAndBackslashes``: quotes, backticks, spaces and backslashes off both ends."""
    if not isinstance(text, str):
        return text
    match = _TRIM_QUOTES.match(text)
    return match.group(1) if match else text


def to_precision_12(value: float) -> int | float:
    """``parseFloat(value.toPrecision(12))``: MVU's guard against floating-point noise."""
    if not math.isfinite(value) or value == 0:
        return js_number(value)
    exponent = Decimal(value).adjusted()
    quantum = Decimal(1).scaleb(exponent - 11)
    rounded = Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP)
    return js_number(float(rounded))


def _json_parse(text: str) -> Any:
    """``JSON.parse``: strict JSON, no ``NaN``/``Infinity``."""

    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    value = json.loads(text, parse_constant=refuse)
    return from_json(value)


def _math_value(text: str) -> Any:
    """The math.js branch: a value, or ``None`` when MVU would move on to YAML."""
    try:
        result = mathexpr.evaluate(text)
    except mathexpr.MathError:
        return None
    if result is mathexpr.NOTHING:
        # math.js gave ``undefined``: MVU keeps the text itself unless it looks like a bare name.
        return None if _SYMBOL_NAME.match(text) else text
    if isinstance(result, complex | list):
        return mathexpr.format_value(result)
    if is_number(result):
        return to_precision_12(float(result))
    # Strings, booleans, objects and functions have no ``toPrecision``: math.js's answer is dropped.
    return None


def parse_command_value(text: Any, notes: list[str] | None = None) -> Any:
    """MVU's ``parseCommandValue``: the value a command argument stands for (see the module
    docstring for ``TooLarge`` and *notes*)."""
    if not isinstance(text, str):
        return text
    if text_nesting_exceeds(text):
        raise TooLarge(depth_message())
    value = _command_value(text, notes)
    check_value(value)
    return value


def _command_value(text: str, notes: list[str] | None) -> Any:
    trimmed = js_trim(text)
    if trimmed in ("true", "false"):
        return trimmed == "true"
    if trimmed == "null":
        return None
    if trimmed == "undefined":
        return UNDEFINED
    try:
        return _json_parse(trimmed)
    except ValueError:
        pass
    if (trimmed.startswith("{") and trimmed.endswith("}")) or (trimmed.startswith("[") and trimmed.endswith("]")):
        try:
            literal = parse_js_literal(trimmed)
        except Json5Error:
            literal = None
        if isinstance(literal, dict | list):
            return literal
    computed = _math_value(trimmed)
    if computed is not None:
        return computed
    try:
        return yaml_parse(trimmed)
    except YamlAliasError as error:
        if notes is not None:
            notes.append(f"{error}：按原文写入")
    except YamlError:
        pass
    return trim_quotes_and_backslashes(text)
