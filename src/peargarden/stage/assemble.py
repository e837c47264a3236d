"""One stage beat, assembled: system prompt, messages with the injection, the keyword hits.

:class:`LoreCorpus` holds what does not change between beats (the merged entries, the keyword
automaton, the title index); build it once per set of mounted books and reuse it, so a beat costs
one scan of the recent messages however large the books are.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import msgspec

from peargarden.stage.lore.entries import LoreEntry
from peargarden.stage.lore.index import title_index_block
from peargarden.stage.lore.scan import DEFAULT_MAX_HITS, DEFAULT_SCAN_DEPTH, KeywordScanner, ShortKeyRule
from peargarden.text.regex_scripts import RegexSet  # the `regex` library itself loads with a card's first script

from .card import StageCard
from .injection import build_injection
from .macros import Macros, plain_macros
from .messages import Turn, build_messages, merge_turns
from .part_budget import PartBudget
from .regex import regexed_story
from .system import PromptFiles, build_system_prompt, has_dossier

__all__ = ["LoreCorpus", "StageRequest", "StageSettings", "assemble_beat", "scan_texts"]


class StageSettings(msgspec.Struct, frozen=True):
    user_name: str = "旅人"
    user_persona: str = ""
    language: str = ""  # "" = not known: the prompt states no language
    scan_depth: int = DEFAULT_SCAN_DEPTH
    max_lore_hits: int = DEFAULT_MAX_HITS
    # SillyTavern's macro pipeline for this beat (see :mod:`.macros`); None = {{char}}/{{user}} only.
    macros: Macros | None = None
    # The regex scripts that run (global, plus the card's own when allowed); None = none.
    regex: RegexSet | None = None
    # The tokens the whole request may take (``context_tokens`` − ``reserve_tokens``), counted with
    # *count*: every part larger is left out (``part_budget``).  None = no budget (a dry assembly).
    budget_tokens: int | None = None
    count: Callable[[str], int] = len


class LoreCorpus:
    """The effective entries of a card (mounted books, then the supplement book), ready to use."""

    def __init__(self, entries: Sequence[LoreEntry], *, short_keys: ShortKeyRule = "edges") -> None:
        self.entries: tuple[LoreEntry, ...] = tuple(entries)
        self.constants: tuple[LoreEntry, ...] = tuple(e for e in self.entries if e.blue)
        self.scanner = KeywordScanner(self.entries, short_keys=short_keys)
        self.index_block = title_index_block(self.entries)

    def scan(
        self, texts: Sequence[str], *, depth: int = DEFAULT_SCAN_DEPTH, max_hits: int = DEFAULT_MAX_HITS
    ) -> list[LoreEntry]:
        return self.scanner.scan(texts, depth=depth, max_hits=max_hits)


class StageRequest(msgspec.Struct, frozen=True):
    system: str
    messages: list[dict[str, str]]
    warnings: tuple[str, ...]
    hits: tuple[LoreEntry, ...]
    injection: str
    # The story as sent: the history and the new words after the prompt-time regex scripts.
    history: tuple[Turn, ...] = ()
    words: str = ""


def scan_texts(history: Sequence[Turn], user_text: str) -> list[str]:
    """The messages the keyword scan sees: merged history texts, then the new words."""
    texts = [turn.text for turn in merge_turns(history)]
    if user_text.strip():
        texts.append(user_text.strip())
    return texts


def assemble_beat(
    files: PromptFiles,
    card: StageCard,
    settings: StageSettings,
    corpus: LoreCorpus,
    history: Sequence[Turn],
    user_text: str,
    *,
    thinking: str | None,
    tool_names: Collection[str] = (),
    summary: str = "",
    world_state: str | None = None,
    roster: str | None = None,
    panels: str | None = None,
    memory: str | None = None,
) -> StageRequest:
    """Everything a stage beat sends to the model, except the tool list."""
    macros = settings.macros or plain_macros(card.name, settings.user_name)
    budget = PartBudget(settings.budget_tokens, settings.count) if settings.budget_tokens is not None else None
    if settings.regex is not None:
        history, user_text = regexed_story(history, user_text, settings.regex, macros)
    system = build_system_prompt(
        files,
        card,
        user_name=settings.user_name,
        user_persona=settings.user_persona,
        lore=corpus.constants,
        tool_names=tool_names,
        macros=macros,
        budget=budget,
    )
    hits = corpus.scan(scan_texts(history, user_text), depth=settings.scan_depth, max_hits=settings.max_lore_hits)
    injection = build_injection(
        hits=hits,
        thinking=thinking,
        index_block=corpus.index_block,
        language=settings.language,
        char_name=card.name,
        user_name=settings.user_name,
        post_history="" if has_dossier(files.agents) else card.post_history_instructions,
        world_state=world_state,
        roster=roster,
        panels=panels,
        memory=memory,
        macros=macros,
        budget=budget,
    )
    messages = build_messages(history, user_text, injection.text, summary=summary)
    warnings = (*system.warnings, *(budget.warnings if budget is not None else ()))
    return StageRequest(system.text, messages, warnings, injection.hits, injection.text, tuple(history), user_text)
