"""The activation loop: SillyTavern 1.12.6 ``checkWorldInfo`` as a pure function."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from peargarden.text.jsstring import js_trim

from . import _js
from ._buffer import ScanBuffer
from ._groups import filter_by_inclusion_groups
from ._placement import build_result
from ._plan import SUBSTRING_LOWER, EntryPlan, key_test, macro_is_stable, run_test, strict_int
from ._prepared import Prepared
from ._timed import TimedEffects, ensure_metadata
from .types import (
    CharacterContext,
    JSONValue,
    ScanMessage,
    WorldInfoEntry,
    WorldInfoResult,
    WorldInfoSettings,
)

TokenCounter = Callable[[str], int]
Transform = Callable[[str, WorldInfoEntry], str]

# Scan states (ST ``scan_state``); NONE ends the loop.
NONE, INITIAL, RECURSION, MIN_ACTIVATIONS = 0, 1, 2, 3

AND_ANY, NOT_ALL, NOT_ANY, AND_ALL = 0, 1, 2, 3


_AVATAR_EXTENSION = re.compile(r"\.[^/.]+\Z")


def _identity(text: str) -> str:
    return text


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)  # Math.round: halves go up, unlike Python's round()


def budget_for(settings: WorldInfoSettings, max_context: int) -> int:
    """``round(budget% × max_context / 100) || 1``, then the absolute cap."""
    budget = _js_round(settings.budget_percent * max_context / 100) or 1
    if settings.budget_cap > 0 and budget > settings.budget_cap:
        budget = settings.budget_cap
    return budget


class _Scan:
    """State of one ``checkWorldInfo`` call."""

    def __init__(
        self,
        entries: Sequence[WorldInfoEntry],
        messages: Sequence[ScanMessage],
        settings: WorldInfoSettings,
        count_tokens: TokenCounter,
        macro: Callable[[str], str],
        inject_scan: Sequence[str],
        character: CharacterContext | None,
    ) -> None:
        self.settings = settings
        self.count_tokens = count_tokens
        self.macro = macro
        self.character = character
        self.warnings: list[str] = []
        self.entries = [Prepared(e, i) for i, e in enumerate(entries)]
        lines = [f"{m.name}: {m.text}" if settings.include_names else m.text for m in reversed(messages)]
        self.chat_size = len(lines)
        self.buffer = ScanBuffer(lines, settings.depth)
        for text in inject_scan:
            if text:
                self.buffer.inject.append(text)
        self._warned_keys: set[str] = set()
        self._macro_cache: dict[str, str] = {}

    def tokens(self, text: str) -> int:
        return self.count_tokens(text) if text else 0

    # -- key matching -------------------------------------------------------------------------

    def _flags(self, plan: EntryPlan) -> tuple[bool, bool]:
        return plan.flags(self.settings.case_sensitive, self.settings.match_whole_words)

    def warn_invalid_keys(self) -> None:
        for entry in self.entries:
            for key in entry.plan.invalid_keys:
                if entry.plan.disabled or key in self._warned_keys:
                    continue
                self._warned_keys.add(key)
                self.warnings.append(
                    f"世界书条目 {entry.timed_key} 的正则关键词无法解析，按普通文字匹配: {key}"
                    f" (invalid regex key, matched as text)"
                )

    def _match(self, entry: Prepared, text: str, key: str, flags: tuple[bool, bool]) -> bool:
        return run_test(key_test(key, flags[0], flags[1]), text, self.buffer.lower(text))

    def _key_hit(self, entry: Prepared, text: str, key: str, needs_macro: bool, flags: tuple[bool, bool]) -> bool:
        if needs_macro:
            substituted = self._macro_cache.get(key)
            if substituted is None:
                substituted = self.macro(key)
                if macro_is_stable(key):
                    self._macro_cache[key] = substituted
        else:
            substituted = key
        return bool(substituted) and self._match(entry, text, js_trim(substituted), flags)

    def score(self, entry: Prepared, state: int) -> int:
        """``buffer.getScore``: matched keys (no macros, no trim — as in SillyTavern)."""
        text = self.buffer.text(entry.plan.scan_depth, state == MIN_ACTIVATIONS)
        flags = self._flags(entry.plan)
        primary_keys = entry.get("key")
        secondary_keys = entry.get("keysecondary")
        primary = secondary = 0
        n_primary = n_secondary = 0
        if isinstance(primary_keys, list):
            n_primary = len(primary_keys)
            primary = sum(1 for k in primary_keys if self._match(entry, text, _js.to_string(k), flags))
        if isinstance(secondary_keys, list):
            n_secondary = len(secondary_keys)
            secondary = sum(1 for k in secondary_keys if self._match(entry, text, _js.to_string(k), flags))
        if not n_primary:
            return 0
        if n_secondary > 0:
            logic = strict_int(entry.get("selectiveLogic"))
            if logic == AND_ANY:
                return primary + secondary
            if logic == AND_ALL:
                return primary + secondary if secondary == n_secondary else primary
        return primary

    def _secondary_ok(self, entry: Prepared, text: str, flags: tuple[bool, bool]) -> bool:
        plan = entry.plan
        logic = plan.logic
        any_hit, all_hit = False, True
        for key, needs_macro in plan.secondary or ():
            hit = self._key_hit(entry, text, key, needs_macro, flags)
            any_hit = any_hit or hit
            all_hit = all_hit and hit
            if logic == AND_ANY and hit:
                return True
            if logic == NOT_ALL and not hit:
                return True
        if logic == NOT_ANY and not any_hit:
            return True
        return logic == AND_ALL and all_hit

    # -- filters ------------------------------------------------------------------------------

    def _filtered_by_character(self, flt: Mapping[str, Any]) -> bool:
        exclude = _js.truthy(_js.get(flt, "isExclude"))
        names = _js.get(flt, "names")
        if isinstance(names, list) and len(names) > 0:
            # ST compares with getCharaFilename(): the avatar file name without its extension.
            avatar = _AVATAR_EXTENSION.sub("", self.character.avatar) if self.character else None
            included = avatar is not None and avatar in names
            if included if exclude else not included:
                return True
        tags = _js.get(flt, "tags")
        if isinstance(tags, list) and len(tags) > 0 and self.character and self.character.tags is not None:
            includes_tag = any(t in tags for t in self.character.tags)
            if includes_tag if exclude else not includes_tag:
                return True
        return False


def check_world_info(
    entries: Sequence[WorldInfoEntry],
    messages: Sequence[ScanMessage],
    settings: WorldInfoSettings,
    *,
    max_context: int,
    count_tokens: TokenCounter,
    random: Callable[[], float],
    macro: Callable[[str], str] = _identity,
    transform: Transform | None = None,
    inject_scan: Sequence[str] = (),
    timed_world_info: Mapping[str, JSONValue] | None = None,
    chat_length: int | None = None,
    dry_run: bool = False,
    character: CharacterContext | None = None,
    trigger: str | None = None,
    match_texts: Mapping[str, str] | None = None,
    ignore_budget: bool = False,
) -> WorldInfoResult:
    """Run one world-info scan.  See the package docstring for every argument.

    SillyTavern 1.18 additions (off unless given): ``trigger`` — the generation type, checked
    against an entry's ``triggers``; ``match_texts`` — the texts of the ``match*`` flags (keys of
    ``_plan.MATCH_SOURCES``); ``ignore_budget`` — an entry that crosses the budget is skipped and
    only ``ignoreBudget`` entries follow (1.12 stops at the first crossing entry).
    """
    scan = _Scan(entries, messages, settings, count_tokens, macro, inject_scan, character)
    budget = budget_for(settings, max_context)
    metadata = ensure_metadata(timed_world_info)
    timed = TimedEffects(metadata, len(messages) if chat_length is None else chat_length, scan.entries)
    if not dry_run:
        timed.check()
    if not scan.entries:
        return WorldInfoResult(timed_world_info=metadata, budget=budget)
    scan.warn_invalid_keys()

    levels = sorted({e.plan.delay_recursion for e in scan.entries if e.plan.delay_recursion})
    level = levels.pop(0) if levels else 0.0

    state = INITIAL
    overflowed = False
    loops = 0
    activated: dict[int, Prepared] = {}  # insertion-ordered set, keyed by id()
    activated_loop: dict[int, int] = {}
    failed: set[int] = set()
    activated_text = ""
    buffer = scan.buffer

    while state:
        if settings.max_recursion_steps and settings.max_recursion_steps <= loops:
            break
        loops += 1
        next_state = NONE
        candidates: list[Prepared] = []
        min_act = state == MIN_ACTIVATIONS

        timed_any = timed.any_active()
        # The scan text only changes between loops: fetch the default-depth one once.
        default_text = buffer.text(None, min_act)
        default_lower = buffer.lower(default_text)
        global_flags = (settings.case_sensitive, settings.match_whole_words)
        for entry in scan.entries:
            ident = id(entry)
            if ident in failed or ident in activated:
                continue
            plan = entry.plan
            if plan.disabled:
                continue
            if trigger is not None and plan.triggers and trigger not in plan.triggers:
                continue
            if plan.character_filter is not None and scan._filtered_by_character(plan.character_filter):
                continue
            sticky = False
            if timed_any:
                sticky = timed.is_active("sticky", entry)
                if timed.is_active("delay", entry):
                    continue
                if timed.is_active("cooldown", entry) and not sticky:
                    continue
            delay_rec = plan.delay_recursion
            if delay_rec and not sticky and (state != RECURSION or delay_rec > level):
                continue
            if state == RECURSION and settings.recursive and plan.exclude_recursion and not sticky:
                continue
            if plan.decorators:
                if "@@activate" in plan.decorators:
                    candidates.append(entry)
                    continue
                if "@@dont_activate" in plan.decorators:
                    continue
            if plan.constant or sticky:
                candidates.append(entry)
                continue
            keys = plan.keys
            if keys is None:
                continue
            extras = _match_extras(plan, match_texts) if match_texts and plan.match_sources else ()
            if plan.scan_depth is None and not extras:
                text, lower = default_text, default_lower
            else:
                text = buffer.text(plan.scan_depth, min_act, extras)
                lower = buffer.lower(text)
            flags = plan.flags(*global_flags)
            for (key, needs_macro), test in zip(keys, plan.primary_tests(flags), strict=True):
                if test is None:
                    if scan._key_hit(entry, text, key, needs_macro, flags):
                        break
                elif test[0] == SUBSTRING_LOWER:  # the common case, inlined
                    if test[1] in lower:
                        break
                elif run_test(test, text, lower):
                    break
            else:
                continue
            if plan.secondary is None or scan._secondary_ok(entry, text, flags):
                candidates.append(entry)

        # Sticky entries first, then scan order (the budget is spent in this order).
        if timed_any:
            candidates.sort(key=lambda e: (0 if timed.is_active("sticky", e) else 1, e.index))
        new_entries = candidates  # already in scan order
        used = scan.tokens(activated_text)
        filter_by_inclusion_groups(
            new_entries,
            activated,
            timed,
            lambda e, s=state: scan.score(e, s),  # type: ignore[misc]
            settings.use_group_scoring,
            random,
        )

        content = ""
        ignoring_left = sum(1 for e in new_entries if _ignores_budget(e)) if ignore_budget else 0
        for entry in new_entries:
            free = ignore_budget and _ignores_budget(entry)
            if ignore_budget:
                ignoring_left -= 1 if free else 0
                if overflowed and not free:
                    if ignoring_left > 0:
                        continue
                    break
            if not _probability_ok(entry, timed, random):
                failed.add(id(entry))
                continue
            entry.content = macro(entry.content)
            content += entry.content + "\n"
            if not free and used + scan.tokens(content) >= budget:
                if not overflowed:
                    scan.warnings.append(
                        f"世界书预算 {budget} tokens 已用尽，已激活 {len(activated)} 条"
                        f" (world info budget reached after {len(activated)} entries)"
                    )
                overflowed = True
                if ignore_budget:
                    continue
                break
            activated[id(entry)] = entry
            activated_loop[id(entry)] = loops

        ok = [e for e in new_entries if id(e) not in failed]
        for_recursion = [e for e in ok if not _js.truthy(e.get("preventRecursion"))]

        if settings.recursive and not overflowed and for_recursion:
            next_state = RECURSION
        if settings.recursive and not overflowed and state == MIN_ACTIVATIONS and buffer.recurse:
            next_state = RECURSION
        if (
            not next_state
            and not overflowed
            and settings.min_activations > 0
            and len(activated) < settings.min_activations
        ):
            over_max = (
                settings.min_activations_depth_max > 0 and buffer.depth() > settings.min_activations_depth_max
            ) or buffer.depth() > scan.chat_size
            if not over_max:
                next_state = MIN_ACTIVATIONS
                buffer.advance()
        if next_state == NONE and levels:
            next_state = RECURSION
            level = levels.pop(0)

        state = next_state
        if state:
            text = "\n".join(e.content for e in for_recursion)
            buffer.add_recurse(text)
            activated_text = text + "\n" + activated_text

    activated_list = list(activated.values())
    if not dry_run:
        timed.record(activated_list)
    return build_result(
        activated_list,
        [activated_loop[id(e)] for e in activated_list],
        transform,
        metadata=metadata,
        budget=budget,
        overflowed=overflowed,
        warnings=scan.warnings,
    )


def _ignores_budget(entry: Prepared) -> bool:
    return entry.plan.ignore_budget


def _match_extras(plan: EntryPlan, match_texts: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(match_texts[flag] for flag in plan.match_sources if match_texts.get(flag))


def _probability_ok(entry: Prepared, timed: TimedEffects, random: Callable[[], float]) -> bool:
    probability = entry.get("probability")
    if not _js.truthy(entry.get("useProbability")) or strict_int(probability) == 100:
        return True
    if timed.is_active("sticky", entry):
        return True
    roll = random() * 100
    if probability is _js.UNDEFINED:
        return False  # roll <= undefined is false
    chance = _js.to_number(probability)
    # ST: ``Math.random() * 100 <= probability``.  Only an exact 0.0 roll (a 2**-53 event in ST) could
    # let probability 0 through; an injected 0.0 must not, so "never" holds for every roll.
    return chance > 0 and roll <= chance
