"""Arithmetic: ``/add`` ``/sub`` ``/mul`` ``/div`` ``/mod`` ``/pow`` ``/max`` ``/min`` ``/abs``
``/sqrt`` ``/round`` ``/sin`` ``/cos`` ``/log`` ``/rand``, and ``/len`` and ``/sort``.

Operands are numbers, names of variables (scoped, chat, then global), or one JSON list of them;
what is not a number is dropped.  A result that is not a number is ``0``; numbers print as JavaScript
prints them.  ``/rand`` draws from the host's random source (seedable, as the recordings were).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cmp_to_key
from typing import Any

from peargarden.text.jsstring import JS_SPACE, js_length
from peargarden.text.jsvalue import UNDEFINED, number_to_string

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, CommandError
from .variables import resolve_variable


def numbers(call: Call, value: Any) -> list[float]:
    """SillyTavern's ``parseNumericSeries``."""
    if js.typeof(value) == "number":
        return [float(value)]
    items: list[Any] = value if isinstance(value, list) else js.string(value).split(" ")
    if len(items) == 1 and isinstance(items[0], str):
        items = js.convert_type(items[0], "array") if items[0].startswith("[") else items[0].split(" ")
    out = []
    for item in items:
        if isinstance(item, str):
            item = item.strip(JS_SPACE)
            if item == "":
                continue
        direct = js.number(item)
        found = js.number(resolve_variable(call, js.string(item))) if math.isnan(direct) else direct
        if not math.isnan(found):
            out.append(found)
    return out


def js_round(x: float) -> float:
    """``Math.round``: halves go up (towards +∞)."""
    if not math.isfinite(x):
        return x
    floor = math.floor(x)
    return floor + 1 if x - floor >= 0.5 else floor


def _pow(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except OverflowError:
        return math.inf if a > 0 or b % 2 == 0 else -math.inf
    except ValueError:
        return math.nan


def _log(a: float) -> float:
    if a == 0:
        return -math.inf
    return math.log(a) if a > 0 else math.nan


def _div(values: list[float]) -> float:
    if len(values) < 2:
        return math.nan
    if values[1] == 0:
        return 0.0
    return values[0] / values[1]


def _mod(values: list[float]) -> float:
    if len(values) < 2:
        return math.nan
    if values[1] == 0:
        return 0.0
    if math.isinf(values[1]) and math.isfinite(values[0]):
        return values[0]
    return math.fmod(values[0], values[1]) if math.isfinite(values[0]) else math.nan


def _sub(values: list[float]) -> float:
    total = values[0]
    for item in values[1:]:
        total -= item
    return total


def _operation(operation: Callable[[list[float]], float], *, single: bool = False) -> Callable[[Call], str]:
    def run(call: Call) -> str:
        value = call.value
        if value == "" or value is None or value is UNDEFINED:
            return "0"
        values = numbers(call, value)
        if not values:
            return "0"
        try:
            result = operation(values[:1] if single else values)
        except (OverflowError, ValueError):
            result = math.nan
        if math.isnan(result):
            return "0"
        return number_to_string(js.as_js_number(result))

    return run


def _unary(function: Callable[[float], float]) -> Callable[[list[float]], float]:
    return lambda values: function(values[0])


def _length(call: Call) -> str:
    value = call.value
    try:
        parsed = js.json_parse(value)
    except js.JsonError:
        parsed = value
    if isinstance(parsed, list):
        return str(len(parsed))
    if isinstance(parsed, str):
        return str(js_length(parsed))
    if isinstance(parsed, dict):
        return str(len(parsed))
    if parsed is None:
        raise CommandError("Cannot convert undefined or null to object")
    if js.typeof(parsed) == "number":
        return str(js_length(number_to_string(parsed)))
    return "0"


def _compare(a: Any, b: Any) -> int:
    if js.typeof(a) != js.typeof(b):
        a, b = js.typeof(a), js.typeof(b)
    if isinstance(a, str) and isinstance(b, str):
        ka, kb = a.encode("utf-16-be"), b.encode("utf-16-be")
        return (ka > kb) - (ka < kb)
    try:
        return int((a > b) - (a < b))
    except TypeError:
        return 0


def _sort(call: Call) -> Any:
    value = call.value
    if isinstance(value, str):
        try:
            parsed = js.json_parse(value)
        except js.JsonError:
            return value
    else:
        parsed = value
    if isinstance(parsed, list):
        parsed = sorted(parsed, key=cmp_to_key(_compare))
    elif isinstance(parsed, dict):
        source = parsed
        if js.is_false(call.arg("keysort")):
            parsed = sorted(source, key=cmp_to_key(lambda a, b: _compare(source[a], source[b])))
        else:
            parsed = sorted(source, key=cmp_to_key(_compare))
    return js.stringify(parsed)


def _rand(call: Call) -> str:
    start = js.number(call.arg("from", 0) if call.arg("from") is not None else 0)
    given_to = call.arg("to")
    end = js.number(
        given_to if given_to is not UNDEFINED and given_to is not None else (call.value if call.value else 1)
    )
    value = start + call.host.random() * (end - start)
    rounding = call.arg("round")
    if rounding == "round":
        value = js_round(value)
    elif rounding == "ceil":
        value = math.ceil(value) if math.isfinite(value) else value
    elif rounding == "floor":
        value = math.floor(value) if math.isfinite(value) else value
    return number_to_string(js.as_js_number(float(value)))


_VALUES = (
    Arg(
        "values",
        "numbers, variable names or a JSON list",
        ("number", "variable_name", "list"),
        required=True,
        multiple=True,
    ),
)
_PAIR = (
    Arg("first", types=("number", "variable_name"), required=True),
    Arg("second", types=("number", "variable_name"), required=True),
)
_ONE = (Arg("value", types=("number", "variable_name"), required=True),)


def _math(
    name: str,
    operation: Callable[[list[float]], float],
    help_text: str,
    unnamed: tuple[Arg, ...],
    *,
    split: bool,
    single: bool = False,
) -> Command:
    return Command(
        name, _operation(operation, single=single), help_text, unnamed=unnamed, split=split, returns="the result"
    )


COMMANDS = (
    _math("add", sum, "Adds the values.", _VALUES, split=True),
    _math("mul", math.prod, "Multiplies the values.", _VALUES, split=True),
    _math("max", max, "The largest value.", _VALUES, split=True),
    _math("min", min, "The smallest value.", _VALUES, split=True),
    _math("sub", _sub, "Subtracts the other values from the first.", _VALUES, split=True),
    _math("div", _div, "Divides the first value by the second (by zero: 0).", _PAIR, split=True),
    _math("mod", _mod, "The remainder of the first value divided by the second.", _PAIR, split=True),
    _math(
        "pow",
        lambda v: _pow(v[0], v[1] if len(v) > 1 else math.nan),
        "The first value to the power of the second.",
        _PAIR,
        split=True,
    ),
    _math("sin", _unary(math.sin), "Sine.", _ONE, split=False, single=True),
    _math("cos", _unary(math.cos), "Cosine.", _ONE, split=False, single=True),
    _math("log", _unary(_log), "Natural logarithm.", _ONE, split=False, single=True),
    _math("abs", _unary(abs), "Absolute value.", _ONE, split=False, single=True),
    _math(
        "sqrt", _unary(lambda x: math.sqrt(x) if x >= 0 else math.nan), "Square root.", _ONE, split=False, single=True
    ),
    _math("round", _unary(js_round), "Rounds to the nearest whole number (halves up).", _ONE, split=False, single=True),
    Command(
        "len",
        _length,
        "The length of a text, list or dictionary.",
        aliases=("length",),
        unnamed=(Arg("value", types=("string", "number", "list", "dictionary"), required=True),),
        returns="the length",
    ),
    Command(
        "sort",
        _sort,
        "Sorts a JSON list; for a dictionary, its keys (keysort=false: by their values).",
        named=(Arg("keysort", types=("boolean",), default="true"),),
        unnamed=(Arg("value", types=("list", "dictionary"), required=True),),
        returns="the sorted list or keys",
    ),
    Command(
        "rand",
        _rand,
        "A random number between from (0) and to (1, or the unnamed argument); round=round|ceil|floor.",
        named=(
            Arg("from", types=("number",), default="0"),
            Arg("to", types=("number",), default="1"),
            Arg("round", choices=("round", "ceil", "floor")),
        ),
        unnamed=(Arg("to", types=("number",)),),
        returns="the number",
    ),
)

__all__ = ["COMMANDS", "js_round", "numbers"]
