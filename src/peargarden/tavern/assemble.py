"""One SillyTavern 1.12.6 Chat Completion generation: from state to the message list.

The steps follow ``Generate()`` and ``prepareOpenAIMessages()`` in their order (see the spec
§2.1): card fields, character's note, greeting refresh, core chat with prompt-time regex,
examples, Author's Note, persona, world info, then the Prompt Manager collection, the budgeted
fill and the in-context marker.  Nothing here touches files, the clock or randomness directly.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from peargarden.text.macros import CardMacroFields, ChatFacts, MacroEnv, Variables, substitute
from peargarden.text.regex_scripts import (
    Placement,
    RegexScript,
    RegexSet,
    applicable,
    apply_scripts,
    is_static,
    load_scripts,
)
from peargarden.text.tokens import TextCounter, counter_for_model, full_text_tokens
from peargarden.worldinfo import CharacterContext, ScanMessage, WorldInfoSettings, check_world_info
from peargarden.worldinfo.placement import wrap_authors_note
from peargarden.worldinfo.sources import book_from_st, sort_entries

from . import defaults as d
from .chat_completion import ChatCompletion, Group, Message, SlotNotFound, TokenBudgetExceeded, cost_function
from .examples import ExampleMessage, block_to_messages, parse_mes_examples
from .injections import insert_newest_first
from .prompts import Prompt, PromptCollection, PromptManagerData, build_collection, load_prompt_manager
from .state import TavernState

_MAX_SCAN_DEPTH = 1000
GEN_TYPES = ("normal", "regenerate", "swipe", "continue", "impersonate", "quiet")


@dataclass
class LedgerRow:
    slot: str
    role: str
    tokens: int
    head: str
    name: str | None = None


@dataclass
class Assembly:
    """The result of one generation's prompt assembly."""

    messages: list[dict[str, str]]
    ledger: list[LedgerRow]
    warnings: list[str]
    budget: int  # context − response − 3
    used: int  # tokens of the placed messages (+3 priming)
    history_tokens: int
    in_context_count: int
    last_in_context_index: int
    gen_type: str
    world_info_activated: list[str] = field(default_factory=list)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _truthy(value: Any) -> bool:
    """JavaScript truthiness for JSON values."""
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def _num(value: Any) -> float:
    if value is None or isinstance(value, bool):
        return math.nan if value is None else float(value)
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).strip() or 0)
    except ValueError:
        return math.nan


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


_VALID_NAME = re.compile(r"^[a-zA-Z0-9_]{1,64}$")


def _sanitize_name(name: str) -> str:
    if _VALID_NAME.match(name):
        return name
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)[:64]


def _stripped(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


class Generation:
    """One run of ST's ``Generate(type)`` for the state (mutates chat metadata as ST does)."""

    def __init__(self, state: TavernState, gen_type: str, *, dry_run: bool = False) -> None:
        self.s = state
        self.type = gen_type if gen_type in GEN_TYPES else "normal"
        self.dry_run = dry_run
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
        self.name1 = state.user_name
        self.name2 = state.char_name
        self._card_fields = CardMacroFields()
        self._envs: dict[bool, MacroEnv] = {}
        self.regex = self._regex_set()
        thresholds = set()
        for sc in self.regex.scripts():
            if sc.min_depth is not None and sc.min_depth >= 0:
                thresholds.add(sc.min_depth)
            if sc.max_depth is not None and sc.max_depth >= 0:
                thresholds.add(sc.max_depth + 1)
        self._depth_thresholds = sorted(thresholds)
        self._groups: dict[tuple[int, bool, int], tuple[tuple[RegexScript, ...], dict[str, str] | None] | None] = {}
        self.activated: list[str] = []

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
            from dataclasses import replace

            return replace(cached, extra=extra)
        return cached

    def _build_env(self, card: bool) -> MacroEnv:
        s = self.s
        pu = s.power_user
        sysprompt = _dict(pu.get("sysprompt"))
        context = _dict(pu.get("context"))
        chat = s.chat
        last = chat[-1] if chat else None
        # Newest first, stopping early: the chat can be long and this runs every generation.
        last_user = next((m for m in reversed(chat) if m.get("is_user")), None)
        last_char = next((m for m in reversed(chat) if not m.get("is_user") and not m.get("is_system")), None)
        facts = ChatFacts(
            last_message=str(last.get("mes", "")) if last else "",
            last_message_id=str(len(chat) - 1) if chat else "",
            last_user_message=str(last_user.get("mes", "")) if last_user else "",
            last_char_message=str(last_char.get("mes", "")) if last_char else "",
            last_swipe_id=str(len(last.get("swipes") or [])) if last and last.get("swipes") else "",
            current_swipe_id=str(int(last.get("swipe_id", 0)) + 1) if last and last.get("swipes") else "",
        )
        oai = s.oai
        return MacroEnv(
            user=self.name1,
            char=self.name2,
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
        )

    def sub(self, text: str | None, original: str | None = None) -> str:
        """ST ``substituteParams`` (card-field macros on)."""
        if not text:
            return ""
        return substitute(text, self.env(), original=original)

    def sub_extra(self, text: str, extra: dict[str, str]) -> str:
        return substitute(text, self.env(extra=extra)) if text else ""

    def base_replace(self, value: Any) -> str:
        """ST ``baseChatReplace``: macros without card-field macros, ``\\r`` removed."""
        if not isinstance(value, str) or not value:
            return ""
        out = substitute(value, self.env(card=False))
        if self.s.power_user.get("collapse_newlines"):
            out = re.sub(r"\n+", "\n", out)
        return out.replace("\r", "")

    # regex ------------------------------------------------------------------
    def _regex_set(self) -> RegexSet:
        ext = self.s.extension_settings
        disabled = ext.get("disabledExtensions") or []
        allowed = ext.get("character_allowed_regex") or []
        scoped_raw = self.s.card_extensions.get("regex_scripts")
        return RegexSet(
            global_scripts=load_scripts(ext.get("regex")),
            scoped_scripts=load_scripts(scoped_raw),
            scoped_allowed=isinstance(allowed, list) and self.s.avatar in allowed,
            enabled="regex" not in disabled,
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
        depth_class = -1 if depth is None or depth < 0 else bisect.bisect_right(self._depth_thresholds, depth)
        key = (placement, is_prompt, depth_class)
        if key not in self._groups:
            scripts = applicable(self.regex.scripts(), placement, is_prompt=is_prompt, depth=depth)
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
    def card_macro_fields(self) -> tuple[dict[str, str], CardMacroFields]:
        s = self.s
        pu = s.power_user
        scenario_src = s.chat_metadata.get("scenario") or s.card_field("scenario") or ""
        fields = {
            "persona": self.base_replace(_stripped(pu.get("persona_description"))),
            "description": self.base_replace(_stripped(s.card_field("description"))),
            "personality": self.base_replace(_stripped(s.card_field("personality"))),
            "scenario": self.base_replace(_stripped(scenario_src)),
            "mesExamples": self.base_replace(_stripped(s.card_field("mes_example"))),
            "system": self.base_replace(_stripped(s.card_data.get("system_prompt")))
            if pu.get("prefer_character_prompt", True)
            else "",
            "jailbreak": self.base_replace(_stripped(s.card_data.get("post_history_instructions")))
            if pu.get("prefer_character_jailbreak", True)
            else "",
            "version": str(s.card_data.get("character_version") or ""),
        }
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

    def set_depth_prompt(self) -> None:
        s = self.s
        s.table.delete_prefix(d.DEPTH_PROMPT_KEY)
        dp = s.card_extensions.get("depth_prompt")
        dp = dp if isinstance(dp, dict) else {}
        text = self.base_replace(_stripped(dp.get("prompt")))
        depth = dp.get("depth") if dp.get("depth") is not None else 4
        role = _role_by_name(dp.get("role") if dp.get("role") is not None else "system")
        s.table.set(d.DEPTH_PROMPT_KEY, text, d.IN_CHAT, depth, s.note_settings.get("allowWIScan"), role)

    def set_authors_note(self) -> bool:
        """``setFloatingPrompt``; returns whether the note is active this turn."""
        s = self.s
        md = s.chat_metadata
        count = sum(1 for m in s.chat if m.get("is_user"))
        interval = md.get("note_interval")
        if _js_eq_number(interval, 1):
            count = 1
        iv = _num(interval)
        if count <= 0 or iv <= 0:
            s.table.set(d.NOTE_KEY, "", None, None)
            return False
        till = (count % iv) if count >= iv else (iv - count)
        active = till == 0
        prompt = str(md.get("note_prompt") or "") if active else ""
        chara = s.note_settings.get("chara")
        if active and isinstance(chara, list):
            file_name = s.avatar.rsplit(".", 1)[0] if "." in s.avatar else s.avatar
            note = next((c for c in chara if isinstance(c, dict) and c.get("name") == file_name), None)
            if note and note.get("useChara"):
                pos = note.get("position")
                if pos == 1:
                    prompt = f"{note.get('prompt', '')}\n{prompt}"
                elif pos == 2:
                    prompt = f"{prompt}\n{note.get('prompt', '')}"
                else:
                    prompt = str(note.get("prompt", ""))
        s.table.set(
            d.NOTE_KEY,
            prompt,
            md.get("note_position"),
            md.get("note_depth"),
            s.note_settings.get("allowWIScan"),
            md.get("note_role"),
        )
        return active

    def persona_position(self) -> int:
        pos = self.s.power_user.get("persona_description_position", d.PERSONA_IN_PROMPT)
        if pos == d.PERSONA_AFTER_CHAR:
            return d.PERSONA_IN_PROMPT  # ST migrates the deprecated position on load
        return int(pos) if isinstance(pos, int | float) and not isinstance(pos, bool) else d.PERSONA_IN_PROMPT

    def set_persona(self, an_active: bool) -> None:
        s = self.s
        pu = s.power_user
        s.table.set(d.PERSONA_KEY, "", d.IN_PROMPT, 0)
        persona = pu.get("persona_description")
        pos = self.persona_position()
        if not persona or pos == d.PERSONA_NONE:
            return
        md = s.chat_metadata
        if pos in (d.PERSONA_TOP_AN, d.PERSONA_BOTTOM_AN) and an_active:
            note = s.table.get(d.NOTE_KEY)
            original = note.value if note else ""
            text = f"{persona}\n{original}" if pos == d.PERSONA_TOP_AN else f"{original}\n{persona}"
            s.table.set(
                d.NOTE_KEY,
                text,
                md.get("note_position"),
                md.get("note_depth"),
                s.note_settings.get("allowWIScan"),
                md.get("note_role"),
            )
        if pos == d.PERSONA_AT_DEPTH:
            s.table.set(
                d.PERSONA_KEY,
                persona,
                d.IN_CHAT,
                pu.get("persona_description_depth", 2),
                True,
                pu.get("persona_description_role", 0),
            )

    def world_info(
        self, core: list[tuple[dict[str, Any], str]], an_active: bool
    ) -> tuple[str, str, list[tuple[str, str]]]:
        s = self.s
        wis = s.wi_settings
        selection = _dict(wis.get("world_info"))
        global_names = [n for n in (selection.get("globalSelect") or []) if isinstance(n, str)]
        char_names: list[str] = []
        char_world = s.card_extensions.get("world")
        if isinstance(char_world, str) and char_world:
            char_names.append(char_world)
        file_name = s.avatar.rsplit(".", 1)[0] if "." in s.avatar else s.avatar
        for lore in selection.get("charLore") or []:
            if isinstance(lore, dict) and lore.get("name") == file_name:
                char_names.extend(b for b in lore.get("extraBooks") or [] if isinstance(b, str))
        chat_name = s.chat_metadata.get("world_info")
        chat_name = chat_name if isinstance(chat_name, str) and chat_name else None

        def load(name: str) -> Any:
            data = s.worlds.get(name)
            if data is None:
                self.warnings.append(f"找不到世界书 {name!r}，已跳过")
                return None
            cached = s.book_cache.get(name)
            if cached is not None and cached[0] is data:
                return cached[1]
            try:
                book = book_from_st(name, data)
                s.book_cache[name] = (data, book)
                return book
            except Exception as error:  # a damaged book must not stop the assembly
                self.warnings.append(f"世界书 {name!r} 无法读取：{error}")
                return None

        chat_book = load(chat_name) if chat_name and chat_name not in global_names else None
        global_books = [b for b in (load(n) for n in dict.fromkeys(global_names)) if b is not None]
        character_books = [
            b
            for b in (load(n) for n in dict.fromkeys(char_names) if n not in global_names and n != chat_name)
            if b is not None
        ]
        settings = WorldInfoSettings.from_st(wis)
        sort_key = (
            tuple(id(b) for b in global_books),
            tuple(id(b) for b in character_books),
            id(chat_book),
            settings.character_strategy,
        )
        cached_sort = s.book_cache.get("\0sorted")
        if cached_sort is not None and cached_sort[0] == sort_key:
            entries = cached_sort[1]
        else:
            entries = sort_entries(
                global_books=global_books,
                character_books=character_books,
                chat_book=chat_book,
                strategy=settings.character_strategy,
            )
            s.book_cache["\0sorted"] = (sort_key, entries)
        max_context = self.context_size - self.response_length

        def transform(content: str, entry: Any) -> str:
            raw = entry.raw
            depth = None
            if raw.get("position") == 4:
                dv = raw.get("depth")
                depth = int(dv) if isinstance(dv, int | float) and not isinstance(dv, bool) else 4
            return self.regexed(content, Placement.WORLD_INFO, is_prompt=True, depth=depth)

        result = check_world_info(
            entries,
            # The scan never looks further back than MAX_SCAN_DEPTH (1000) messages; the real chat
            # length goes in separately (timed effects count it).
            [ScanMessage(str(m.get("name", "")), text) for m, text in core[-_MAX_SCAN_DEPTH:]],
            settings,
            max_context=max_context,
            count_tokens=lambda text: full_text_tokens(self.counter, text),
            random=s.random,
            macro=lambda text: self.sub(text),
            transform=transform,
            inject_scan=[self.sub(v) for v in s.table.scan_values()],
            timed_world_info=s.chat_metadata.get("timedWorldInfo"),
            chat_length=len(s.chat),
            dry_run=self.dry_run,
            character=CharacterContext(avatar=s.avatar),
        )
        self.warnings.extend(result.warnings)
        if not self.dry_run:
            s.chat_metadata["timedWorldInfo"] = dict(result.timed_world_info)
        self.activated = [f"{a.entry.world}#{a.entry.uid}" for a in result.activated]
        if an_active:
            note = s.table.get(d.NOTE_KEY)
            md = s.chat_metadata
            s.table.set(
                d.NOTE_KEY,
                wrap_authors_note(note.value if note else "", result.an_top, result.an_bottom),
                md.get("note_position"),
                md.get("note_depth"),
                s.note_settings.get("allowWIScan"),
                md.get("note_role"),
            )
        s.table.delete_prefix("customDepthWI")
        for inj in result.depth:
            s.table.set(inj.table_key, inj.content, d.IN_CHAT, inj.depth, False, inj.role)
        examples = [(x.position, x.content) for x in result.examples]
        return result.wi_before, result.wi_after, examples

    def openai_messages(self, core: list[tuple[dict[str, Any], str]]) -> list[dict[str, Any]]:
        """``setOpenAIMessages``: newest first, with role / name handling (text = after regex)."""
        oai = self.s.oai
        behavior = oai.get("names_behavior", d.NAMES_DEFAULT)
        quotes = oai.get("wrap_in_quotes")
        name1 = self.name1
        out: list[dict[str, Any]] = []
        for m, content in reversed(core):
            role = "user" if m.get("is_user") else "assistant"
            extra = m.get("extra")
            narrator = isinstance(extra, dict) and extra.get("type") == "narrator"
            if narrator:
                role = "system"
            name = m.get("name")
            if behavior == d.NAMES_DEFAULT:
                if m.get("force_avatar") and name != name1 and not narrator:
                    content = f"{name}: {content}"
            elif behavior == d.NAMES_CONTENT and not narrator:
                content = f"{name}: {content}"
            if "\r" in content:
                content = content.replace("\r", "")
            if quotes and role == "user":
                content = f'"{content}"'
            out.append({"role": role, "content": content, "name": name})
        return out

    def bias(self) -> str:
        if self.type in ("impersonate", "continue"):
            return ""
        prompt_bias = ""
        chat = self.s.chat
        for i in range(len(chat) - 1, -1, -1):
            m = chat[i]
            if self.type == "swipe" and i == len(chat) - 1:
                continue
            extra = _dict(m.get("extra"))
            if m.get("is_user") or m.get("is_system") or extra.get("type") == "narrator":
                b = extra.get("bias")
                if isinstance(b, str) and b.strip():
                    prompt_bias = b
                break
        prompt_bias = prompt_bias or str(self.s.power_user.get("user_prompt_bias") or "")
        return self.sub(prompt_bias)

    # main -------------------------------------------------------------------
    def run(self) -> Assembly:
        s = self.s
        s.fill_note_metadata()
        fields, self.card_fields = self.card_macro_fields()
        self.set_depth_prompt()
        if s.chat:
            s.chat[0]["mes"] = self.sub(str(s.chat[0].get("mes") or ""))
            self._envs.clear()  # {{lastMessage}} may have been the greeting
        core_src = [m for m in s.chat if not m.get("is_system")]
        if self.type == "swipe" and core_src:
            core_src = core_src[:-1]
        core: list[tuple[dict[str, Any], str]] = []
        last_index = len(core_src) - 1
        for index, m in enumerate(core_src):
            placement = Placement.USER_INPUT if m.get("is_user") else Placement.AI_OUTPUT
            raw = m.get("mes")
            text = self.regexed(
                raw if isinstance(raw, str) else str(raw or ""), placement, is_prompt=True, depth=last_index - index
            )
            core.append((m, text))
        examples_raw = parse_mes_examples(fields["mesExamples"])
        an_active = self.set_authors_note()
        self.set_persona(an_active)
        s.table.set(d.QUIET_KEY, "", d.IN_PROMPT, 0, True)
        wi_before, wi_after, wi_examples = self.world_info(core, an_active)
        s.table.set(d.QUIET_KEY, "", d.IN_PROMPT, 0, True)
        for position, content in wi_examples:
            if not content:
                continue
            cleaned = parse_mes_examples(self.base_replace(content))
            if position == "before":
                examples_raw[0:0] = cleaned
            else:
                examples_raw.extend(cleaned)
        if s.power_user.get("strip_examples"):
            examples_raw = []
        messages = self.openai_messages(core)
        example_blocks = [block_to_messages(b, self.name1, self.name2) for b in examples_raw]
        cycle_prompt = ""
        if self.type == "continue" and core:
            cycle_prompt = core[-1][1]
            if not cycle_prompt.endswith(" "):
                cycle_prompt += str(s.oai.get("continue_postfix", " ") or "")
        return self.prepare_openai_messages(
            fields, wi_before, wi_after, self.bias(), cycle_prompt, messages, example_blocks
        )

    def prepare_openai_messages(
        self,
        fields: dict[str, str],
        wi_before: str,
        wi_after: str,
        bias: str,
        cycle_prompt: str,
        messages: list[dict[str, Any]],
        examples: list[list[ExampleMessage]],
    ) -> Assembly:
        oai = self.s.oai
        cost = cost_function(self.counter)
        context = self.context_size
        response = self.response_length
        cc = ChatCompletion(cost, context, response)
        pm = load_prompt_manager(oai)
        self.warnings.extend(pm.warnings)
        try:
            prompts = self.prepare_prompts(pm, fields, wi_before, wi_after, bias)
            self.populate(cc, pm, prompts, bias, cycle_prompt, messages, examples)
        except TokenBudgetExceeded as error:
            self.warnings.append(
                f"固定部分超出上下文预算（{error.identifier}）：按 SillyTavern 的做法仍发送已拼好的部分"
            )
        except SlotNotFound as error:
            self.warnings.append(f"找不到 {error.identifier} 槽位（主提示被设为聊天内？），组装提前结束")
        except Exception as error:  # ST also catches everything here and sends what it has
            self.warnings.append(f"组装时出现意外错误（{type(error).__name__}: {error}），只发送已拼好的部分")
        if oai.get("squash_system_messages") and not self.dry_run:
            cc.squash_system_messages()
        return self.finish(cc, context - response - 3)

    def prepare_prompts(
        self, pm: PromptManagerData, fields: dict[str, str], wi_before: str, wi_after: str, bias: str
    ) -> PromptCollection:
        s = self.s
        oai = s.oai
        table = s.table

        def wi_format(value: str) -> str:
            if not value:
                return ""
            fmt = str(oai.get("wi_format") or "")
            if not fmt.strip():
                return value
            return fmt.replace("{0}", value)

        scenario_fmt = oai.get("scenario_format")
        personality_fmt = oai.get("personality_format")
        scenario_text = self.sub(str(scenario_fmt)) if fields["scenario"] and scenario_fmt else ""
        personality_text = self.sub(str(personality_fmt)) if fields["personality"] and personality_fmt else ""
        impersonation = self.sub(str(oai.get("impersonation_prompt"))) if oai.get("impersonation_prompt") else ""
        runtime: list[Prompt] = [
            Prompt("worldInfoBefore", "system", wi_format(wi_before)),
            Prompt("worldInfoAfter", "system", wi_format(wi_after)),
            Prompt("charDescription", "system", fields["description"]),
            Prompt("charPersonality", "system", personality_text),
            Prompt("scenario", "system", scenario_text),
            Prompt("impersonate", "system", impersonation),
            Prompt("quietPrompt", "system", ""),
            Prompt("bias", "system", bias),
            Prompt("groupNudge", "system", self.sub(str(oai.get("group_nudge_prompt") or ""))),
        ]
        for key, ident, fixed_role in (
            ("1_memory", "summary", None),
            (d.NOTE_KEY, "authorsNote", None),
            ("3_vectors", "vectorsMemory", "system"),
            ("4_vectors_data_bank", "vectorsDataBank", None),
            ("chromadb", "smartContext", "system"),
        ):
            e = table.get(key)
            if e and e.value:
                role = fixed_role or _prompt_role(e.role)
                runtime.append(Prompt(ident, role, e.value, position=_prompt_position(e.position)))
        persona = s.power_user.get("persona_description")
        if persona and self.persona_position() == d.PERSONA_IN_PROMPT:
            runtime.append(Prompt("personaDescription", "system", str(persona)))
        known = {
            "1_memory",
            d.NOTE_KEY,
            "3_vectors",
            "4_vectors_data_bank",
            "chromadb",
            d.PERSONA_KEY,
            d.QUIET_KEY,
        }
        known.add(d.DEPTH_PROMPT_KEY)
        for key, e in table.entries.items():
            if key in known or not e.value or e.position not in (d.BEFORE_PROMPT, d.IN_PROMPT):
                continue
            runtime.append(
                Prompt(
                    re.sub(r"[^A-Za-z0-9_]", "_", key),
                    _prompt_role(e.role),
                    e.value,
                    position=_prompt_position(e.position),
                    extension=True,
                )
            )

        def prepare(prompt: Prompt, original: str | None = None) -> Prompt:
            from dataclasses import replace

            return replace(prompt, content=self.sub(prompt.text, original))

        collection = build_collection(pm, prepare)
        for item in runtime:
            existing = collection.get(item.identifier)
            if existing is not None:
                if existing.injection_position is not None:
                    item.injection_position = existing.injection_position
                if existing.injection_depth is not None:
                    item.injection_depth = existing.injection_depth
                if existing.role is not None:
                    item.role = existing.role
            new = prepare(item)
            index = collection.index(item.identifier)
            if index != -1:
                collection.items[index] = new
            else:
                collection.add(new)
        main = collection.get("main")
        if fields["system"] and main is not None and main.forbid_overrides is not True:
            original = main.text
            main.content = fields["system"]
            collection.override(prepare(main, original), collection.index("main"))
        jb = collection.get("jailbreak")
        if fields["jailbreak"] and jb is not None and jb.forbid_overrides is not True:
            original = jb.text
            jb.content = fields["jailbreak"]
            collection.override(prepare(jb, original), collection.index("jailbreak"))
        return collection

    def populate(
        self,
        cc: ChatCompletion,
        pm: PromptManagerData,
        prompts: PromptCollection,
        bias: str,
        cycle_prompt: str,
        messages: list[dict[str, Any]],
        examples: list[list[ExampleMessage]],
    ) -> None:
        oai = self.s.oai

        def add_slot(source: str) -> None:
            if not prompts.has(source):
                return
            if pm.is_disabled(source) and source != "main":
                return
            p = prompts.get(source)
            assert p is not None
            if p.is_in_chat:
                return
            cc.add(Group(source, [cc.message(p.role, p.text, source)]), prompts.index(source))

        cc.reserve(3)
        for ident in (
            "worldInfoBefore",
            "main",
            "worldInfoAfter",
            "charDescription",
            "charPersonality",
            "scenario",
            "personaDescription",
        ):
            add_slot(ident)
        control: list[Message] = []
        imp = prompts.get("impersonate")
        if self.type == "impersonate" and imp is not None:
            control.append(cc.message(imp.role, imp.text, "impersonate"))
        quiet = prompts.get("quietPrompt")
        if quiet is not None and quiet.text:
            control.append(cc.message(quiet.role, quiet.text, "quietPrompt"))
        control_tokens = sum(m.tokens for m in control)
        cc.reserve(control_tokens)
        user_relative = [p.identifier for p in prompts if p.system_prompt is False and not p.is_in_chat]
        absolute = [p for p in prompts if p.is_in_chat]
        for ident in ["nsfw", "jailbreak", *user_relative]:
            add_slot(ident)
        if prompts.has("enhanceDefinitions"):
            add_slot("enhanceDefinitions")
        if bias and bias.strip():
            add_slot("bias")
        for ident in ("summary", "authorsNote", "vectorsMemory", "vectorsDataBank", "smartContext"):
            p = prompts.get(ident)
            if p is not None and p.position:
                cc.insert(cc.message(p.role, p.text, ident), "main", p.position)
        for p in [p for p in prompts if p.extension and p.position]:
            cc.insert(cc.message(p.role, p.text, p.identifier), "main", p.position or "end")

        def make_injected(role: str, content: str) -> dict[str, Any]:
            return {"role": role, "content": content, "name": None, "injected": True}

        pool = insert_newest_first(absolute, messages, self.s.table, self.sub, make_injected)
        if self.s.power_user.get("pin_examples"):
            self.fill_examples(cc, prompts, examples)
            self.fill_history(cc, prompts, pool, cycle_prompt)
        else:
            self.fill_history(cc, prompts, pool, cycle_prompt)
            self.fill_examples(cc, prompts, examples)
        cc.free(control_tokens)
        if control:
            cc.add(Group("controlPrompts", control))
        del oai

    def fill_history(
        self, cc: ChatCompletion, prompts: PromptCollection, pool: list[dict[str, Any]], cycle_prompt: str
    ) -> None:
        """``populateChatHistory``; ``pool`` is the history (injections included), newest first."""
        oai = self.s.oai
        if not prompts.has("chatHistory"):
            return
        cc.add(Group("chatHistory"), prompts.index("chatHistory"))
        new_chat = cc.message("system", self.sub(str(oai.get("new_chat_prompt") or "")), "newMainChat")
        cc.reserve(new_chat.tokens)
        continue_msg = None
        if self.type == "continue" and cycle_prompt and not oai.get("continue_prefill"):
            text = self.sub_extra(
                str(oai.get("continue_nudge_prompt") or ""), {"lastChatMessage": cycle_prompt.strip()}
            )
            continue_msg = cc.message("system", self.sub(text), "continueNudge")
            cc.reserve(continue_msg.tokens)
        send_if_empty = str(oai.get("send_if_empty") or "")
        if pool and pool[0]["role"] == "assistant" and send_if_empty:
            filler = cc.message("user", send_if_empty, "emptyUserMessageReplacement")
            if cc.can_afford(filler.tokens):
                cc.insert(filler, "chatHistory")
        first_real = next((m for m in pool if not m.get("injected")), None)
        completion_names = oai.get("names_behavior") == d.NAMES_COMPLETION
        total = len(pool)
        for index, item in enumerate(pool):
            ident = f"chatHistory-{total - index}"
            msg = cc.message(item["role"], self.sub(item["content"]), ident)
            msg.injected = bool(item.get("injected"))
            if completion_names and item.get("name"):
                cc.set_name(msg, _sanitize_name(str(item["name"])))
            if not cc.can_afford(msg.tokens):
                break
            if self.type == "continue" and oai.get("continue_prefill") and item is first_real:
                cc.add(Group("continuePrefill", [msg]), -1)
                continue
            cc.insert(msg, "chatHistory", "start")
        cc.free(new_chat.tokens)
        cc.insert(new_chat, "chatHistory", "start")
        if continue_msg is not None:
            cc.free(continue_msg.tokens)
            cc.insert(continue_msg, "chatHistory", "end")

    def fill_examples(
        self, cc: ChatCompletion, prompts: PromptCollection, examples: list[list[ExampleMessage]]
    ) -> None:
        if not prompts.has("dialogueExamples"):
            return
        cc.add(Group("dialogueExamples"), prompts.index("dialogueExamples"))
        if not examples:
            return
        header = cc.message("system", self.sub(str(self.s.oai.get("new_example_chat_prompt") or "")), "newChat")
        for di, dialogue in enumerate(examples):
            added = 0
            if cc.can_afford(header.tokens):
                cc.insert(header, "dialogueExamples")
            for pi, ex in enumerate(dialogue):
                msg = cc.message("system", ex.content or "", f"dialogueExamples {di}-{pi}")
                cc.set_name(msg, ex.name)
                if not cc.can_afford(msg.tokens):
                    break
                cc.insert(msg, "dialogueExamples")
                added += 1
            if added == 0:
                cc.remove_last("dialogueExamples")

    def finish(self, cc: ChatCompletion, budget: int) -> Assembly:
        ledger: list[LedgerRow] = []
        out: list[dict[str, str]] = []
        history_tokens = 0
        used = 3
        for slot in cc.slots:
            if slot is None:
                continue
            for m in slot.messages:
                if not m.content:
                    continue
                out.append(m.as_dict(name_last=cc.squashed))
                label = m.identifier
                if m.injected:
                    label = f"{m.identifier}(注入)"
                ledger.append(LedgerRow(label, m.role, m.tokens, m.content[:40].replace("\n", "⏎"), m.name))
                used += m.tokens
                if slot.identifier == "chatHistory" and m.identifier.startswith("chatHistory-"):
                    history_tokens += m.tokens
        count = sum(1 for m in out if m["role"] in ("user", "assistant"))
        if self.type in ("swipe", "regenerate", "continue"):
            count += 1
        last_in_context = max(0, len(self.s.chat) - count)
        fixed = used - history_tokens
        if budget > 0 and budget - fixed < budget / 4:
            self.warnings.append(
                f"固定部分占了 {fixed} / {budget} token，留给聊天历史的不到四分之一：可以关掉一些提示词条目或世界书条目"
            )
        if not self.dry_run:
            self.s.chat_metadata["lastInContextMessageId"] = last_in_context
        return Assembly(
            messages=out,
            ledger=ledger,
            warnings=self.warnings,
            budget=budget,
            used=used,
            history_tokens=history_tokens,
            in_context_count=count,
            last_in_context_index=last_in_context,
            gen_type=self.type,
            world_info_activated=list(self.activated),
        )


def generate(state: TavernState, gen_type: str = "normal", *, dry_run: bool = False) -> Assembly:
    """Assemble the Chat Completion messages for one generation of ``gen_type``.

    Never raises for bad content: an unexpected failure before the Prompt Manager step gives an
    empty assembly whose warning says what went wrong (the caller prints it).
    """
    generation = Generation(state, gen_type, dry_run=dry_run)
    try:
        return generation.run()
    except Exception as error:  # one bad card field must not take the program down
        warnings = [*generation.warnings, f"无法组装提示词（{type(error).__name__}: {error}）"]
        return Assembly([], [], warnings, 0, 0, 0, 0, 0, generation.type)


SubstituteFn = Callable[[str], str]
