"""The part of math.js that MVU's command values reach: ``100 - 20``, ``sqrt(144)``, ``Math.floor(x)``.

MVU hands a command value that is neither JSON nor a literal to ``math.evaluate`` with ``Math`` (the
JavaScript object) and ``math`` (math.js itself) in scope, so ``_.add('金钱', 10 * 60)`` adds 600 and
``_.set('x', 2024-01-01)`` sets 2022.  This evaluator covers what models and MVU's tests write:
numbers (decimal, hex, binary, octal), strings, arithmetic with math.js precedence (``^`` binds
right, implicit multiplication ``2pi``), comparisons, ``?:``, the usual functions and constants,
complex numbers (``3i``), matrices (``[1, 2; 3, 4]``, ``det``, products), member calls on ``Math``
and ``math``, objects ``{x: 2}`` and ``derivative('x^3', 'x').evaluate({x: 2})``.  Anything else
raises ``MathError``, after which MVU reads the text as YAML or a plain string, as it does when
math.js fails.  ``Math.random`` is left out on purpose: the core draws no random numbers.
"""

from __future__ import annotations

import cmath
import math
import re
from collections.abc import Callable
from typing import Any

import msgspec

from peargarden.variables.jsvalues import number_to_string


class MathError(ValueError):
    """The text is not an expression this evaluator (and so, as far as it knows, math.js) computes."""


_TOKEN = re.compile(
    r"""(?P<space>[ \t\u00a0]+)
      |(?P<number>0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
      |(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      |(?P<name>[A-Za-z_$\u0391-\u03c9][A-Za-z0-9_$\u0391-\u03c9]*)
      |(?P<comment>\#[^\n]*)
      |(?P<op>\.\*|\./|\.\^|==|!=|<=|>=|[-+*/^%!()\[\],;.?:<>{}'=])""",
    re.VERBOSE,
)
_WORD_OPERATORS = {"mod", "and", "or", "not", "xor", "to", "in"}


class Node(msgspec.Struct, frozen=True):
    """An expression tree: ``kind`` and its parts (numbers, names, child nodes)."""

    kind: str
    parts: tuple[Any, ...]


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            raise MathError(f"unexpected character {text[position]!r}")
        position = match.end()
        kind = match.lastgroup or ""
        if kind in ("space", "comment"):
            continue
        value = match.group(0)
        if kind == "name" and value in _WORD_OPERATORS:
            kind = "op"
        tokens.append((kind, value))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self, offset: int = 0) -> tuple[str, str]:
        index = self.pos + offset
        return self.tokens[index] if index < len(self.tokens) else ("end", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if value is not None and token[1] != value:
            raise MathError(f"expected {value!r}")
        self.pos += 1
        return token

    def at(self, *values: str) -> bool:
        kind, value = self.peek()
        return kind in ("op", "name") and value in values

    def parse(self) -> Node:
        node = self.conditional()
        if self.peek()[0] != "end":
            raise MathError(f"unexpected {self.peek()[1]!r}")
        return node

    def conditional(self) -> Node:
        condition = self.logical()
        if self.at("?"):
            self.take()
            then = self.conditional()
            self.take(":")
            otherwise = self.conditional()
            return Node("if", (condition, then, otherwise))
        return condition

    def logical(self) -> Node:
        node = self.relational()
        while self.at("and", "or", "xor"):
            operator = self.take()[1]
            node = Node("binary", (operator, node, self.relational()))
        return node

    def relational(self) -> Node:
        node = self.range()
        while self.at("==", "!=", "<", ">", "<=", ">="):
            operator = self.take()[1]
            node = Node("binary", (operator, node, self.range()))
        return node

    def range(self) -> Node:
        node = self.additive()
        if self.at(":") and self.peek(1)[1] != "end":
            parts = [node]
            while self.at(":") and len(parts) < 3:
                self.take()
                parts.append(self.additive())
            return Node("range", tuple(parts))
        return node

    def additive(self) -> Node:
        node = self.multiplicative()
        while self.at("+", "-"):
            operator = self.take()[1]
            node = Node("binary", (operator, node, self.multiplicative()))
        return node

    def multiplicative(self) -> Node:
        node = self.implicit()
        while self.at("*", "/", ".*", "./", "%", "mod"):
            operator = self.take()[1]
            node = Node("binary", (operator, node, self.implicit()))
        return node

    def implicit(self) -> Node:
        node = self.unary()
        while self.peek()[0] in ("name", "number") or self.at("("):
            if self.peek()[0] == "number" and node.kind == "number":
                raise MathError("two numbers in a row")
            node = Node("binary", ("*", node, self.unary()))
        return node

    def unary(self) -> Node:
        if self.at("-", "+", "not"):
            operator = self.take()[1]
            return Node("unary", (operator, self.unary()))
        return self.power()

    def power(self) -> Node:
        node = self.postfix()
        if self.at("^", ".^"):
            self.take()
            return Node("binary", ("^", node, self.unary()))
        return node

    def postfix(self) -> Node:
        node = self.accessors(self.primary())
        while self.at("!", "'") or (self.at("%") and self._percent_ends_term()):
            operator = self.take()[1]
            kind = {"!": "factorial", "'": "transpose"}.get(operator, "percent")
            node = Node(kind, (node,))
        return node

    def _percent_ends_term(self) -> bool:
        """``50%`` is a percentage when nothing that could be a divisor follows the ``%``."""
        kind, value = self.peek(1)
        return kind == "end" or (kind == "op" and value in (")", "]", ",", ";", "+", "-", "*", "/", "^", "%"))

    def accessors(self, node: Node) -> Node:
        while True:
            if self.at("(") and node.kind in ("symbol", "member", "call"):
                self.take()
                node = Node("call", (node, tuple(self.arguments(")"))))
            elif self.at(".") and self.peek(1)[0] == "name":
                self.take()
                node = Node("member", (node, self.take()[1]))
            else:
                return node

    def arguments(self, closing: str) -> list[Node]:
        args: list[Node] = []
        if self.at(closing):
            self.take()
            return args
        while True:
            args.append(self.conditional())
            if self.at(","):
                self.take()
                continue
            self.take(closing)
            return args

    def primary(self) -> Node:
        kind, value = self.take()
        if kind == "number":
            return Node("number", (_number_literal(value),))
        if kind == "string":
            return Node("string", (_string_literal(value),))
        if kind == "name":
            return Node("symbol", (value,))
        if value == "(":
            inner = self.conditional()
            self.take(")")
            return Node("group", (inner,))
        if value == "[":
            return self.matrix()
        if value == "{":
            return self.object()
        raise MathError(f"unexpected {value or 'end of expression'!r}")

    def matrix(self) -> Node:
        rows: list[list[Node]] = [[]]
        if self.at("]"):
            self.take()
            return Node("matrix", ((),))
        while True:
            rows[-1].append(self.conditional())
            if self.at(","):
                self.take()
            elif self.at(";"):
                self.take()
                rows.append([])
            else:
                self.take("]")
                break
        if len(rows) == 1:
            return Node("matrix", (tuple(rows[0]),))
        return Node("rows", tuple(tuple(row) for row in rows))

    def object(self) -> Node:
        entries: list[tuple[str, Node]] = []
        while not self.at("}"):
            kind, key = self.take()
            if kind == "string":
                key = _string_literal(key)
            elif kind not in ("name", "number"):
                raise MathError("bad object key")
            self.take(":")
            entries.append((key, self.conditional()))
            if self.at(","):
                self.take()
        self.take("}")
        return Node("object", tuple(entries))


def _number_literal(text: str) -> float:
    lowered = text.lower()
    for prefix, base in (("0x", 16), ("0b", 2), ("0o", 8)):
        if lowered.startswith(prefix):
            return float(int(text[2:], base))
    return float(text)


def _string_literal(text: str) -> str:
    body = text[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), body)


# --- values -----------------------------------------------------------------------------------------

Matrix = list[Any]


class Expression(msgspec.Struct, frozen=True):
    """A parsed expression as a value (what ``derivative`` returns): it can be evaluated later."""

    node: Node


def _real(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MathError("a number was expected")
    return float(value)


def _num(value: Any) -> float | complex:
    if isinstance(value, complex):
        return value
    return _real(value)


def _tidy(value: complex) -> float | complex:
    return value.real if value.imag == 0 else value


def _is_matrix(value: Any) -> bool:
    return isinstance(value, list)


def _elementwise(operator: Callable[[Any, Any], Any], left: Any, right: Any) -> Any:
    if _is_matrix(left) and _is_matrix(right):
        if len(left) != len(right):
            raise MathError("dimension mismatch")
        return [_elementwise(operator, a, b) for a, b in zip(left, right, strict=True)]
    if _is_matrix(left):
        return [_elementwise(operator, a, right) for a in left]
    if _is_matrix(right):
        return [_elementwise(operator, left, b) for b in right]
    return operator(left, right)


def _matmul(left: Matrix, right: Matrix) -> Any:
    left_2d = left if left and _is_matrix(left[0]) else [left]
    right_2d = right if right and _is_matrix(right[0]) else [[value] for value in right]
    if len(left_2d[0]) != len(right_2d):
        raise MathError("dimension mismatch")
    product = [
        [
            sum((_num(row[k]) * _num(right_2d[k][col]) for k in range(len(right_2d))), 0.0)
            for col in range(len(right_2d[0]))
        ]
        for row in left_2d
    ]
    if not _is_matrix(left[0]) and not (right and _is_matrix(right[0])):
        return product[0][0]
    return product


def _multiply(left: Any, right: Any) -> Any:
    if _is_matrix(left) and _is_matrix(right):
        return _matmul(left, right)
    return _elementwise(lambda a, b: _tidy(complex(_num(a) * _num(b))), left, right)


def _divide(left: Any, right: Any) -> Any:
    def scalar(a: Any, b: Any) -> Any:
        a_num, b_num = _num(a), _num(b)
        if isinstance(a_num, complex) or isinstance(b_num, complex):
            return _tidy(a_num / b_num)
        if b_num == 0:
            return math.nan if a_num == 0 else math.copysign(math.inf, a_num) * math.copysign(1, b_num)
        return a_num / b_num

    return _elementwise(scalar, left, right)


def _power(base: Any, exponent: Any) -> Any:
    def scalar(a: Any, b: Any) -> Any:
        a_num, b_num = _num(a), _num(b)
        if isinstance(a_num, complex) or isinstance(b_num, complex) or (a_num < 0 and not float(b_num).is_integer()):
            return _tidy(complex(a_num) ** b_num)
        try:
            return math.pow(a_num, b_num)
        except OverflowError:
            return math.inf
        except ValueError:
            return math.nan

    return _elementwise(scalar, base, exponent)


def _mod(left: Any, right: Any) -> Any:
    def scalar(a: Any, b: Any) -> float:
        a_num, b_num = _real(a), _real(b)
        if b_num == 0:
            return a_num
        return a_num - b_num * math.floor(a_num / b_num)

    return _elementwise(scalar, left, right)


def _compare(operator: str, left: Any, right: Any) -> bool:
    a, b = _real(left), _real(right)
    return {"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[operator]


def _plus(left: Any, right: Any) -> Any:
    return _elementwise(
        lambda a, b: _tidy(complex(_num(a) + _num(b))) if _any_complex(a, b) else _num(a) + _num(b), left, right
    )


def _minus(left: Any, right: Any) -> Any:
    return _elementwise(
        lambda a, b: _tidy(complex(_num(a) - _num(b))) if _any_complex(a, b) else _num(a) - _num(b), left, right
    )


def _any_complex(left: Any, right: Any) -> bool:
    return isinstance(left, complex) or isinstance(right, complex)


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": _plus,
    "-": _minus,
    "*": _multiply,
    ".*": lambda a, b: _elementwise(lambda x, y: _tidy(complex(_num(x) * _num(y))), a, b),
    "/": _divide,
    "./": _divide,
    "^": _power,
    "%": _mod,
    "mod": _mod,
}


def _round_half_up(value: float, digits: int = 0) -> float:
    factor = 10.0**digits
    return math.floor(value * factor + 0.5) / factor


def _js_round(value: float) -> float:
    return math.floor(value + 0.5)


def _math_js_round(value: float, digits: float = 0) -> float:
    # math.js rounds half away from zero.
    factor = 10.0 ** int(digits)
    return math.copysign(math.floor(abs(value) * factor + 0.5) / factor, value)


def _log(value: Any, base: Any = None) -> Any:
    number = _num(value)
    if isinstance(number, complex) or number < 0:
        result = cmath.log(number)
        return _tidy(result / cmath.log(_num(base))) if base is not None else _tidy(result)
    if number == 0:
        return -math.inf
    natural = math.log(number)
    return natural / math.log(_real(base)) if base is not None else natural


def _sqrt(value: Any) -> Any:
    number = _num(value)
    if isinstance(number, complex) or number < 0:
        return _tidy(cmath.sqrt(number))
    return math.sqrt(number)


def _det(matrix: Any) -> float:
    if not _is_matrix(matrix) or not matrix:
        raise MathError("det needs a square matrix")
    rows = [[_real(value) for value in row] for row in matrix] if _is_matrix(matrix[0]) else [[_real(matrix[0])]]
    size = len(rows)
    if any(len(row) != size for row in rows):
        raise MathError("det needs a square matrix")
    if size == 1:
        return rows[0][0]
    if size == 2:
        return rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0]
    return math.fsum(
        ((-1) ** column) * rows[0][column] * _det([row[:column] + row[column + 1 :] for row in rows[1:]])
        for column in range(size)
    )


def _flatten(values: tuple[Any, ...]) -> list[float]:
    flat: list[float] = []
    for value in values:
        if _is_matrix(value):
            flat.extend(_flatten(tuple(value)))
        else:
            flat.append(_real(value))
    return flat


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _variance(values: list[float]) -> float:
    """math.js's default ("unbiased"): divided by n - 1."""
    if len(values) < 2:
        return 0.0
    mean = math.fsum(values) / len(values)
    return math.fsum((value - mean) ** 2 for value in values) / (len(values) - 1)


def _factorial(value: Any) -> float:
    number = _real(value)
    if number < 0 or not number.is_integer():
        return math.gamma(number + 1)
    return float(math.factorial(int(number))) if number < 171 else math.inf


def _unary_real(function: Callable[[float], float]) -> Callable[..., Any]:
    return lambda value: _elementwise(lambda a, _b: function(_real(a)), value, 0)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": lambda value: _elementwise(lambda a, _b: abs(_num(a)), value, 0),
    "sqrt": _sqrt,
    "cbrt": _unary_real(lambda a: math.copysign(abs(a) ** (1 / 3), a)),
    "exp": _unary_real(math.exp),
    "expm1": _unary_real(math.expm1),
    "log": _log,
    "log10": _unary_real(lambda a: math.log10(a) if a > 0 else (-math.inf if a == 0 else math.nan)),
    "log2": _unary_real(lambda a: math.log2(a) if a > 0 else (-math.inf if a == 0 else math.nan)),
    "log1p": _unary_real(math.log1p),
    "sin": _unary_real(math.sin),
    "cos": _unary_real(math.cos),
    "tan": _unary_real(math.tan),
    "asin": _unary_real(math.asin),
    "acos": _unary_real(math.acos),
    "atan": _unary_real(math.atan),
    "atan2": lambda y, x: math.atan2(_real(y), _real(x)),
    "sinh": _unary_real(math.sinh),
    "cosh": _unary_real(math.cosh),
    "tanh": _unary_real(math.tanh),
    "floor": _unary_real(math.floor),
    "ceil": _unary_real(math.ceil),
    "fix": _unary_real(math.trunc),
    "round": lambda value, digits=0: _elementwise(lambda a, _b: _math_js_round(_real(a), _real(digits)), value, 0),
    "sign": _unary_real(lambda a: (a > 0) - (a < 0) if a == a else math.nan),
    "pow": _power,
    "mod": _mod,
    "square": lambda value: _multiply(value, value),
    "cube": lambda value: _power(value, 3.0),
    "nthRoot": lambda value, root=2.0: math.copysign(abs(_real(value)) ** (1 / _real(root)), _real(value)),
    "hypot": lambda *values: math.hypot(*_flatten(values)),
    "max": lambda *values: max(_flatten(values)),
    "min": lambda *values: min(_flatten(values)),
    "sum": lambda *values: math.fsum(_flatten(values)),
    "prod": lambda *values: math.prod(_flatten(values)),
    "mean": lambda *values: math.fsum(_flatten(values)) / len(_flatten(values)),
    "median": lambda *values: _median(_flatten(values)),
    "variance": lambda *values: _variance(_flatten(values)),
    "std": lambda *values: math.sqrt(_variance(_flatten(values))),
    "factorial": _factorial,
    "det": _det,
    "add": lambda a, b: _BINARY["+"](a, b),
    "subtract": lambda a, b: _BINARY["-"](a, b),
    "multiply": _multiply,
    "divide": _divide,
    "gcd": lambda *values: float(math.gcd(*(int(v) for v in _flatten(values)))),
    "lcm": lambda *values: float(math.lcm(*(int(v) for v in _flatten(values)))),
}

_CONSTANTS: dict[str, Any] = {
    "pi": math.pi,
    "PI": math.pi,
    "e": math.e,
    "E": math.e,
    "tau": math.tau,
    "phi": (1 + math.sqrt(5)) / 2,
    "i": 1j,
    "Infinity": math.inf,
    "NaN": math.nan,
    "true": True,
    "false": False,
    "null": None,
    "LN2": math.log(2),
    "LN10": math.log(10),
    "LOG2E": 1 / math.log(2),
    "LOG10E": 1 / math.log(10),
    "SQRT2": math.sqrt(2),
    "SQRT1_2": math.sqrt(0.5),
}

# JavaScript's ``Math``: its own rounding (half toward +∞) and single-argument ``log``.
_JS_MATH: dict[str, Any] = {
    **{name: _CONSTANTS[name] for name in ("PI", "E", "LN2", "LN10", "LOG2E", "LOG10E", "SQRT2", "SQRT1_2")},
    **{
        name: _FUNCTIONS[name]
        for name in (
            "abs",
            "sqrt",
            "cbrt",
            "exp",
            "expm1",
            "log10",
            "log2",
            "log1p",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "atan2",
            "sinh",
            "cosh",
            "tanh",
            "floor",
            "ceil",
            "sign",
            "hypot",
            "max",
            "min",
        )
    },
    "log": lambda value: _log(value),
    "round": _unary_real(_js_round),
    "trunc": _unary_real(math.trunc),
    "pow": lambda a, b: _power(a, b),
}


class _Namespace(dict[str, Any]):
    """``Math`` or ``math`` in the scope: a bag of functions and constants reached with ``.``."""


def _scope_value(name: str, scope: dict[str, Any]) -> Any:
    if name in scope:
        return scope[name]
    if name == "Math":
        return _Namespace(_JS_MATH)
    if name == "math":
        return _Namespace({**_CONSTANTS, **_FUNCTIONS, "derivative": _derivative})
    if name in _CONSTANTS:
        return _CONSTANTS[name]
    if name in _FUNCTIONS:
        return _FUNCTIONS[name]
    if name == "derivative":
        return _derivative
    raise MathError(f"Undefined symbol {name}")


def evaluate_node(node: Node, scope: dict[str, Any]) -> Any:
    kind, parts = node.kind, node.parts
    if kind in ("number", "string"):
        return parts[0]
    if kind == "symbol":
        return _scope_value(parts[0], scope)
    if kind == "group":
        return evaluate_node(parts[0], scope)
    if kind == "unary":
        operand = evaluate_node(parts[1], scope)
        if parts[0] == "not":
            return not operand
        return _elementwise(lambda a, _b: -_num(a), operand, 0) if parts[0] == "-" else operand
    if kind == "binary":
        operator, left, right = parts[0], evaluate_node(parts[1], scope), evaluate_node(parts[2], scope)
        if operator in ("==", "!=", "<", ">", "<=", ">="):
            return _compare(operator, left, right)
        if operator in ("and", "or", "xor"):
            a, b = bool(left), bool(right)
            return {"and": a and b, "or": a or b, "xor": a != b}[operator]
        return _BINARY[operator](left, right)
    if kind == "if":
        return evaluate_node(parts[1] if evaluate_node(parts[0], scope) else parts[2], scope)
    if kind == "percent":
        return _divide(evaluate_node(parts[0], scope), 100.0)
    if kind == "factorial":
        return _factorial(evaluate_node(parts[0], scope))
    if kind == "transpose":
        value = evaluate_node(parts[0], scope)
        return (
            [list(row) for row in zip(*value, strict=True)]
            if _is_matrix(value) and value and _is_matrix(value[0])
            else value
        )
    if kind == "matrix":
        return [evaluate_node(item, scope) for item in parts[0]]
    if kind == "rows":
        return [[evaluate_node(item, scope) for item in row] for row in parts]
    if kind == "range":
        values = [_real(evaluate_node(part, scope)) for part in parts]
        start, end = values[0], values[-1]
        step = values[1] if len(values) == 3 else 1.0
        count = math.floor((end - start) / step) + 1 if step else 0
        return [start + step * index for index in range(max(count, 0))]
    if kind == "object":
        return {key: evaluate_node(value, scope) for key, value in parts}
    if kind == "member":
        target = evaluate_node(parts[0], scope)
        if isinstance(target, Expression) and parts[1] == "evaluate":
            return lambda variables=None: evaluate_node(target.node, dict(variables or {}))
        if isinstance(target, _Namespace) and parts[1] in target:
            return target[parts[1]]
        raise MathError(f"no member {parts[1]}")
    if kind == "call":
        function = evaluate_node(parts[0], scope)
        if not callable(function):
            raise MathError("not a function")
        args = [evaluate_node(arg, scope) for arg in parts[1]]
        try:
            return function(*args)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError) as error:
            raise MathError(str(error)) from error
    raise MathError(f"cannot evaluate {kind}")


# --- derivative -------------------------------------------------------------------------------------


def _n(value: float) -> Node:
    return Node("number", (value,))


def _b(operator: str, left: Node, right: Node) -> Node:
    return Node("binary", (operator, left, right))


def _d(node: Node, variable: str) -> Node:
    kind, parts = node.kind, node.parts
    if kind in ("number", "string"):
        return _n(0.0)
    if kind == "symbol":
        return _n(1.0 if parts[0] == variable else 0.0)
    if kind == "group":
        return _d(parts[0], variable)
    if kind == "unary":
        return Node("unary", (parts[0], _d(parts[1], variable)))
    if kind == "binary":
        operator, left, right = parts
        if operator in ("+", "-"):
            return _b(operator, _d(left, variable), _d(right, variable))
        if operator in ("*", ".*"):
            return _b("+", _b("*", _d(left, variable), right), _b("*", left, _d(right, variable)))
        if operator in ("/", "./"):
            top = _b("-", _b("*", _d(left, variable), right), _b("*", left, _d(right, variable)))
            return _b("/", top, _b("^", right, _n(2.0)))
        if operator == "^" and right.kind == "number":
            exponent = right.parts[0]
            return _b("*", _b("*", _n(exponent), _b("^", left, _n(exponent - 1))), _d(left, variable))
        if operator == "^":
            # d(f^g) = f^g * (g' ln f + g f'/f)
            return _b(
                "*",
                node,
                _b(
                    "+",
                    _b("*", _d(right, variable), Node("call", (Node("symbol", ("log",)), (left,)))),
                    _b("/", _b("*", right, _d(left, variable)), left),
                ),
            )
    if kind == "call" and parts[0].kind == "symbol" and len(parts[1]) == 1:
        name, inner = parts[0].parts[0], parts[1][0]
        outer = {
            "sin": lambda x: Node("call", (Node("symbol", ("cos",)), (x,))),
            "cos": lambda x: Node("unary", ("-", Node("call", (Node("symbol", ("sin",)), (x,))))),
            "exp": lambda x: Node("call", (Node("symbol", ("exp",)), (x,))),
            "log": lambda x: _b("/", _n(1.0), x),
            "sqrt": lambda x: _b("/", _n(1.0), _b("*", _n(2.0), Node("call", (Node("symbol", ("sqrt",)), (x,))))),
        }.get(name)
        if outer is not None:
            return _b("*", outer(inner), _d(inner, variable))
    raise MathError("derivative of this expression is not supported")


def _derivative(expression: Any, variable: Any) -> Expression:
    node = expression.node if isinstance(expression, Expression) else parse(str(expression))
    name = variable if isinstance(variable, str) else None
    if name is None:
        raise MathError("derivative needs a variable name")
    return Expression(_d(node, name))


# --- entry points -----------------------------------------------------------------------------------


def parse(text: str) -> Node:
    """The expression tree of ``text`` (``MathError`` when it is not one)."""
    try:
        return _Parser(text).parse()
    except RecursionError as error:
        raise MathError("expression nested too deeply") from error


class _Nothing:
    """What math.js returns for an expression that is only a comment: ``undefined``."""


NOTHING = _Nothing()


def evaluate(text: str) -> Any:
    """``math.evaluate(text, {Math, math})``: a float, complex, matrix (list), bool, string, dict or function.

    ``NOTHING`` when the text is only a ``#`` comment (math.js's ``undefined``).
    """
    try:
        if not _tokens(text):
            return NOTHING
        return evaluate_node(parse(text), {})
    except (RecursionError, OverflowError, ZeroDivisionError) as error:
        raise MathError(str(error)) from error


# --- math.js's formatting of complex numbers and matrices ---------------------------------------------


def _format_number(value: float) -> str:
    """math.js's "auto" notation: plain digits within [1e-3, 1e5), an exponent outside."""

    if not math.isfinite(value) or value == 0:
        return number_to_string(value)
    exponent = math.floor(math.log10(abs(value)))
    if -3 <= exponent < 5:
        return number_to_string(value)
    mantissa = float(f"{abs(value) / 10**exponent:.15g}")
    sign = "-" if value < 0 else ""
    return f"{sign}{number_to_string(mantissa)}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def format_value(value: Any) -> str:
    """math.js's ``toString`` of a complex number or a matrix."""
    if isinstance(value, list):
        return "[" + ", ".join(format_value(item) for item in value) + "]"
    if isinstance(value, complex):
        re_part, im_part = value.real, value.imag
        re_text = _format_number(re_part)
        if im_part == 0:
            return re_text
        if re_part == 0:
            return "i" if im_part == 1 else "-i" if im_part == -1 else f"{_format_number(im_part)}i"
        if im_part < 0:
            return f"{re_text} - i" if im_part == -1 else f"{re_text} - {_format_number(-im_part)}i"
        return f"{re_text} + i" if im_part == 1 else f"{re_text} + {_format_number(im_part)}i"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _format_number(float(value))
    return str(value)
