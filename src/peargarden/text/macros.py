"""SillyTavern 1.12.6 macro substitution (the legacy engine), as a pure function.

The pipeline is a fixed sequence of case-insensitive replacements; the order matters and is kept
exactly: legacy ``<USER>`` markers, dice, instruct/system-prompt macros, chat variables (line by
line: on one line ``getvar`` runs before ``setvar``), ``{{newline}}``/``{{trim}}``/``{{noop}}``,
environment values (``{{original}}`` once, card fields, ``{{user}}``, ``{{char}}``…), chat facts,
``{{reverse:}}``, comments (after everything above, so macros inside comments still run), time
and date from an injected clock, ``{{random}}``/``{{pick}}`` from an injected random source.

Variables are mutated in place in :class:`Variables` (ST keeps them in ``chat_metadata``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta

import msgspec

from ._jsnum import is_nan, js_number, js_str
from ._moment import format_moment, humanize_seconds
from ._seedrandom import cyrb53, seeded_random
from .jsvalue import json_stringify, to_string

VarValue = str | int | float


class Variables(msgspec.Struct):
    """Chat-local (``chat_metadata.variables``) and global (``extension_settings.variables.global``)."""

    local: dict[str, object] = msgspec.field(default_factory=dict)
    global_: dict[str, object] = msgspec.field(default_factory=dict)

    def _store(self, scope: str) -> dict[str, object]:
        return self.local if scope == "local" else self.global_

    def get(self, scope: str, name: str) -> VarValue:
        value = self._store(scope).get(name)
        # ST returns numeric-looking values as numbers ("007" reads back as 7).
        if isinstance(value, str) and value.strip() == "":
            return value
        number = js_number(value) if value is not None else float("nan")
        if value is None or is_nan(number):
            return js_str(value) if value else ""
        return number

    def shown(self, scope: str, name: str, *, objects_as_json: bool) -> str:
        """What ``{{getvar::name}}`` prints.  A stored object or array (TavernHelper's
        ``replaceVariables`` stores them) is ``String(value)`` in the legacy engine ("[object Object]")
        and compact JSON in 1.18's engine, as recorded (``../shared/tavernhelper`` case 14)."""
        raw = self._store(scope).get(name)
        if isinstance(raw, dict | list):
            return (json_stringify(raw) or "") if objects_as_json else to_string(raw)
        return js_str(self.get(scope, name))

    def set(self, scope: str, name: str, value: object) -> None:
        self._store(scope)[name] = value

    def add(self, scope: str, name: str, value: object) -> object:
        current: object = self.get(scope, name) or 0
        if isinstance(current, str):
            try:
                parsed = json.loads(current)
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                parsed.append(value)
                self.set(scope, name, json.dumps(parsed, ensure_ascii=False, separators=(",", ":")))
                return ",".join(js_str(v) for v in parsed)
        increment = js_number(value)
        if is_nan(increment) or is_nan(js_number(current)):
            text = js_str(current or "") + js_str(value)
            self.set(scope, name, text)
            return text
        total = js_number(current) + increment
        result: float | int = int(total) if total.is_integer() else total
        self.set(scope, name, result)
        return result


class CardMacroFields(msgspec.Struct, frozen=True):
    """Values of the card-field macros (``{{description}}`` …), already substituted once."""

    char_prompt: str = ""
    char_jailbreak: str = ""
    description: str = ""
    personality: str = ""
    scenario: str = ""
    persona: str = ""
    mes_examples: str = ""
    char_version: str = ""


class ChatFacts(msgspec.Struct, frozen=True):
    """Values read from the current chat by ``{{lastMessage}}`` and friends."""

    last_message: str = ""
    last_message_id: str = ""
    last_user_message: str = ""
    last_char_message: str = ""
    first_included_message_id: str = ""
    last_swipe_id: str = ""
    current_swipe_id: str = ""
    last_message_time: datetime | None = None


def string_hash(text: str) -> int:
    """SillyTavern's ``getStringHash`` (cyrb53, seed 0)."""
    return cyrb53(text)


def chat_id_hash(chat_id: object) -> int:
    """``getChatIdHash`` for a chat without a stored ``chat_id_hash``: the string hash of its id
    (``main_chat`` for a branch, else the chat file's name); 0 when there is no such string."""
    return string_hash(chat_id) if isinstance(chat_id, str) else 0


def _default_clock() -> datetime:
    # Fixed instant: the core never reads the real clock; callers inject one.
    return datetime(2024, 1, 1, tzinfo=UTC)


def _default_random() -> float:
    return 0.0


class DynamicMacro(msgspec.Struct, frozen=True):
    """A macro a caller adds for one expansion (STscript's ``{{pipe}}``, ``{{var::x}}``, a scope's
    ``{{timesIndex}}``): its handler gets the evaluated arguments; ``max_args`` None is unbounded.
    Read by the new engine."""

    handler: Callable[[list[str]], str]
    min_args: int = 0
    max_args: int | None = 0


class MacroEnv(msgspec.Struct):
    """Everything macro substitution may read.  ``clock`` and ``random`` are injected."""

    user: str = "User"
    char: str = ""
    # Group chats: ``{{group}}`` / ``{{charIfNotGroup}}``, ``{{groupNotMuted}}``, ``{{notChar}}``.
    # None outside a group: the first two are ``{{char}}``, ``{{notChar}}`` is the user.
    group: str | None = None
    group_not_muted: str | None = None
    not_char: str | None = None
    card: CardMacroFields | None = msgspec.field(default_factory=CardMacroFields)
    model: str = ""
    extra: Mapping[str, str | Callable[[], str]] = msgspec.field(default_factory=dict)
    dynamic: Mapping[str, DynamicMacro] = msgspec.field(default_factory=dict)
    variables: Variables = msgspec.field(default_factory=Variables)
    chat: ChatFacts = msgspec.field(default_factory=ChatFacts)
    max_prompt: int = 0
    input_text: str = ""
    sysprompt: str = "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}."
    sysprompt_enabled: bool = True
    prefer_character_prompt: bool = True
    example_separator: str = "***"
    chat_start: str = "***"
    chat_id_hash: int = 0
    clock: Callable[[], datetime] = _default_clock
    random: Callable[[], float] = _default_random
    banned_words: list[str] = msgspec.field(default_factory=list)
    # Read by the new engine's macros only (1.17+).
    max_context: int = 0
    max_response: int = 0
    greetings: tuple[str, ...] = ()
    depth_prompt: str = ""
    creator_notes: str = ""
    generation_type: str = "normal"
    outlet: Callable[[str], str] | None = None
    # 1.18's legacy pipeline (``experimental_macro_engine`` off): variables over the whole text,
    # set before get, and a few more names (``{{charInstruction}}``, ``{{maxContext}}`` …).
    legacy_118: bool = False


_I = re.IGNORECASE


def _sub(pattern: str, repl: str | Callable[[re.Match[str]], str], text: str, flags: int = _I) -> str:
    if isinstance(repl, str):
        fixed = repl
        return re.sub(pattern, lambda _m: fixed, text, flags=flags)
    return re.sub(pattern, repl, text, flags=flags)


_INSTRUCT_NAMES = [
    "instructSystemPromptPrefix",
    "instructSystemPromptSuffix",
    "instructInput|instructUserPrefix",
    "instructUserSuffix",
    "instructOutput|instructAssistantPrefix",
    "instructSeparator|instructAssistantSuffix",
    "instructSystemPrefix",
    "instructSystemSuffix",
    "instructFirstOutput|instructFirstAssistantPrefix",
    "instructLastOutput|instructLastAssistantPrefix",
    "instructStop",
    "instructUserFiller",
    "instructSystemInstructionPrefix",
    "instructFirstInput|instructFirstUserPrefix",
    "instructLastInput|instructLastUserPrefix",
]


def _instruct(text: str, env: MacroEnv) -> str:
    # Instruct mode is a Text Completion feature: off here, so its macros become empty.
    for names in _INSTRUCT_NAMES:
        text = _sub(r"\{\{(" + names + r")\}\}", "", text)
    char_prompt = env.card.char_prompt if env.card else ""
    system = char_prompt if env.prefer_character_prompt and char_prompt else env.sysprompt
    text = _sub(r"\{\{(systemPrompt)\}\}", system if env.sysprompt_enabled else "", text)
    text = _sub(
        r"\{\{(defaultSystemPrompt|instructSystem|instructSystemPrompt)\}\}",
        env.sysprompt if env.sysprompt_enabled else "",
        text,
    )
    text = _sub(r"\{\{exampleSeparator\}\}", env.example_separator, text)
    return _sub(r"\{\{chatStart\}\}", env.chat_start, text)


def _variables_line(line: str, v: Variables) -> str:
    def get(scope: str) -> Callable[[re.Match[str]], str]:
        return lambda m: v.shown(scope, m.group(1).strip(), objects_as_json=False)

    def setter(scope: str) -> Callable[[re.Match[str]], str]:
        def run(m: re.Match[str]) -> str:
            v.set(scope, m.group(1).strip(), m.group(2))
            return ""

        return run

    def adder(scope: str) -> Callable[[re.Match[str]], str]:
        def run(m: re.Match[str]) -> str:
            v.add(scope, m.group(1).strip(), m.group(2))
            return ""

        return run

    def stepper(scope: str, step: int) -> Callable[[re.Match[str]], str]:
        return lambda m: js_str(v.add(scope, m.group(1).strip(), step))

    for scope, suffix in (("local", "var"), ("global", "globalvar")):
        line = _sub(r"\{\{get" + suffix + r"::([^}]+)\}\}", get(scope), line)
        line = _sub(r"\{\{set" + suffix + r"::([^:]+)::([^}]+)\}\}", setter(scope), line)
        line = _sub(r"\{\{add" + suffix + r"::([^:]+)::([^}]+)\}\}", adder(scope), line)
        line = _sub(r"\{\{inc" + suffix + r"::([^}]+)\}\}", stepper(scope, 1), line)
        line = _sub(r"\{\{dec" + suffix + r"::([^}]+)\}\}", stepper(scope, -1), line)
    return line


def _variables_118(text: str, v: Variables) -> str:
    """1.18's legacy order: each macro over the whole text; set/add/inc/dec before get."""

    def setter(scope: str, adding: bool) -> Callable[[re.Match[str]], str]:
        def run(m: re.Match[str]) -> str:
            if adding:
                v.add(scope, m.group(1).strip(), m.group(2))
            else:
                v.set(scope, m.group(1).strip(), m.group(2))
            return ""

        return run

    def stepper(scope: str, step: int) -> Callable[[re.Match[str]], str]:
        return lambda m: js_str(v.add(scope, m.group(1).strip(), step))

    def getter(scope: str) -> Callable[[re.Match[str]], str]:
        return lambda m: v.shown(scope, m.group(1).strip(), objects_as_json=False)

    for scope, suffix in (("local", "var"), ("global", "globalvar")):
        text = _sub(r"\{\{set" + suffix + r"::([^:]+)::([^}]*)\}\}", setter(scope, False), text)
        text = _sub(r"\{\{add" + suffix + r"::([^:]+)::([^}]+)\}\}", setter(scope, True), text)
        text = _sub(r"\{\{inc" + suffix + r"::([^}]+)\}\}", stepper(scope, 1), text)
        text = _sub(r"\{\{dec" + suffix + r"::([^}]+)\}\}", stepper(scope, -1), text)
        text = _sub(r"\{\{get" + suffix + r"::([^}]+)\}\}", getter(scope), text)
    return text


def _variables(text: str, v: Variables) -> str:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line and "{{" in line:
            lines[i] = _variables_line(line, v)
    return "\n".join(lines)


_DICE = re.compile(r"^(\d*)d(\d+)([+-]\d+)?$", re.IGNORECASE)


def roll_formula(formula: str, env: MacroEnv) -> str:
    """A dice formula (``2d6+1``; digits only mean ``1dN``) rolled with the injected random; '' if invalid."""
    formula = formula.strip()
    if formula.isdigit():
        formula = f"1d{formula}"
    d = _DICE.match(formula)
    if not d or int(d.group(2)) == 0:
        return ""
    count = int(d.group(1) or "1")
    sides = int(d.group(2))
    total = sum(int(env.random() * sides) + 1 for _ in range(count))
    return str(total + int(d.group(3) or "0"))


def _roll(text: str, env: MacroEnv) -> str:
    return _sub(r"\{\{roll[ :]([^}]+)\}\}", lambda m: roll_formula(m.group(1), env), text)


def split_random_list(body: str, *, trim_colon_items: bool = False) -> list[str]:
    """``{{random}}`` / ``{{pick}}`` items: split on ``::`` if present, else on unescaped commas.

    The legacy pipeline keeps spaces around ``::`` items; the new engine trims them.
    """
    if "::" in body:
        return [item.strip() for item in body.split("::")] if trim_colon_items else body.split("::")
    marker = "##\ufffdCOMMA\ufffd##"
    return [item.strip().replace(marker, ",") for item in body.replace("\\,", marker).split(",")]


def _env_values(env: MacroEnv, original: str | None) -> list[tuple[str, str | Callable[[], str]]]:
    values: list[tuple[str, str | Callable[[], str]]] = []
    if original is not None:
        used = [False]

        def once() -> str:
            if used[0]:
                return ""
            used[0] = True
            return original

        values.append(("original", once))
    if env.card is not None:
        c = env.card
        values += [
            ("charPrompt", c.char_prompt),
            ("charJailbreak", c.char_jailbreak),
            ("description", c.description),
            ("personality", c.personality),
            ("scenario", c.scenario),
            ("persona", c.persona),
            ("mesExamples", c.mes_examples),
            ("charVersion", c.char_version),
            ("char_version", c.char_version),
        ]
    if env.legacy_118 and env.card is not None:
        values += [
            ("charInstruction", env.card.char_jailbreak),
            ("mesExamplesRaw", env.card.mes_examples),
            ("charDepthPrompt", env.depth_prompt),
            ("creatorNotes", env.creator_notes),
        ]
    group = env.group if env.group is not None else env.char
    values += [
        ("user", env.user),
        ("char", env.char),
        ("group", group),
        ("charIfNotGroup", group),
        ("model", env.model),
    ]
    if env.legacy_118:
        not_muted = env.group_not_muted if env.group_not_muted is not None else group
        values += [("groupNotMuted", not_muted), ("notChar", env.not_char if env.not_char is not None else env.user)]
    values += list(env.extra.items())
    return values


def substitute(text: str, env: MacroEnv, *, original: str | None = None) -> str:
    """Run the 1.12.6 macro pipeline over ``text``.  ``original`` fills ``{{original}}`` once."""
    if not text:
        return ""
    raw = text
    group = env.group if env.group is not None else env.char
    if "<" in text:
        text = _sub(r"<USER>", env.user, text)
        text = _sub(r"<BOT>", env.char, text)
        text = _sub(r"<CHAR>", env.char, text)
        text = _sub(r"<CHARIFNOTGROUP>", group, text)
        text = _sub(r"<GROUP>", group, text)
    if "{{" not in text:
        return text

    text = _roll(text, env)
    text = _instruct(text, env)
    text = _variables_118(text, env.variables) if env.legacy_118 else _variables(text, env.variables)
    text = _sub(r"\{\{newline\}\}", "\n", text)
    text = _sub(r"(?:\r?\n)*\{\{trim\}\}(?:\r?\n)*", "", text)
    text = _sub(r"\{\{noop\}\}", "", text)
    text = _sub(r"\{\{input\}\}", env.input_text, text)

    for name, value in _env_values(env, original):
        if callable(value):
            fn = value
            text = _sub(r"\{\{" + re.escape(name) + r"\}\}", lambda _m, fn=fn: fn(), text)  # type: ignore[misc]
        else:
            text = _sub(r"\{\{" + re.escape(name) + r"\}\}", value, text)

    facts = env.chat
    text = _sub(r"\{\{maxPrompt\}\}", str(env.max_prompt), text)
    if env.legacy_118:
        text = _sub(r"\{\{maxPromptTokens\}\}", str(env.max_prompt), text)
        text = _sub(r"\{\{maxContext(?:Tokens)?\}\}", str(env.max_context), text)
        text = _sub(r"\{\{maxResponse(?:Tokens)?\}\}", str(env.max_response), text)
    text = _sub(r"\{\{lastMessage\}\}", facts.last_message, text)
    text = _sub(r"\{\{lastMessageId\}\}", facts.last_message_id, text)
    text = _sub(r"\{\{lastUserMessage\}\}", facts.last_user_message, text)
    text = _sub(r"\{\{lastCharMessage\}\}", facts.last_char_message, text)
    text = _sub(r"\{\{firstIncludedMessageId\}\}", facts.first_included_message_id, text)
    text = _sub(r"\{\{lastSwipeId\}\}", facts.last_swipe_id, text)
    text = _sub(r"\{\{currentSwipeId\}\}", facts.current_swipe_id, text)
    text = _sub(r"\{\{reverse:(.+?)\}\}", lambda m: m.group(1)[::-1], text)

    # Comments go after everything above (macros inside a comment have already run).
    text = _sub(r"\{\{//([\s\S]*?)\}\}", "", text, flags=re.MULTILINE)

    now = env.clock()
    text = _sub(r"\{\{time\}\}", lambda _m: format_moment(now, "LT"), text)
    text = _sub(r"\{\{date\}\}", lambda _m: format_moment(now, "LL"), text)
    text = _sub(r"\{\{weekday\}\}", lambda _m: format_moment(now, "dddd"), text)
    text = _sub(r"\{\{isotime\}\}", lambda _m: format_moment(now, "HH:mm"), text)
    text = _sub(r"\{\{isodate\}\}", lambda _m: format_moment(now, "YYYY-MM-DD"), text)
    text = _sub(r"\{\{datetimeformat +([^}]*)\}\}", lambda m: format_moment(now, m.group(1)), text)

    def idle(_m: re.Match[str]) -> str:
        last = facts.last_message_time
        if last is None:
            return "just now"
        return humanize_seconds((now - last).total_seconds())

    text = _sub(r"\{\{idle_duration\}\}", idle, text)

    def utc_offset(m: re.Match[str]) -> str:
        shifted = now.astimezone(UTC) + timedelta(hours=int(m.group(1)))
        return format_moment(shifted, "LT")

    text = _sub(r"\{\{time_UTC([-+]\d+)\}\}", utc_offset, text)
    if env.outlet is not None:  # 1.18 world-info outlets (the macro does not exist in 1.12)
        outlet = env.outlet
        text = _sub(r"\{\{outlet::(.+?)\}\}", lambda m: outlet(m.group(1).strip()), text)

    def banned(m: re.Match[str]) -> str:
        env.banned_words.append(m.group(1))
        return ""

    text = _sub(r'\{\{banned "(.*)"\}\}', banned, text)

    def random_pick(m: re.Match[str]) -> str:
        items = split_random_list(m.group(1))
        return items[int(env.random() * len(items))] if items else ""

    text = _sub(r"\{\{random\s?::?([^}]+)\}\}", random_pick, text)

    if "{{pick" not in text.lower():
        return text
    raw_hash = cyrb53(raw)

    def pick(m: re.Match[str]) -> str:
        items = split_random_list(m.group(1))
        if not items:
            return ""
        seed = cyrb53(f"{env.chat_id_hash}-{raw_hash}-{m.start()}")
        rng = seeded_random(str(seed))
        return items[int(rng() * len(items))]

    return _sub(r"\{\{pick\s?::?([^}]+)\}\}", pick, text)


def substitute_simple(text: str, user: str, char: str) -> str:
    """Substitution with only names known (card fields disabled), e.g. for greetings in tests."""
    return substitute(text, MacroEnv(user=user, char=char, card=None))
