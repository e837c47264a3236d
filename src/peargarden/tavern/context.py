"""The per-generation context of tavern assembly: names, macros, regex scripts, settings.

A :class:`GenerationContext` is built once per generation.  It caches the macro environment (the
chat facts it needs scan the whole chat) and the applicable regex scripts per depth class, and it
reads numeric settings the way ST's JavaScript would, with a warning when they are not numbers.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from msgspec.structs import replace

from peargarden.formats.chats import parse_send_date
from peargarden.text.jsstring import js_trim
from peargarden.text.macro_dispatch import Engine, expand
from peargarden.text.macros import CardMacroFields, ChatFacts, MacroEnv, Variables
from peargarden.text.regex_scripts import RegexScript, RegexSet, applicable, apply_scripts, is_static, load_scripts
from peargarden.text.tokens import TextCounter, counter_for_model

from . import defaults as d
from .group_cards import joined_fields
from .state import TavernState

_MAX_SCAN_DEPTH = 1000
GEN_TYPES = ("normal", "regenerate", "swipe", "continue", "impersonate", "quiet")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _num(value: Any) -> float:
    if value is None or isinstance(value, bool):
        return math.nan if value is None else float(value)
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).strip() or 0)
    except ValueError:
        return math.nan


def _js_number(value: Any) -> float:
    """A number for a JS comparison; anything that is not a number compares false (NaN)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan


def _js_eq_number(value: Any, number: float) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == number


def _role_by_name(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in d.ROLE_NAMES:
        return value
    return d.ROLE_IDS.get(str(value), d.ROLE_SYSTEM) if isinstance(value, str) else d.ROLE_SYSTEM


def _prompt_role(role: float) -> str:
    return d.ROLE_NAMES.get(int(role), "system") if not math.isnan(role) else "system"


def _prompt_position(position: float) -> str | None:
    if position == d.BEFORE_PROMPT:
        return "start"
    if position == d.IN_PROMPT:
        return "end"
    return None


_VALID_NAME = re.compile(r"[a-zA-Z0-9_]{1,64}\Z")


def _sanitize_name(name: str) -> str:
    """``sanitizeName``: every other UTF-16 unit → ``_`` (an emoji is two), cut to 64 units."""
    if _VALID_NAME.match(name):
        return name
    return re.sub(r"[^a-zA-Z0-9_]", lambda m: "__" if ord(m.group(0)) > 0xFFFF else "_", name)[:64]


def _stripped(value: Any) -> str:
    return js_trim(value) if isinstance(value, str) else ""


class GenerationContext:
    """What every step of one generation reads: state, names, macro environment, regex scripts."""

    def __init__(self, state: TavernState, gen_type: str, *, dry_run: bool = False) -> None:
        self.s = state
        self.type = gen_type if gen_type in GEN_TYPES else "normal"
        self.dry_run = dry_run
        # ``Generate('quiet', {quiet_prompt})`` (``/gen``, a side request): the instruction that ends the
        # prompt in the quietPrompt slot.
        self.quiet_prompt = ""
        self.warnings: list[str] = []
        oai = state.oai
        model = str(oai.get("custom_model") or oai.get("openai_model") or "gpt-3.5-turbo")
        self.counter: TextCounter = state.counter or counter_for_model(model)
        vars_local = state.chat_metadata.setdefault("variables", {})
        if not isinstance(vars_local, dict):
            vars_local = state.chat_metadata["variables"] = {}
        var_settings = state.extension_settings.setdefault("variables", {})
        if not isinstance(var_settings, dict):
            var_settings = state.extension_settings["variables"] = {}
        global_vars = var_settings.setdefault("global", {})
        self.variables = Variables(local=vars_local, global_=global_vars)
        self.compat = state.compat
        self.engine: Engine = "new" if state.compat.new_macro_engine else "legacy"
        self.name1 = state.user_name
        self.name2 = state.char_name
        self._card_fields = CardMacroFields()
        self._envs: dict[bool, MacroEnv] = {}
        self.regex = self._regex_set()
        thresholds = set()
        floor = self.regex.min_depth_floor
        for sc in self.regex.scripts():
            if sc.min_depth is not None and sc.min_depth >= floor:
                thresholds.add(sc.min_depth)
            if sc.max_depth is not None and sc.max_depth >= 0:
                thresholds.add(sc.max_depth + 1)
        self._depth_thresholds = sorted(thresholds)
        self._groups: dict[tuple[int, bool, int], tuple[tuple[RegexScript, ...], dict[str, str] | None] | None] = {}
        self.activated: list[str] = []
        self.fired: list[dict[str, str]] = []  # the same entries as readers name them (title, book)

    # numbers ----------------------------------------------------------------
    def _setting_int(self, key: str, default: int) -> int:
        """An integer oai setting; a value that is not a number falls back to ST's default (warned)."""
        value = _num(self.s.oai.get(key))
        if math.isnan(value) or math.isinf(value):
            self.warnings.append(f"设置 {key} 不是数字（{self.s.oai.get(key)!r}），按默认值 {default} 计算")
            self.s.oai[key] = default
            return default
        return int(value)

    @property
    def context_size(self) -> int:
        return self._setting_int("openai_max_context", 4095)

    @property
    def response_length(self) -> int:
        return self._setting_int("openai_max_tokens", 300)

    # macros -----------------------------------------------------------------
    @property
    def card_fields(self) -> CardMacroFields:
        return self._card_fields

    @card_fields.setter
    def card_fields(self, value: CardMacroFields) -> None:
        self._card_fields = value
        self._envs.clear()

    def env(self, *, card: bool = True, extra: dict[str, str] | None = None) -> MacroEnv:
        """The macro environment, built once per generation (chat facts scan the whole chat)."""
        cached = self._envs.get(card)
        if cached is None:
            cached = self._envs[card] = self._build_env(card)
        if extra:
            return replace(cached, extra=extra)
        return cached

    def _idle_since(self) -> datetime | None:
        """``{{idle_duration}}`` counts from the newest visible user message *before* the newest
        visible message (macros.js getTimeSinceLastMessage); None when there is none."""
        newest_seen = False
        for m in reversed(self.s.chat):
            if m.get("is_system"):
                continue
            if m.get("is_user") and newest_seen:
                when = parse_send_date(m.get("send_date"))
                if when is None:
                    return None
                now = self.s.clock()
                if when.tzinfo is None:  # written without a zone: the reader's local time
                    return when.replace(tzinfo=now.tzinfo)
                return when if now.tzinfo is not None else when.astimezone(UTC).replace(tzinfo=None)
            newest_seen = True
        return None

    def _build_env(self, card: bool) -> MacroEnv:
        s = self.s
        pu = s.power_user
        sysprompt = _dict(pu.get("sysprompt"))
        context = _dict(pu.get("context"))
        chat = s.chat
        last = chat[-1] if chat else None
        # ST's getLastMessageId skips a message whose swipe is still being generated (swipe_id ≥
        # len(swipes)); during a swipe that is the swiped reply, whose swipe_id ST has already
        # moved one past its last swipe.  The swipe-count macros still read that message.
        swiping = self.type == "swipe" and last is not None and not last.get("is_user")
        last_swipes = (last.get("swipes") or [last.get("mes", "")]) if swiping and last else None

        def finished(i: int) -> bool:
            if swiping and i == len(chat) - 1:
                return False
            m = chat[i]
            swipes, swipe_id = m.get("swipes"), m.get("swipe_id")
            # JS: an empty array is truthy, and ``undefined >= n`` is false.
            return not (isinstance(swipes, list) and _js_number(swipe_id) >= len(swipes))

        def newest(keep: Callable[[dict[str, Any]], bool]) -> int | None:
            # Newest first, stopping early: the chat can be long and this runs every generation.
            return next((i for i in range(len(chat) - 1, -1, -1) if finished(i) and keep(chat[i])), None)

        last_id = newest(lambda m: True)
        last_user = newest(lambda m: bool(m.get("is_user")) and not m.get("is_system"))
        last_char = newest(lambda m: not m.get("is_user") and not m.get("is_system"))
        if last_swipes is not None:
            swipe_count, current_swipe = str(len(last_swipes)), str(len(last_swipes) + 1)
        else:
            has_swipes = bool(last and last.get("swipes"))
            swipe_count = str(len(last.get("swipes") or [])) if last and has_swipes else ""
            current_swipe = str(int(last.get("swipe_id", 0)) + 1) if last and has_swipes else ""
        facts = ChatFacts(
            last_message_time=self._idle_since(),
            last_message=str(chat[last_id].get("mes", "")) if last_id is not None else "",
            last_message_id=str(last_id) if last_id is not None else "",
            last_user_message=str(chat[last_user].get("mes", "")) if last_user is not None else "",
            last_char_message=str(chat[last_char].get("mes", "")) if last_char is not None else "",
            last_swipe_id=swipe_count,
            current_swipe_id=current_swipe,
            # The in-context marker of the previous generation (ST reads it from the page).
            first_included_message_id=str(s.chat_metadata.get("lastInContextMessageId", "")),
        )
        oai = s.oai
        group, group_not_muted, not_char = self._group_names(self.name2)
        return MacroEnv(
            user=self.name1,
            char=self.name2,
            group=group,
            group_not_muted=group_not_muted,
            not_char=not_char,
            card=self.card_fields if card else None,
            model=str(oai.get("custom_model") or oai.get("openai_model") or ""),
            variables=self.variables,
            chat=facts,
            max_prompt=self.context_size - self.response_length,
            sysprompt=str(sysprompt.get("content") or ""),
            sysprompt_enabled=bool(sysprompt.get("enabled", True)),
            prefer_character_prompt=bool(pu.get("prefer_character_prompt", True)),
            example_separator=str(context.get("example_separator") or ""),
            chat_start=str(context.get("chat_start") or ""),
            chat_id_hash=int(s.chat_metadata.get("chat_id_hash") or s.chat_id_hash or 0),
            clock=s.clock,
            random=s.random,
            max_context=self.context_size,
            max_response=self.response_length,
            greetings=self._greetings(),
            depth_prompt=self.base_replace(_stripped(_dict(s.card_extensions.get("depth_prompt")).get("prompt")))
            if card
            else "",
            creator_notes=self.base_replace(_stripped(s.card_data.get("creator_notes"))) if card else "",
            generation_type=self.type,
            outlet=self._outlet if self.compat.wi_outlets else None,
            legacy_118=self.compat.legacy_macros_118,
        )

    def _group_names(self, speaker: str) -> tuple[str | None, str | None, str | None]:
        cast = self.s.cast
        if cast is None:
            return None, None, None
        return cast.macro_names(speaker, self.name1, new_engine=self.engine == "new")

    def _greetings(self) -> tuple[str, ...]:
        first = self.s.card_field("first_mes")
        alternates = self.s.card_data.get("alternate_greetings")
        extra = [str(g) for g in alternates] if isinstance(alternates, list) else []
        return (str(first) if isinstance(first, str) else "", *extra)

    def _outlet(self, name: str) -> str:
        entry = self.s.table.get("customWIOutlet_" + name)
        return entry.value if entry and entry.value else ""

    def sub(self, text: str | None, original: str | None = None) -> str:
        """ST ``substituteParams`` (card-field macros on)."""
        if not text:
            return ""
        return expand(text, self.env(), original=original, engine=self.engine)

    def sub_extra(self, text: str, extra: dict[str, str]) -> str:
        return expand(text, self.env(extra=extra), engine=self.engine) if text else ""

    def base_replace(self, value: Any) -> str:
        """ST ``baseChatReplace``: macros without card-field macros, ``\\r`` removed."""
        if not isinstance(value, str) or not value:
            return ""
        out = expand(value, self.env(card=False), engine=self.engine)
        if self.s.power_user.get("collapse_newlines"):
            out = re.sub(r"\n+", "\n", out)
        return out.replace("\r", "")

    def base_replace_as(self, value: Any, char_name: str) -> str:
        """``baseChatReplace(value, null, name)``: as :meth:`base_replace` with another ``{{char}}``
        (a group member's own fields, joined or injected for whoever speaks)."""
        if not isinstance(value, str) or not value:
            return ""
        if char_name == self.name2:
            return self.base_replace(value)
        group, group_not_muted, not_char = self._group_names(char_name)
        env = replace(
            self.env(card=False), char=char_name, group=group, group_not_muted=group_not_muted, not_char=not_char
        )
        out = expand(value, env, engine=self.engine)
        if self.s.power_user.get("collapse_newlines"):
            out = re.sub(r"\n+", "\n", out)
        return out.replace("\r", "")

    # regex ------------------------------------------------------------------
    def _regex_set(self) -> RegexSet:
        ext = self.s.extension_settings
        disabled = ext.get("disabledExtensions") or []
        allowed = ext.get("character_allowed_regex") or []
        scoped_raw = self.s.card_extensions.get("regex_scripts")
        compat = self.s.compat
        preset_scripts: list[RegexScript] = []
        preset_allowed = False
        if compat.preset_regex_scripts:
            preset_ext = _dict(self.s.oai.get("extensions"))
            preset_scripts = load_scripts(preset_ext.get("regex_scripts"))
            allowed_presets = _dict(ext.get("preset_allowed_regex")).get("openai")
            name = self.s.oai.get("preset_settings_openai")
            preset_allowed = isinstance(allowed_presets, list) and name in allowed_presets
        return RegexSet(
            global_scripts=load_scripts(ext.get("regex")),
            scoped_scripts=load_scripts(scoped_raw),
            scoped_allowed=isinstance(allowed, list) and self.s.avatar in allowed,
            enabled="regex" not in disabled,
            preset_scripts=preset_scripts,
            preset_allowed=preset_allowed,
            plain_at_prompt=compat.plain_regex_at_prompt,
            min_depth_floor=-1 if compat.regex_min_depth_minus_one else 0,
        )

    def regexed(self, text: str, placement: int, *, is_prompt: bool = False, depth: int | None = None) -> str:
        if not text:
            return text
        group = self._script_group(placement, is_prompt, depth)
        if group is None:
            return text
        scripts, cache = group
        if cache is None:
            return apply_scripts(scripts, text, placement, is_prompt=is_prompt, depth=depth, substitute=self.sub)
        hit = cache.get(text)
        if hit is None:
            hit = apply_scripts(scripts, text, placement, is_prompt=is_prompt, depth=depth, substitute=self.sub)
            if len(cache) > 20_000:
                cache.clear()
            cache[text] = hit
        return hit

    def _script_group(
        self, placement: int, is_prompt: bool, depth: int | None
    ) -> tuple[tuple[RegexScript, ...], dict[str, str] | None] | None:
        """The scripts that apply (memoised per depth class) and, if all are static, their result cache.

        Static scripts give a result that depends only on the text, the scripts and the two names,
        so results are kept in the session state across generations.
        """
        if depth is None:
            depth_class = -1
        elif depth < 0 and self.regex.min_depth_floor >= 0:
            depth_class = -1  # 1.12 ignores negative depths
        else:
            depth_class = bisect.bisect_right(self._depth_thresholds, depth)
        key = (placement, is_prompt, depth_class)
        if key not in self._groups:
            scripts = applicable(
                self.regex.scripts(),
                placement,
                is_prompt=is_prompt,
                depth=depth,
                plain_at_prompt=self.regex.plain_at_prompt,
                min_depth_floor=self.regex.min_depth_floor,
            )
            if not scripts:
                self._groups[key] = None
            elif all(is_static(sc) for sc in scripts):
                ids = self.s.script_ids
                signature = (placement, self.name1, self.name2, *(ids.setdefault(sc, len(ids)) for sc in scripts))
                self._groups[key] = (scripts, self.s.regex_cache.setdefault(signature, {}))
            else:
                self._groups[key] = (scripts, None)
        return self._groups[key]

    # steps ------------------------------------------------------------------
    def _group_fields(self) -> dict[str, str] | None:
        """A JOIN group's joined description, personality, scenario and examples (None otherwise)."""
        cast = self.s.cast
        if cast is None:
            return None
        instruct = _dict(self.s.power_user.get("instruct"))
        return joined_fields(
            cast,
            self.s.avatar,
            expand=self.base_replace_as,
            expand_speaker=self.base_replace,
            chat_metadata=self.s.chat_metadata,
            compat=self.compat,
            instruct_wrap=instruct.get("wrap", True) is not False,
        )

    def card_macro_fields(self) -> tuple[dict[str, str], CardMacroFields]:
        s = self.s
        pu = s.power_user
        scenario_src = s.chat_metadata.get("scenario") or s.card_field("scenario") or ""
        examples_src = s.card_field("mes_example")
        system_src = s.card_data.get("system_prompt")
        if self.compat.chat_overrides_examples_and_system:
            # 1.18: a chat may override the card's examples and system prompt.
            examples_src = s.chat_metadata.get("mes_example") or examples_src
            system_src = s.chat_metadata.get("system_prompt") or system_src
        fields = {
            "persona": self.base_replace(_stripped(pu.get("persona_description"))),
            "description": self.base_replace(_stripped(s.card_field("description"))),
            "personality": self.base_replace(_stripped(s.card_field("personality"))),
            "scenario": self.base_replace(_stripped(scenario_src)),
            "mesExamples": self.base_replace(_stripped(examples_src)),
            "system": self.base_replace(_stripped(system_src)) if pu.get("prefer_character_prompt", True) else "",
            "jailbreak": self.base_replace(_stripped(s.card_data.get("post_history_instructions")))
            if pu.get("prefer_character_jailbreak", True)
            else "",
            "version": str(s.card_data.get("character_version") or ""),
        }
        joined = self._group_fields()
        if joined is not None:
            fields.update(joined)
        macro_fields = CardMacroFields(
            char_prompt=fields["system"],
            char_jailbreak=fields["jailbreak"],
            description=fields["description"],
            personality=fields["personality"],
            scenario=fields["scenario"],
            persona=fields["persona"],
            mes_examples=fields["mesExamples"],
            char_version=fields["version"],
        )
        return fields, macro_fields
