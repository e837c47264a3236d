"""The stage's system prompt: prompt files in a fixed order, each layer with its owner (spec §2.1–2.2).

1. ``SYSTEM.md`` (the base; missing or empty → the bundled copy and a warning every beat), then the
   working-directory line;
2. the global ``APPEND_SYSTEM.md`` (the role-play definition);
3. the card's ``APPEND_SYSTEM.md`` (the card's identity);
4. the card's ``AGENTS.md`` — or, without one, the projection of the card fields;
5. ``# 用户扮演：<name>``, always;
6. the constant lore (without ``AGENTS.md``; with it, the lore is mirrored into the dossier);
7. ``# 消息流约定``;
8. the card's ``system_prompt`` (without ``AGENTS.md``).

Prompt files pass through :func:`render_for_model` (disabled entries and notes stripped);
SillyTavern's macros are substituted (see :mod:`.macros`).  Nothing else here depends on the beat, so
the text is byte-stable within a session (prefix caches keep working) unless the card itself asks for
``{{random}}``-like macros; everything dynamic goes into the per-beat injection.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec

from peargarden.stage.lore.entries import LoreEntry

from .agents_file import EXAMPLE_HEADING, sync_lorebook_mirror
from .card import StageCard, apply_macros
from .conventions import message_conventions
from .entries import render_for_model
from .macros import Macros

__all__ = [
    "SYSTEM_FALLBACK_WARNING",
    "PromptFiles",
    "SystemPrompt",
    "build_system_prompt",
    "card_projection",
    "constant_lore_block",
    "has_dossier",
    "persona_block",
]

SYSTEM_FALLBACK_WARNING = "SYSTEM.md 缺失或为空，本拍用的是随包的默认版本。请在数据文件夹里恢复或编写 SYSTEM.md。"


class PromptFiles(msgspec.Struct, frozen=True):
    """The raw prompt files of a card (``None`` = the file does not exist)."""

    system: str | None
    bundled_system: str
    working_directory: str
    global_append: str | None = None
    card_append: str | None = None
    agents: str | None = None


class SystemPrompt(msgspec.Struct, frozen=True):
    text: str
    warnings: tuple[str, ...] = ()


def has_dossier(agents: str | None) -> bool:
    """The card runs in dossier mode when ``AGENTS.md`` has any non-blank text (judged on the raw
    file, so a dossier whose entries are all switched off still replaces the projection)."""
    return bool(agents and agents.strip())


def _or_plain(macros: Macros | None, char: str, user: str) -> Macros:
    return macros if macros is not None else (lambda text: apply_macros(text, char, user))


def card_projection(card: StageCard, user_name: str, macros: Macros | None = None) -> str:
    """``# 你扮演的角色：<name>`` with description, personality, scenario and example dialogue."""
    run = _or_plain(macros, card.name, user_name)

    def m(text: str) -> str:
        return run(text.strip())

    parts: list[str] = []
    if card.description.strip():
        parts.append(m(card.description))
    if card.personality.strip():
        parts.append("## 性格\n" + m(card.personality))
    if card.scenario.strip():
        parts.append("## 当前场景\n" + m(card.scenario))
    if card.mes_example.strip():
        parts.append(f"## {EXAMPLE_HEADING}\n" + m(card.mes_example))
    if not parts:
        return ""
    return f"# 你扮演的角色：{card.name}\n\n" + "\n\n".join(parts)


def persona_block(user_name: str, user_persona: str, char_name: str, macros: Macros | None = None) -> str:
    body = _or_plain(macros, char_name, user_name)(user_persona.strip())
    return f"# 用户扮演：{user_name}\n" + (body or f"（{user_name} 的具体形象由用户在剧情中自行呈现）")


def constant_lore_block(
    constants: Sequence[LoreEntry], char_name: str, user_name: str, macros: Macros | None = None
) -> str:
    """``# 世界设定（常驻事实）`` with one line per enabled constant entry, by ``order``."""
    m = _or_plain(macros, char_name, user_name)
    lines: list[str] = []
    for entry in sorted((e for e in constants if e.blue), key=lambda e: e.order):
        title = m(entry.comment.strip())
        label = f"【{title}】" if title else ""
        lines.append(f"- {label}{m(entry.content.strip())}")
    return "# 世界设定（常驻事实）\n" + "\n".join(lines) if lines else ""


def _card_system_prompt(card: StageCard, macros: Macros) -> str:
    text = card.system_prompt.replace("{{original}}", "").strip()
    if not text:
        return ""
    return "# 卡作者附加指令（优先级最高）\n" + macros(text)


def build_system_prompt(
    files: PromptFiles,
    card: StageCard,
    *,
    user_name: str,
    user_persona: str = "",
    lore: Sequence[LoreEntry] = (),
    tool_names: Collection[str] = (),
    macros: Macros | None = None,
) -> SystemPrompt:
    """The whole system prompt for a stage beat.  *macros* runs over every piece taken from the card,
    the lore and the prompt files (default: only ``{{char}}``/``{{user}}``)."""
    warnings: list[str] = []
    base = (files.system or "").strip()
    if not base:
        base = files.bundled_system.strip()
        warnings.append(SYSTEM_FALLBACK_WARNING)
    head = "\n\n".join(p for p in (base, f"Current working directory: {files.working_directory}") if p)

    m = _or_plain(macros, card.name, user_name)
    sections: list[str] = [head]
    for layer in (files.global_append, files.card_append):
        rendered = render_for_model(layer or "")
        if rendered:
            sections.append(m(rendered))
    dossier = has_dossier(files.agents)
    if dossier:
        # The mirror is applied in memory too, so the prompt is current even before the file is synced.
        rendered = render_for_model(sync_lorebook_mirror(files.agents or "", lore))
        if rendered:
            sections.append(m(rendered))
    else:
        projection = card_projection(card, user_name, m)
        if projection:
            sections.append(projection)
    sections.append(persona_block(user_name, user_persona, card.name, m))
    if not dossier:
        constants = constant_lore_block(lore, card.name, user_name, m)
        if constants:
            sections.append(constants)
    sections.append(message_conventions(tool_names))
    if not dossier:
        extra = _card_system_prompt(card, m)
        if extra:
            sections.append(extra)
    return SystemPrompt("\n\n".join(sections), tuple(warnings))
