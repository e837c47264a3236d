"""The card dossier ``AGENTS.md``: creating it from the card, and mirroring constant lore into it.

Without ``AGENTS.md`` the stage projects the card fields and the constant lore into the system prompt
by itself.  Once the file exists it is authoritative and the projection stops, so:

* :func:`agents_from_projection` writes everything the projection would have said — the card fields,
  the constant lore, the card's ``system_prompt`` and ``post_history_instructions`` — as
  program-owned entries (``（角色卡）`` / ``（世界书·<书名>）``), so nothing the card said is lost;
* :func:`sync_lorebook_mirror` keeps the ``（世界书·<书名>）`` entries equal to the current constant
  set of the mounted books (spec §8.10): mount ⇒ they appear, unmount ⇒ they go, edits follow.  The
  user's own entries are never touched; a mirrored entry the user switched off stays off.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from peargarden.stage.lore.entries import LoreEntry

from .card import StageCard
from .entries import (
    CARD_SUFFIX,
    escape_body,
    format_entry,
    lorebook_suffix,
    parse_entries,
    unique_entry_name,
)

__all__ = [
    "EXAMPLE_HEADING",
    "SUPPLEMENT_BOOK_LABEL",
    "MirrorEntry",
    "agents_from_projection",
    "mirror_entries",
    "sync_lorebook_mirror",
]

EXAMPLE_HEADING = "对白示例（仅供文风与语气参考，不是已发生的剧情）"
# The overlay's constants are mirrored under this book name.
SUPPLEMENT_BOOK_LABEL = "补充设定"


class MirrorEntry(msgspec.Struct, frozen=True):
    name: str  # with its suffix
    content: str


def mirror_entries(constants: Sequence[LoreEntry], *, used: Sequence[str] = ()) -> list[MirrorEntry]:
    """The mirrored entries for the enabled constant entries, sorted by ``order``, names unique."""
    taken = set(used)
    out: list[MirrorEntry] = []
    for entry in sorted((e for e in constants if e.blue), key=lambda e: e.order):
        book = SUPPLEMENT_BOOK_LABEL if entry.overlay else (entry.book or "世界书")
        name = unique_entry_name(entry.title or "常驻设定", lorebook_suffix(book), taken)
        taken.add(name)
        out.append(MirrorEntry(name, entry.content.strip()))
    return out


def agents_from_projection(card: StageCard, constants: Sequence[LoreEntry]) -> str:
    """A new ``AGENTS.md`` that says everything the card projection said, as program-owned entries."""
    fields = [
        ("角色描述", card.description),
        ("性格", card.personality),
        ("当前场景", card.scenario),
        (EXAMPLE_HEADING, card.mes_example),
        ("卡作者附加指令", card.system_prompt),
        ("卡作者末端指令", card.post_history_instructions),
    ]
    blocks = [f"# {card.name}\n" if card.name else ""]
    used: list[str] = []
    for title, text in fields:
        if text.strip():
            name = unique_entry_name(title, CARD_SUFFIX, used)
            used.append(name)
            blocks.append(format_entry(name, text))
    blocks.extend(format_entry(m.name, m.content) for m in mirror_entries(constants, used=used))
    return "\n".join(block for block in blocks if block)


def sync_lorebook_mirror(agents: str, constants: Sequence[LoreEntry]) -> str:
    """*agents* with its ``（世界书·…）`` entries replaced by the current constant set.

    Returns *agents* unchanged (the same string) when the mirror is already current.  The new group
    takes the place of the first old mirrored entry, or goes to the end of the file.
    """
    entries = parse_entries(agents)
    own = [e.name for e in entries if e.source != "lorebook"]
    wanted = mirror_entries(constants, used=own)
    current = [e for e in entries if e.source == "lorebook"]
    if [(e.name, e.content) for e in current] == [(m.name, escape_body(m.content)) for m in wanted]:
        return agents
    disabled = {e.name for e in current if not e.enabled}
    group = "\n".join(format_entry(m.name, m.content, m.name not in disabled) for m in wanted)
    lines = agents.split("\n")
    if current:
        # Cut every old mirrored span, remembering where the first one was.
        anchor = current[0].start
        keep = [True] * len(lines)
        for entry in current:
            for index in range(entry.start, entry.end):
                keep[index] = False
            # Blank lines after a cut entry go with it.
            index = entry.end
            while index < len(lines) and not lines[index].strip():
                keep[index] = False
                index += 1
        before = [line for i, line in enumerate(lines[:anchor]) if keep[i]]
        after = [line for i, line in enumerate(lines[anchor:], start=anchor) if keep[i]]
        head = "\n".join(before).rstrip("\n")
        tail = "\n".join(after).strip("\n")
        pieces = [p for p in (head, group.rstrip("\n"), tail) if p]
        return "\n\n".join(pieces) + "\n"
    if not wanted:
        return agents
    head = agents.rstrip()
    return f"{head}\n\n{group}" if head else group
