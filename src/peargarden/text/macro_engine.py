"""SillyTavern's new macro engine (1.17+, ``experimental_macro_engine``), as a pure function.

Three stages, as in SillyTavern: a scanner that turns text into a tree (plain text and macro
nodes; a macro's arguments are kept as raw spans), a pass that pairs scoped macros
``{{name}}…{{/name}}``, and an evaluator that walks the tree left to right.  Arguments are
evaluated before their macro (inside-out) unless the macro delays them (``{{if}}`` resolves only
the branch it takes).

Grammar inside ``{{ }}`` (whitespace around parts is ignored):

* flags ``! ? ~ # / >`` before the name (``/`` closes a scope, ``#`` keeps whitespace);
* a name ``[A-Za-z][\\w-]*`` or ``//`` (comment); names are case-insensitive, with aliases;
* arguments: ``::a::b`` (each may be empty), or one argument after ``:`` or whitespace which may
  itself contain ``::`` (the legacy form ``{{reverse:a::b}}`` is one argument);
* variable shorthands ``.name`` (chat) / ``$name`` (global) with an optional operator
  ``++ -- = += -= || ?? ||= ??= == != > >= < <=`` and a value.

Unknown macros are kept verbatim (with their inner macros resolved); a macro called with the wrong
number of arguments is kept verbatim too.  ``\\{`` / ``\\}`` escape braces; ``{{trim}}`` eats the
newlines around it after everything else, as in the legacy engine.  The environment is the same
:class:`~peargarden.text.macros.MacroEnv` the legacy pipeline reads, so both plug in the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, timedelta

import msgspec

from ._jsnum import is_nan, js_number, js_str
from ._moment import format_moment, humanize_seconds
from ._seedrandom import cyrb53, seeded_random
from .macros import DynamicMacro, MacroEnv, roll_formula, split_random_list

ELSE_MARKER = "\x00\x1fELSE\x1f\x00"
_IDENT = re.compile(r"[a-zA-Z][\w-]*", re.ASCII)
_VAR_IDENT = re.compile(r"[a-zA-Z](?:[\w-]*\w)?", re.ASCII)
_FLAGS = "!?~#/>"
_VAR_OPS = ("++", "--", "??=", "??", "||=", "||", "-=", "==", "!=", ">=", ">", "<=", "<", "+=", "=")
_FALSE_WORDS = ("off", "false", "0")


# -- tree ------------------------------------------------------------------------------------------


class Span(msgspec.Struct):
    """A raw argument (or variable value): ``text[start:end]`` of the parsed string."""

    start: int
    end: int


class MacroNode(msgspec.Struct):
    start: int  # offset of ``{{``
    end: int  # offset after ``}}`` (after the closing macro once a scope is paired)
    inner_end: int = 0  # offset of this macro's own ``}}``
    name: str = ""
    flags: str = ""
    args: list[Span] = msgspec.field(default_factory=list)
    var_scope: str = ""  # "." or "$" for a variable shorthand
    var_op: str = ""
    var_value: Span | None = None
    keep_raw: bool = False
    scoped: Span | None = None  # content up to the matching closing macro
    scope_end: int = 0  # offset after the closing macro

    @property
    def closing(self) -> bool:
        return "/" in self.flags


Node = str | MacroNode


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def parse_document(text: str) -> list[Node]:
    """Text → plain-text strings and macro nodes, in order.  Unparsable ``{{`` stays text."""
    out: list[Node] = []
    buf: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        j = text.find("{{", i)
        if j < 0:
            buf.append(text[i:])
            break
        buf.append(text[i:j])
        if text.startswith("{{{", j):  # "{" before a macro start is plain text
            buf.append("{")
            i = j + 1
            continue
        node = _parse_macro(text, j)
        if node is None:
            buf.append("{{")
            i = j + 2
            continue
        if buf:
            out.append("".join(buf))
            buf = []
        out.append(node)
        i = node.end
    if buf and "".join(buf):
        out.append("".join(buf))
    return out


def _parse_macro(text: str, start: int) -> MacroNode | None:
    i = start + 2
    node = MacroNode(start=start, end=start)
    while True:
        i = _skip_ws(text, i)
        if i >= len(text) or text.startswith("}}", i):
            return None
        if text.startswith("//", i):
            node.name = "//"
            return _parse_args(text, i + 2, node)
        ch = text[i]
        if ch in ".$":
            return _parse_variable(text, i, node)
        if ch in _FLAGS:
            node.flags += ch
            i += 1
            continue
        m = _IDENT.match(text, i)
        if m is None:
            return None
        node.name = m.group(0)
        i = m.end()
        if text.startswith("}}", i):
            node.inner_end = i
            node.end = i + 2
            return node
        if i < len(text) and (text[i].isspace() or text[i] in ":|}"):
            return _parse_args(text, i, node)
        return None


def _scan_value(text: str, i: int) -> tuple[list[tuple[int, int]], int] | None:
    """Non-space stretches up to the closing ``}}``, skipping over nested macros."""
    parts: list[tuple[int, int]] = []
    while i < len(text):
        if text.startswith("}}", i):
            return parts, i
        if text.startswith("::", i):
            parts.append((i, -2))  # separator marker
            i += 2
            continue
        if text.startswith("{{", i):
            nested = _parse_macro(text, i)
            if nested is None:
                return None
            parts.append((i, nested.end))
            i = nested.end
            continue
        if text[i].isspace():
            i += 1
            continue
        parts.append((i, i + 1))
        i += 1
    return None


def _trimmed(pieces: list[tuple[int, int]]) -> Span:
    if not pieces:
        return Span(0, 0)
    return Span(pieces[0][0], pieces[-1][1])


def _parse_args(text: str, i: int, node: MacroNode) -> MacroNode | None:
    scanned = _scan_value(text, i)
    if scanned is None:
        return None
    parts, end = scanned
    node.inner_end = end
    node.end = end + 2
    if not parts:
        return node
    if parts[0][1] == -2:  # "::a::b": separator-split, each argument may be empty
        current: list[tuple[int, int]] = []
        for piece in parts[1:]:
            if piece[1] == -2:
                node.args.append(_trimmed(current) if current else Span(piece[0], piece[0]))
                current = []
            else:
                current.append(piece)
        node.args.append(_trimmed(current) if current else Span(end, end))
        return node
    pieces = [(a, b if b != -2 else a + 2) for a, b in parts]
    if text[pieces[0][0]] == ":" and pieces[0][1] == pieces[0][0] + 1:  # legacy single colon
        pieces = pieces[1:]
        if not pieces:
            return None
    node.args.append(_trimmed(pieces))
    return node


def _parse_variable(text: str, i: int, node: MacroNode) -> MacroNode | None:
    node.var_scope = text[i]
    i = _skip_ws(text, i + 1)
    m = _VAR_IDENT.match(text, i)
    if m is None:
        return None
    node.name = m.group(0)
    i = _skip_ws(text, m.end())
    for op in _VAR_OPS:
        if text.startswith(op, i):
            node.var_op = op
            i += len(op)
            break
    if node.var_op in ("++", "--"):
        i = _skip_ws(text, i)
    elif node.var_op:
        scanned = _scan_value(text, i)
        if scanned is None:
            return None
        parts, end = scanned
        pieces = [(a, b if b != -2 else a + 2) for a, b in parts]
        node.var_value = _trimmed(pieces) if pieces else Span(end, end)
        i = end
    if not text.startswith("}}", i):
        return None
    node.inner_end = i
    node.end = i + 2
    return node


# -- registry --------------------------------------------------------------------------------------


class MacroCall(msgspec.Struct, frozen=True):
    name: str
    args: list[str]
    flags: str
    scoped: bool
    offset: int  # position in the evaluated document (seeds {{pick}})


Handler = Callable[["_Evaluator", MacroCall], str]


class MacroDef(msgspec.Struct, frozen=True):
    handler: Handler
    min_args: int = 0
    max_args: int = 0
    list_args: bool = False
    strict: bool = True
    delay_args: bool = False


REGISTRY: dict[str, MacroDef] = {}


def _register(names: str, handler: Handler, min_args: int = 0, max_args: int | None = None, **kw: bool) -> None:
    definition = MacroDef(handler, min_args, min_args if max_args is None else max_args, **kw)
    for name in names.split("|"):
        REGISTRY[name.lower()] = definition


def lookup(name: str) -> MacroDef | None:
    return REGISTRY.get(name.lower())


# -- evaluation ------------------------------------------------------------------------------------


class _Evaluator:
    def __init__(self, env: MacroEnv, original: str | None, content: str) -> None:
        self.env = env
        self.original = original
        self.original_used = False
        self.content = content
        self._content_hash: int | None = None

    @property
    def content_hash(self) -> int:
        """The hash of the whole input (seeds ``{{pick}}``); computed only when a pick needs it."""
        if self._content_hash is None:
            self._content_hash = cyrb53(self.content)
        return self._content_hash

    def document(self, text: str, offset: int = 0) -> str:
        nodes = parse_document(text)
        _pair_scopes(nodes)
        out: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif node.keep_raw:
                out.append(text[node.start : node.end])
            else:
                out.append(self.macro(node, text, offset))
        return "".join(out)

    def resolve(self, text: str, offset: int = 0) -> str:
        """A whole engine pass (pre- and post-processing included), as ``{{if}}`` uses it."""
        return _post(self.document(_pre(text), offset))

    def macro(self, node: MacroNode, text: str, offset: int) -> str:
        if node.var_scope:
            return self.variable(node, text, offset)
        caller = self._dynamic(node.name)
        if caller is not None:
            return self._call_dynamic(caller, node, text, offset)
        definition = lookup(node.name)
        dynamic = self.env.extra.get(node.name) if node.name not in ("//",) else None
        if dynamic is None:
            lowered = {k.lower(): v for k, v in self.env.extra.items()}
            dynamic = lowered.get(node.name.lower())
        delay = definition is not None and definition.delay_args and dynamic is None
        args: list[str] = []
        raw_inner: list[str] = []
        cursor = node.start + 2
        for span in node.args:
            raw = text[span.start : span.end]
            value = raw if delay else self.document(raw, offset + span.start)
            args.append(value)
            raw_inner.append(text[cursor : span.start])
            raw_inner.append(value)
            cursor = span.end
        if node.scoped is not None:
            raw = text[node.scoped.start : node.scoped.end]
            if delay:
                value = raw
            else:
                value = self.document(raw, offset + node.scoped.start)
                if "#" not in node.flags:
                    value = dedent_trim(value)
            args.append(value)
            # As in SillyTavern, the verbatim form of a scoped call runs on into its content:
            # an unknown ``{{x}}body{{/x}}`` comes back as ``{{x}}body}}``.
            raw_inner.append(text[cursor : node.scoped.start])
            raw_inner.append(value)
        else:
            raw_inner.append(text[cursor : node.inner_end] if node.inner_end >= cursor else "")
        raw_macro = "{{" + "".join(raw_inner) + "}}"
        if dynamic is not None:
            if args:
                return raw_macro
            return dynamic() if callable(dynamic) else str(dynamic)
        if definition is None:
            return raw_macro
        count = len(args)
        valid = count >= definition.min_args and (definition.list_args or count <= definition.max_args)
        if not valid and definition.strict:
            return raw_macro
        call = MacroCall(node.name, args, node.flags, node.scoped is not None, offset + node.start)
        try:
            return definition.handler(self, call)
        except _MacroError:
            return raw_macro

    def _dynamic(self, name: str) -> DynamicMacro | None:
        if not self.env.dynamic or name == "//":
            return None
        found = self.env.dynamic.get(name)
        if found is None:
            lowered = name.lower()
            found = next((m for k, m in self.env.dynamic.items() if k.lower() == lowered), None)
        return found

    def _call_dynamic(self, caller: DynamicMacro, node: MacroNode, text: str, offset: int) -> str:
        args = [self.document(text[s.start : s.end], offset + s.start) for s in node.args]
        if node.scoped is not None:
            args.append(self.document(text[node.scoped.start : node.scoped.end], offset + node.scoped.start))
        if len(args) < caller.min_args or (caller.max_args is not None and len(args) > caller.max_args):
            return text[node.start : node.end]
        return caller.handler(args)

    def variable(self, node: MacroNode, text: str, offset: int) -> str:
        scope = "local" if node.var_scope == "." else "global"
        v = self.env.variables
        name = node.name
        cache: list[str] = []

        def value() -> str:
            if not cache:
                span = node.var_value
                raw = text[span.start : span.end] if span else ""
                cache.append(self.document(raw, offset + (span.start if span else 0)).strip())
            return cache[0]

        def current() -> str:
            return v.shown(scope, name, objects_as_json=True)

        def falsy(x: str) -> bool:
            return not x or x.strip().lower() in _FALSE_WORDS

        exists = name in v._store(scope)
        op = node.var_op
        if not op:
            return current()
        if op in ("++", "--"):
            return js_str(v.add(scope, name, 1 if op == "++" else -1))
        if op == "=":
            v.set(scope, name, value())
            return ""
        if op == "+=":
            v.add(scope, name, value())
            return ""
        if op == "-=":
            number = js_number(value())
            if not is_nan(number):
                v.add(scope, name, -number)
            return ""
        if op == "||":
            return value() if falsy(current()) else current()
        if op == "??":
            return current() if exists else value()
        if op == "||=":
            if falsy(current()):
                v.set(scope, name, value())
                return value()
            return current()
        if op == "??=":
            if not exists:
                v.set(scope, name, value())
                return value()
            return current()
        if op in ("==", "!="):
            same = current() == value()
            return "true" if same == (op == "==") else "false"
        left, right = js_number(v.get(scope, name)), js_number(value())
        if is_nan(left) or is_nan(right):
            return "false"
        result = {">": left > right, ">=": left >= right, "<": left < right, "<=": left <= right}[op]
        return "true" if result else "false"


class _MacroError(Exception):
    """A macro refused its arguments: the call is kept verbatim."""


def _pair_scopes(nodes: list[Node]) -> None:
    """Pair ``{{name …}}`` with ``{{/name}}`` (outermost first); absorb what lies between."""
    macros = [(i, n) for i, n in enumerate(nodes) if isinstance(n, MacroNode) and n.name and not n.var_scope]
    inside: set[int] = set()
    matched: set[int] = set()
    remove: set[int] = set()
    for k, (index, opener) in enumerate(macros):
        if opener.closing or index in matched or index in inside:
            continue
        depth = 1
        closing_at = -1
        for index2, other in macros[k + 1 :]:
            if other.name.lower() != opener.name.lower() or index2 in matched:
                continue
            if other.closing:
                depth -= 1
                if depth == 0:
                    closing_at = index2
                    break
            elif _accepts_scope(other):
                depth += 1
        if closing_at < 0:
            continue
        closer = nodes[closing_at]
        assert isinstance(closer, MacroNode)
        matched.update((index, closing_at))
        if not _accepts_scope(opener):
            opener.keep_raw = closer.keep_raw = True
            continue
        opener.scoped = Span(opener.end, closer.start)
        opener.scope_end = closer.end
        for j in range(index + 1, closing_at + 1):
            inside.add(j)
            remove.add(j)
    for index, node in macros:
        if node.closing and index not in matched:
            node.keep_raw = True
    for j in sorted(remove, reverse=True):
        del nodes[j]
    # The opener now stands for everything up to the end of its closing macro.
    for item in nodes:
        if isinstance(item, MacroNode) and item.scoped is not None:
            item.end = item.scope_end


def _accepts_scope(node: MacroNode) -> bool:
    definition = lookup(node.name)
    if definition is None:
        return True
    if definition.list_args:
        return False
    wanted = len(node.args) + 1
    return definition.min_args <= wanted <= definition.max_args


def dedent_trim(content: str) -> str:
    """Scoped content: the first non-blank line's indentation removed from every line, then trimmed."""
    if not content:
        return ""
    lines = content.split("\n")
    base = 0
    for line in lines:
        if line.strip():
            base = len(line) - len(line.lstrip(" \t"))
            break
    if base == 0:
        return content.strip()
    out = []
    for line in lines:
        indent = len(line) - len(line.lstrip(" \t"))
        out.append(line[base:] if indent >= base else line.lstrip())
    return "\n".join(out).strip()


def _pre(text: str) -> str:
    text = re.sub(r"\{\{time_(UTC[+-]\d+)\}\}", r"{{time::\1}}", text, flags=re.IGNORECASE)
    for marker, macro in (
        ("<USER>", "{{user}}"),
        ("<BOT>", "{{char}}"),
        ("<CHAR>", "{{char}}"),
        ("<GROUP>", "{{group}}"),
        ("<CHARIFNOTGROUP>", "{{charIfNotGroup}}"),
    ):
        text = re.sub(re.escape(marker), lambda _m, m=macro: m, text, flags=re.IGNORECASE)  # type: ignore[misc]
    return text


def _post(text: str) -> str:
    text = re.sub(r"\\([{}])", r"\1", text)
    text = re.sub(r"(?:\r?\n)*\{\{trim\}\}(?:\r?\n)*", "", text, flags=re.IGNORECASE)
    return text.replace(ELSE_MARKER, "")


def evaluate(text: str, env: MacroEnv, *, original: str | None = None) -> str:
    """Run the new macro engine over ``text``.  ``original`` fills ``{{original}}`` once."""
    if not text:
        return ""
    if "{{" not in text and "<" not in text and "\\" not in text:
        return text  # nothing for the pre-processors, the parser or the post-processors
    evaluator = _Evaluator(env, original, text)
    return evaluator.resolve(text)


# -- the macros ------------------------------------------------------------------------------------


def _const(get: Callable[[MacroEnv], str]) -> Handler:
    return lambda ev, _call: get(ev.env)


def _count(value: str | None) -> int:
    text = (value if value is not None else "1").strip()
    if not re.fullmatch(r"-?\d+", text):
        raise _MacroError
    return max(0, int(text))


def _if(ev: _Evaluator, call: MacroCall) -> str:
    raw_condition = call.args[0]
    content = call.args[1]
    inverted = bool(re.match(r"^\s*!", raw_condition))
    condition = re.sub(r"^\s*!\s*", "", raw_condition) if inverted else raw_condition
    condition = ev.resolve(condition)
    var = re.fullmatch(r"([.$])(" + _VAR_IDENT.pattern + r")", condition)
    if var:
        condition = ev.resolve(("{{getvar::" if var.group(1) == "." else "{{getglobalvar::") + var.group(2) + "}}")
    else:
        definition = lookup(condition) if _IDENT.fullmatch(condition) else None
        if definition is not None and definition.min_args == 0:
            condition = ev.resolve("{{" + condition + "}}")
    falsy = condition == "" or condition.strip().lower() in _FALSE_WORDS
    if inverted:
        falsy = not falsy
    then_branch, else_branch = _split_else(content)
    chosen = else_branch if falsy else then_branch
    if chosen is None:
        return ""
    result = ev.resolve(chosen)
    return result if "#" in call.flags else dedent_trim(result)


def _split_else(content: str) -> tuple[str, str | None]:
    depth = 0
    for node in parse_document(content):
        if not isinstance(node, MacroNode) or node.var_scope:
            continue
        name = node.name.lower()
        if name == "if" and not node.closing and len(node.args) == 1:
            depth += 1
        elif name == "if" and node.closing:
            depth -= 1
        elif name == "else" and depth == 0:
            return content[: node.start], content[node.end :]
    return content, None


def _original(ev: _Evaluator, _call: MacroCall) -> str:
    if ev.original is None:  # no original in this call: ST's handler fails and the macro stays
        raise _MacroError
    if ev.original_used:
        return ""
    ev.original_used = True
    return ev.original


def _pick(ev: _Evaluator, call: MacroCall) -> str:
    items = split_random_list(call.args[0], trim_colon_items=True) if len(call.args) == 1 else call.args
    if not items:
        return ""
    seed = cyrb53(f"{ev.env.chat_id_hash}-{ev.content_hash}-{call.offset}")
    return items[int(seeded_random(str(seed))() * len(items))]


def _random(ev: _Evaluator, call: MacroCall) -> str:
    items = split_random_list(call.args[0], trim_colon_items=True) if len(call.args) == 1 else call.args
    return items[int(ev.env.random() * len(items))] if items else ""


def _time(ev: _Evaluator, call: MacroCall) -> str:
    now = ev.env.clock()
    if call.args and call.args[0]:
        m = re.fullmatch(r"UTC([+-]\d+)", call.args[0].strip(), flags=re.IGNORECASE)
        if not m:
            raise _MacroError
        now = now.astimezone(UTC) + timedelta(hours=int(m.group(1)))
    return format_moment(now, "LT")


def _idle(ev: _Evaluator, _call: MacroCall) -> str:
    last = ev.env.chat.last_message_time
    if last is None:
        return "just now"
    return humanize_seconds((ev.env.clock() - last).total_seconds())


def _var(scope: str, action: str) -> Handler:
    def run(ev: _Evaluator, call: MacroCall) -> str:
        v = ev.env.variables
        name = call.args[0]
        if action == "get":
            return v.shown(scope, name, objects_as_json=True)
        if action == "set":
            v.set(scope, name, call.args[1])
            return ""
        if action == "add":
            v.add(scope, name, call.args[1])
            return ""
        if action in ("inc", "dec"):
            return js_str(v.add(scope, name, 1 if action == "inc" else -1))
        if action == "has":
            return "true" if name in v._store(scope) else "false"
        v._store(scope).pop(name, None)
        return ""

    return run


def _greeting(ev: _Evaluator, call: MacroCall) -> str:
    greetings = ev.env.greetings
    if not call.args or not call.args[0].strip():
        return greetings[0] if greetings else ""
    index = _count(call.args[0])
    return greetings[index] if index < len(greetings) else ""


def _card(get: Callable[[MacroEnv], str]) -> Handler:
    return lambda ev, _call: get(ev.env) if ev.env.card is not None else ""


_register("space", lambda ev, c: " " * _count(c.args[0] if c.args else None), 0, 1)
_register("newline", lambda ev, c: "\n" * _count(c.args[0] if c.args else None), 0, 1)
_register("noop", lambda ev, c: "")
_register("trim", lambda ev, c: (c.args[0] if c.args else "") if c.scoped else "{{trim}}", 0, 1)
_register("if", _if, 2, delay_args=True)
_register("else", lambda ev, c: ELSE_MARKER)
_register("input", _const(lambda e: e.input_text))
_register("maxPrompt|maxPromptTokens", _const(lambda e: str(e.max_prompt)))
_register("maxContext|maxContextTokens", _const(lambda e: str(e.max_context)))
_register("maxResponse|maxResponseTokens", _const(lambda e: str(e.max_response)))
_register("reverse", lambda ev, c: c.args[0][::-1], 1)
_register("//|comment", lambda ev, c: "", 1, list_args=True, strict=False)
_register("roll", lambda ev, c: roll_formula(c.args[0], ev.env), 1)
_register("random", _random, 0, list_args=True)
_register("pick", _pick, 0, list_args=True)


def _banned(ev: _Evaluator, call: MacroCall) -> str:
    ev.env.banned_words.append(call.args[0].strip('"'))
    return ""


_register("banned", _banned, 1)
_register("outlet", lambda ev, c: ev.env.outlet(c.args[0]) if ev.env.outlet and c.args[0] else "", 1)
_register("user", _const(lambda e: e.user))
_register("char", _const(lambda e: e.char))
_register("group|charIfNotGroup", _const(lambda e: e.group if e.group is not None else e.char))


def _group_not_muted(env: MacroEnv) -> str:
    if env.group_not_muted is not None:
        return env.group_not_muted
    return env.group if env.group is not None else env.char


_register("groupNotMuted", _const(_group_not_muted))
_register("notChar", _const(lambda e: e.not_char if e.not_char is not None else e.user))
_register("charPrompt", _card(lambda e: e.card.char_prompt if e.card else ""))
_register("charInstruction", _card(lambda e: e.card.char_jailbreak if e.card else ""))
_register("charDescription|description", _card(lambda e: e.card.description if e.card else ""))
_register("charPersonality|personality", _card(lambda e: e.card.personality if e.card else ""))
_register("charScenario|scenario", _card(lambda e: e.card.scenario if e.card else ""))
_register("persona", _card(lambda e: e.card.persona if e.card else ""))
_register("mesExamplesRaw|mesExamples", _card(lambda e: e.card.mes_examples if e.card else ""))
_register("charDepthPrompt", _card(lambda e: e.depth_prompt))
_register("charCreatorNotes|creatorNotes", _card(lambda e: e.creator_notes))
_register("charFirstMessage|greeting", _greeting, 0, 1)
_register("charVersion|version|char_version", _card(lambda e: e.card.char_version if e.card else ""))
_register("model", _const(lambda e: e.model))
_register("original", _original)
_register("isMobile", _const(lambda e: "false"))
_register("lastMessage", _const(lambda e: e.chat.last_message))
_register("lastMessageId", _const(lambda e: e.chat.last_message_id))
_register("lastUserMessage", _const(lambda e: e.chat.last_user_message))
_register("lastCharMessage", _const(lambda e: e.chat.last_char_message))
_register("firstIncludedMessageId", _const(lambda e: e.chat.first_included_message_id))
_register("firstDisplayedMessageId", _const(lambda e: "0"))
_register("lastSwipeId", _const(lambda e: e.chat.last_swipe_id))
_register("currentSwipeId", _const(lambda e: e.chat.current_swipe_id))
_register("lastGenerationType", _const(lambda e: e.generation_type))
_register("time", _time, 0, 1)
_register("date", _const(lambda e: format_moment(e.clock(), "LL")))
_register("weekday", _const(lambda e: format_moment(e.clock(), "dddd")))
_register("isotime", _const(lambda e: format_moment(e.clock(), "HH:mm")))
_register("isodate", _const(lambda e: format_moment(e.clock(), "YYYY-MM-DD")))
_register("datetimeformat", lambda ev, c: format_moment(ev.env.clock(), c.args[0]), 1)
_register("idleDuration|idle_duration", _idle)
for _scope, _suffix in (("local", "var"), ("global", "globalvar")):
    _register("set" + _suffix, _var(_scope, "set"), 2)
    _register("add" + _suffix, _var(_scope, "add"), 2)
    _register("inc" + _suffix, _var(_scope, "inc"), 1)
    _register("dec" + _suffix, _var(_scope, "dec"), 1)
    _register("get" + _suffix, _var(_scope, "get"), 1)
_register("hasvar|varexists", _var("local", "has"), 1)
_register("hasglobalvar|globalvarexists", _var("global", "has"), 1)
_register("deletevar|flushvar", _var("local", "delete"), 1)
_register("deleteglobalvar|flushglobalvar", _var("global", "delete"), 1)
# Instruct mode is a Text Completion feature: its macros are empty on this path.
_register(
    "instructStoryStringPrefix|instructStoryStringSuffix|instructUserPrefix|instructInput|instructUserSuffix|"
    "instructAssistantPrefix|instructOutput|instructAssistantSuffix|instructSeparator|instructSystemPrefix|"
    "instructSystemSuffix|instructFirstAssistantPrefix|instructFirstOutputPrefix|instructLastAssistantPrefix|"
    "instructLastOutputPrefix|instructStop|instructUserFiller|instructSystemInstructionPrefix|"
    "instructFirstUserPrefix|instructFirstInput|instructLastUserPrefix|instructLastInput",
    _const(lambda e: ""),
)
_register(
    "defaultSystemPrompt|instructSystem|instructSystemPrompt",
    _const(lambda e: e.sysprompt if e.sysprompt_enabled else ""),
)
_register(
    "systemPrompt",
    _const(
        lambda e: (
            (e.card.char_prompt if e.card and e.prefer_character_prompt and e.card.char_prompt else e.sysprompt)
            if e.sysprompt_enabled
            else ""
        )
    ),
)
_register("exampleSeparator|chatSeparator", _const(lambda e: e.example_separator))
_register("chatStart", _const(lambda e: e.chat_start))
_register("hasExtension", lambda ev, c: "false", 1)
