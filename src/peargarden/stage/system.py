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
SillyTavern's macros are substituted (see :mod:`.macros`).  With a :class:`~.part_budget.PartBudget`,
each file, card field, the persona and each constant lore entry larger than the whole request may be
is left out with a warning.  Nothing else here depends on the beat, so
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
from .part_budget import PartBudget

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


def _kept(budget: PartBudget | None, label: str, raw: str, render: Macros = str) -> str:
    """``render(raw)``, held to *budget* when there is one (a huge *raw* is not rendered at all)."""
    return render(raw) if budget is None else budget.keep_rendered(label, raw, render)


def card_projection(
    card: StageCard, user_name: str, macros: Macros | None = None, budget: PartBudget | None = None
) -> str:
    """``# 你扮演的角色：<name>`` with description, personality, scenario and example dialogue."""
    run = _or_plain(macros, card.name, user_name)

    def m(label: str, text: str) -> str:
        return _kept(budget, f"角色卡的{label}", text.strip(), run)

    parts: list[str] = []
    description = m("描述（description）", card.description) if card.description.strip() else ""
    if description:
        parts.append(description)
    personality = m("性格（personality）", card.personality) if card.personality.strip() else ""
    if personality:
        parts.append("## 性格\n" + personality)
    scenario = m("场景（scenario）", card.scenario) if card.scenario.strip() else ""
    if scenario:
        parts.append("## 当前场景\n" + scenario)
    examples = m("对话示例（mes_example）", card.mes_example) if card.mes_example.strip() else ""
    if examples:
        parts.append(f"## {EXAMPLE_HEADING}\n" + examples)
    if not parts:
        return ""
    return f"# 你扮演的角色：{card.name}\n\n" + "\n\n".join(parts)


def persona_block(
    user_name: str, user_persona: str, char_name: str, macros: Macros | None = None, budget: PartBudget | None = None
) -> str:
    body = _kept(budget, "用户人设", user_persona.strip(), _or_plain(macros, char_name, user_name))
    return f"# 用户扮演：{user_name}\n" + (body or f"（{user_name} 的具体形象由用户在剧情中自行呈现）")


def constant_lore_block(
    constants: Sequence[LoreEntry],
    char_name: str,
    user_name: str,
    macros: Macros | None = None,
    budget: PartBudget | None = None,
) -> str:
    """``# 世界设定（常驻事实）`` with one line per enabled constant entry, by ``order``."""
    m = _or_plain(macros, char_name, user_name)
    lines: list[str] = []
    for entry in sorted((e for e in constants if e.blue), key=lambda e: e.order):
        title = m(entry.comment.strip())
        label = f"【{title}】" if title else ""
        line = _kept(budget, f"常驻设定「{title or entry.uid}」", f"- {label}{m(entry.content.strip())}")
        if line:
            lines.append(line)
    return "# 世界设定（常驻事实）\n" + "\n".join(lines) if lines else ""


def _card_system_prompt(card: StageCard, macros: Macros, budget: PartBudget | None) -> str:
    text = card.system_prompt.replace("{{original}}", "").strip()
    if not text:
        return ""
    kept = _kept(budget, "角色卡的系统提示（system_prompt）", text, macros)
    return "# 卡作者附加指令（优先级最高）\n" + kept if kept else ""


def build_system_prompt(
    files: PromptFiles,
    card: StageCard,
    *,
    user_name: str,
    user_persona: str = "",
    lore: Sequence[LoreEntry] = (),
    tool_names: Collection[str] = (),
    macros: Macros | None = None,
    budget: PartBudget | None = None,
) -> SystemPrompt:
    """The whole system prompt for a stage beat.  *macros* runs over every piece taken from the card,
    the lore and the prompt files (default: only ``{{char}}``/``{{user}}``); *budget* leaves out a
    piece larger than the whole request may be (its warnings are the budget's to give)."""
    warnings: list[str] = []
    base = _kept(budget, "SYSTEM.md", (files.system or "").strip())
    if not base and not (files.system or "").strip():
        base = files.bundled_system.strip()
        warnings.append(SYSTEM_FALLBACK_WARNING)
    head = "\n\n".join(p for p in (base, f"Current working directory: {files.working_directory}") if p)

    m = _or_plain(macros, card.name, user_name)
    sections: list[str] = [head]
    layers = (("全局的 APPEND_SYSTEM.md", files.global_append), ("卡的 APPEND_SYSTEM.md", files.card_append))
    for label, layer in layers:
        rendered = _kept(budget, label, layer or "", lambda text: m(render_for_model(text)))
        if rendered:
            sections.append(rendered)
    dossier = has_dossier(files.agents)
    if dossier:
        # The mirror is applied in memory too, so the prompt is current even before the file is synced.
        mirrored = sync_lorebook_mirror(files.agents or "", lore)
        rendered = _kept(budget, "AGENTS.md", mirrored, lambda text: m(render_for_model(text)))
        if rendered:
            sections.append(rendered)
    else:
        projection = card_projection(card, user_name, m, budget)
        if projection:
            sections.append(projection)
    sections.append(persona_block(user_name, user_persona, card.name, m, budget))
    if not dossier:
        constants = constant_lore_block(lore, card.name, user_name, m, budget)
        if constants:
            sections.append(constants)
    sections.append(message_conventions(tool_names))
    if not dossier:
        extra = _card_system_prompt(card, m, budget)
        if extra:
            sections.append(extra)
    return SystemPrompt("\n\n".join(sections), tuple(warnings))
