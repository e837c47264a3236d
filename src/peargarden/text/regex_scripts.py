"""SillyTavern regex scripts (the "Regex" extension, 1.12.6 engine).

A script rewrites text at a *placement* (user input, AI output, slash command, world info).
``promptOnly`` scripts run only on the outgoing prompt, ``markdownOnly`` only on display; "plain"
scripts run when text is stored and — in 1.12.6 — **again at prompt time** (the prompt-time pass
calls the engine with ``is_prompt`` but plain scripts are not excluded by it).  Depth limits count
from the end of the chat (0 = newest).  Global scripts run first, then (1.18) the selected preset's
scripts if that preset is allowed, then the card's own scripts if the card is on the allow-list.

SillyTavern 1.18 differs in two switches of :class:`RegexSet`: plain scripts no longer run at
prompt time (``plain_at_prompt``), and ``minDepth`` may be −1 (the message being continued).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

import msgspec

from ._jsnum import js_number
from .jsregex import regex_from_string


class Placement(IntEnum):
    MD_DISPLAY = 0
    USER_INPUT = 1
    AI_OUTPUT = 2
    SLASH_COMMAND = 3
    WORLD_INFO = 5
    REASONING = 6


Substitute = Callable[[str], str]


def _identity(text: str) -> str:
    return text


def _optional_int(value: object) -> int | None:
    # getRegexedString tests ``!isNaN(x) && x !== null && x >= 0``: JS coerces, so an empty
    # string is depth 0, not "no limit" (only null/undefined or a non-number text are).
    if value is None:
        return None
    number = js_number(value)
    if number != number:  # NaN
        return None
    return int(number)


class RegexScript(msgspec.Struct, frozen=True):
    script_name: str = ""
    find_regex: str = ""
    replace_string: str = ""
    trim_strings: tuple[str, ...] = ()
    placement: tuple[int, ...] = ()
    disabled: bool = False
    markdown_only: bool = False
    prompt_only: bool = False
    run_on_edit: bool = False
    substitute_regex: bool = False
    min_depth: int | None = None
    max_depth: int | None = None
    id: str = ""

    @classmethod
    def from_json(cls, raw: Mapping[str, object]) -> RegexScript:
        """Read ST's script object; missing or mistyped fields fall back to harmless defaults."""
        placement = raw.get("placement")
        trims = raw.get("trimStrings")
        return cls(
            script_name=str(raw.get("scriptName") or ""),
            find_regex=str(raw.get("findRegex") or ""),
            replace_string=str(raw.get("replaceString") or ""),
            trim_strings=tuple(str(t) for t in trims) if isinstance(trims, list) else (),
            placement=tuple(int(p) for p in placement if isinstance(p, int)) if isinstance(placement, list) else (),
            disabled=bool(raw.get("disabled")),
            markdown_only=bool(raw.get("markdownOnly")),
            prompt_only=bool(raw.get("promptOnly")),
            run_on_edit=bool(raw.get("runOnEdit")),
            substitute_regex=bool(raw.get("substituteRegex")),
            min_depth=_optional_int(raw.get("minDepth")),
            max_depth=_optional_int(raw.get("maxDepth")),
            id=str(raw.get("id") or ""),
        )


def load_scripts(raw: object) -> list[RegexScript]:
    """A list of script objects (non-objects are skipped)."""
    if not isinstance(raw, list):
        return []
    return [RegexScript.from_json(item) for item in raw if isinstance(item, Mapping)]


@dataclass(frozen=True)
class RegexSet:
    """The scripts in the order ST runs them: global, preset (if allowed), the card's (if allowed)."""

    global_scripts: Sequence[RegexScript] = ()
    scoped_scripts: Sequence[RegexScript] = ()
    scoped_allowed: bool = False
    enabled: bool = True
    preset_scripts: Sequence[RegexScript] = ()
    preset_allowed: bool = False
    plain_at_prompt: bool = True  # 1.12: plain scripts also run on the outgoing prompt
    min_depth_floor: int = 0  # 1.18: -1
    _all: tuple[RegexScript, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        scoped = tuple(self.scoped_scripts) if self.scoped_allowed else ()
        preset = tuple(self.preset_scripts) if self.preset_allowed else ()
        object.__setattr__(self, "_all", tuple(self.global_scripts) + preset + scoped)

    def scripts(self) -> Iterable[RegexScript]:
        return self._all if self.enabled else ()

    def apply(
        self,
        text: str,
        placement: int,
        *,
        is_markdown: bool = False,
        is_prompt: bool = False,
        depth: int | None = None,
        substitute: Substitute = _identity,
    ) -> str:
        return apply_scripts(
            self.scripts(),
            text,
            placement,
            is_markdown=is_markdown,
            is_prompt=is_prompt,
            depth=depth,
            substitute=substitute,
            plain_at_prompt=self.plain_at_prompt,
            min_depth_floor=self.min_depth_floor,
        )


def _applies(script: RegexScript, is_markdown: bool, is_prompt: bool, plain_at_prompt: bool = True) -> bool:
    plain = not script.markdown_only and not script.prompt_only and not is_markdown
    return (
        (script.markdown_only and is_markdown)
        or (script.prompt_only and is_prompt)
        or (plain and (plain_at_prompt or not is_prompt))
    )


_NAME_MACROS = re.compile(r"\{\{(?:match|user|char)\}\}", re.IGNORECASE)


@functools.cache
def is_static(script: RegexScript) -> bool:
    """True when the script's output depends only on the text and the user/char names.

    Such results can be cached per text; scripts whose replacement or trim strings use other
    macros (variables, time, random…) must run every time.
    """
    parts = [script.replace_string, *script.trim_strings]
    return not script.substitute_regex and all("{{" not in _NAME_MACROS.sub("", p) for p in parts)


def applicable(
    scripts: Iterable[RegexScript],
    placement: int,
    *,
    is_markdown: bool = False,
    is_prompt: bool = False,
    depth: int | None = None,
    plain_at_prompt: bool = True,
    min_depth_floor: int = 0,
) -> tuple[RegexScript, ...]:
    """The scripts that would run for this placement / mode / depth, in order.

    ``min_depth_floor`` is the smallest ``minDepth`` that counts (0 in 1.12, −1 in 1.18, where a
    negative depth is also checked).
    """
    out = []
    for script in scripts:
        if not _applies(script, is_markdown, is_prompt, plain_at_prompt):
            continue
        if depth is not None and (depth >= 0 or min_depth_floor < 0):
            if script.min_depth is not None and script.min_depth >= min_depth_floor and depth < script.min_depth:
                continue
            if script.max_depth is not None and script.max_depth >= 0 and depth > script.max_depth:
                continue
        if placement in script.placement:
            out.append(script)
    return tuple(out)


def apply_scripts(
    scripts: Iterable[RegexScript],
    text: str,
    placement: int,
    *,
    is_markdown: bool = False,
    is_prompt: bool = False,
    depth: int | None = None,
    substitute: Substitute = _identity,
    plain_at_prompt: bool = True,
    min_depth_floor: int = 0,
) -> str:
    """ST's ``getRegexedString``: run every applicable script over ``text`` in order."""
    if not text:
        return text
    for script in applicable(
        scripts,
        placement,
        is_markdown=is_markdown,
        is_prompt=is_prompt,
        depth=depth,
        plain_at_prompt=plain_at_prompt,
        min_depth_floor=min_depth_floor,
    ):
        text = run_script(script, text, substitute=substitute)
    return text


_GROUP_REF = re.compile(r"\$(\d+)")


def run_script(script: RegexScript, text: str, *, substitute: Substitute = _identity) -> str:
    """One script over ``text``: ``$n`` group references with trim strings removed, then macros."""
    if script.disabled or not script.find_regex or not text:
        return text
    source = substitute(script.find_regex) if script.substitute_regex else script.find_regex
    rx = regex_from_string(source)
    if rx is None:
        return text
    template = re.sub(r"\{\{match\}\}", "$0", script.replace_string, flags=re.IGNORECASE)
    trims = [substitute(t) for t in script.trim_strings]

    def replace(m: re.Match[str]) -> str:
        groups = m.re.groups or 0

        def group(ref: re.Match[str]) -> str:
            index = int(ref.group(1))
            # ST indexes the replacer's ``arguments``: after the groups come the match offset (in
            # UTF-16 units) and the whole input, so ``$1`` on a pattern without groups gives the
            # offset (empty at 0, a falsy value) and ``$2`` the input.
            value: str | None
            if index <= groups:
                value = m.group(index)
            elif index == groups + 1:
                value = str(len(text[: m.start()].encode("utf-16-le")) // 2)
                value = "" if value == "0" else value
            elif index == groups + 2:
                value = text
            else:
                value = None
            if not value:
                return ""
            for trim in trims:
                if trim:
                    value = value.replace(trim, "")
            return value

        return substitute(_GROUP_REF.sub(group, template))

    return rx.replace(text, replace)
