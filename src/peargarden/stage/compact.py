"""The stage request for a small model (under a few billion parameters, e.g. the embedded one).

A 0.5B model cannot follow the full stage prompt (tool rules, draft sheet, message conventions:
~2,300 characters before the card) and loses the character in it.  This profile sends:

* a short system prompt: who to play, the card's description, personality and scenario, the user's
  part, the constant lore, and four plain rules (Chinese, one in-character reply, never the
  user's part, never the user's words again) — about 800 tokens for 青梧 with 栖水镇;
* the card's example dialogue as a few-shot pattern in the system prompt (``旅人：…`` / ``青梧：…``
  lines the model copies in tone and length; as separate turns they would merge with the greeting);
* lore the keyword scan hit as bodies in the system prompt (passive: nothing to look up);
* no tools, no injection of titles, no thinking.

Pure functions: the caller (``modes/stage/request.py``) decides when the profile applies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .assemble import LoreCorpus, StageRequest, StageSettings, scan_texts
from .card import StageCard, apply_macros
from .lore.entries import LoreEntry
from .messages import Role, Turn, merge_turns

__all__ = ["compact_beat", "compact_system", "example_turns", "stop_words"]

# Lore bodies longer than this are cut (a small model's context and attention are short).
_LORE_BODY_CHARS = 400
_DESCRIPTION_CHARS = 1200
_EXAMPLE_TURNS = 6


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


def example_turns(mes_example: str, char: str, user: str) -> list[Turn]:
    """The card's example dialogue as alternating turns (``<START>`` blocks, ``名字：`` lines).

    Lines are attributed by their speaker prefix (``{{user}}``/``{{char}}`` or the names, with a
    full-width or ASCII colon); a line without a prefix continues the previous turn.  At most the
    first few turns are kept, starting with the user's.
    """
    text = apply_macros(mes_example, char, user)
    turns: list[Turn] = []
    speakers: dict[str, Role] = {user: "user", char: "assistant"}
    pattern = re.compile(rf"^\s*({re.escape(user)}|{re.escape(char)})\s*[:：]\s*(.*)$")
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.upper().startswith("<START>"):
            continue
        found = pattern.match(line)
        if found:
            role = speakers[found.group(1)]
            turns.append(Turn(role, found.group(2).strip()))
        elif turns:
            turns[-1] = Turn(turns[-1].role, turns[-1].text + "\n" + line)
    while turns and turns[0].role != "user":
        turns.pop(0)
    merged = merge_turns(turns)[:_EXAMPLE_TURNS]
    if merged and merged[-1].role == "user":
        merged = merged[:-1]
    return merged


def compact_system(card: StageCard, settings: StageSettings, corpus: LoreCorpus, hits: Sequence[LoreEntry]) -> str:
    """The short system prompt (see the module docstring)."""
    char, user = card.name, settings.user_name

    def macros(text: str) -> str:
        return apply_macros(text, char, user).strip()

    parts = [f"你是{char}。下面是{char}的设定。", _cut(macros(card.description), _DESCRIPTION_CHARS)]
    if card.personality.strip():
        parts.append(f"性格：{macros(card.personality)}")
    if card.scenario.strip():
        parts.append(f"当前场景：{macros(card.scenario)}")
    persona = macros(settings.user_persona)
    parts.append(f"用户扮演{user}" + (f"：{persona}" if persona else "。"))
    lore = list(corpus.constants) + [h for h in hits if h not in corpus.constants]
    if lore:
        lines = [f"【{e.title or '设定'}】{_cut(macros(e.content), _LORE_BODY_CHARS)}" for e in lore]
        parts.append("世界设定：\n" + "\n".join(lines))
    examples = example_turns(card.mes_example, char, user)
    if examples:
        lines = [f"{user if t.role == 'user' else char}：{t.text}" for t in examples]
        parts.append("对话示例（只学语气和长短，不是已发生的剧情）：\n" + "\n".join(lines))
    parts.append(
        f"规则：用{settings.language or '中文'}写。只以{char}的身份说话和行动，每次写一段简短的回应"
        f"（对白加少量动作）。不要替{user}说话或行动，不要重复{user}说过的话，不要说自己是AI。"
    )
    return "\n\n".join(p for p in parts if p)


def stop_words(user: str) -> list[str]:
    """Where a small model starts writing the user's part: a new line opened by the user's name."""
    return [f"\n{user}：", f"\n{user}:", f"\n{user} :"]


def compact_beat(
    card: StageCard,
    settings: StageSettings,
    corpus: LoreCorpus,
    history: Sequence[Turn],
    user_text: str,
) -> StageRequest:
    """System prompt, few-shot turns, the story so far and the user's words; lore hits as bodies."""
    hits = corpus.scan(scan_texts(history, user_text), depth=settings.scan_depth, max_hits=settings.max_lore_hits)
    system = compact_system(card, settings, corpus, hits)
    turns = list(history)
    if user_text.strip():
        turns.append(Turn("user", user_text))
    messages = [{"role": t.role, "content": t.text} for t in merge_turns(turns)]
    return StageRequest(system, messages, (), tuple(hits), "")
