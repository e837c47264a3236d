"""Generation steps that fill the extension-prompt table and convert the chat.

Character's note (``DEPTH_PROMPT``), Author's Note with its interval (``2_floating_prompt``), persona
placement, the "Start Reply With" bias, and ``setOpenAIMessages`` (roles, names behaviour).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from peargarden.text.jsstring import js_trim

from . import defaults as d
from .context import GenerationContext, _dict, _js_eq_number, _num, _role_by_name, _stripped
from .group_cards import group_depth_prompts
from .lazy_chat import ChatPair, LazyList


def set_depth_prompt(g: GenerationContext) -> None:
    """The character's note: ``DEPTH_PROMPT`` in chat at its depth and role (default 4, system)."""
    s = g.s
    s.table.delete_prefix(d.DEPTH_PROMPT_KEY)
    if s.cast is not None:
        # A JOIN group injects every unmuted member's note (``DEPTH_PROMPT_<i>``); SWAP, or a
        # group where nobody has one, falls through to the speaker's own.
        members = group_depth_prompts(s.cast, s.avatar, g.base_replace_as)
        for index, prompt in enumerate(members):
            allow_scan = s.note_settings.get("allowWIScan")
            role = _role_by_name(prompt.role)
            s.table.set(f"{d.DEPTH_PROMPT_KEY}_{index}", prompt.text, d.IN_CHAT, prompt.depth, allow_scan, role)
        if members:
            return
    dp = s.card_extensions.get("depth_prompt")
    dp = dp if isinstance(dp, dict) else {}
    text = g.base_replace(_stripped(dp.get("prompt")))
    depth = dp.get("depth") if dp.get("depth") is not None else 4
    role = _role_by_name(dp.get("role") if dp.get("role") is not None else "system")
    s.table.set(d.DEPTH_PROMPT_KEY, text, d.IN_CHAT, depth, s.note_settings.get("allowWIScan"), role)


def set_authors_note(g: GenerationContext) -> bool:
    """``setFloatingPrompt``: the Author's Note if due this turn (interval over user messages)."""
    """``setFloatingPrompt``; returns whether the note is active this turn."""
    s = g.s
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


def persona_position(g: GenerationContext) -> int:
    """The persona position, with the deprecated "after character" mapped to "in prompt"."""
    pos = g.s.power_user.get("persona_description_position", d.PERSONA_IN_PROMPT)
    if pos == d.PERSONA_AFTER_CHAR:
        return d.PERSONA_IN_PROMPT  # ST migrates the deprecated position on load
    return int(pos) if isinstance(pos, int | float) and not isinstance(pos, bool) else d.PERSONA_IN_PROMPT


def set_persona(g: GenerationContext, an_active: bool) -> None:
    """Persona around an active Author's Note, or at depth as ``PERSONA_DESCRIPTION`` (1.12.6 order)."""
    s = g.s
    pu = s.power_user
    s.table.set(d.PERSONA_KEY, "", d.IN_PROMPT, 0)
    persona = pu.get("persona_description")
    pos = persona_position(g)
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


def bias(g: GenerationContext) -> str:
    """ "Start Reply With": nearest user/system message's bias, else the global one (none for continue)."""
    if g.type in ("impersonate", "continue"):
        return ""
    prompt_bias = ""
    chat = g.s.chat
    for i in range(len(chat) - 1, -1, -1):
        m = chat[i]
        if g.type == "swipe" and i == len(chat) - 1:
            continue
        extra = _dict(m.get("extra"))
        if m.get("is_user") or m.get("is_system") or extra.get("type") == "narrator":
            b = extra.get("bias")
            if isinstance(b, str) and js_trim(b):
                prompt_bias = b
            break
    prompt_bias = prompt_bias or str(g.s.power_user.get("user_prompt_bias") or "")
    return g.sub(prompt_bias)


def openai_messages(g: GenerationContext, core: Sequence[ChatPair]) -> Sequence[dict[str, Any]]:
    """``setOpenAIMessages``: newest first, with role / name handling (text = after regex).

    Returned lazily: a message is converted when the history fill first reads it.
    """
    oai = g.s.oai
    behavior = oai.get("names_behavior", d.NAMES_DEFAULT)
    quotes = oai.get("wrap_in_quotes") and g.compat.wrap_in_quotes
    name1 = g.name1
    in_group = g.s.cast is not None

    def convert(index: int) -> dict[str, Any]:
        m, content = core[index]
        role = "user" if m.get("is_user") else "assistant"
        extra = m.get("extra")
        narrator = isinstance(extra, dict) and extra.get("type") == "narrator"
        if narrator:
            role = "system"
        name = m.get("name")
        if behavior == d.NAMES_DEFAULT:
            # In a group every message not by the user is prefixed (narrator ones too).
            if (in_group and name != name1) or (m.get("force_avatar") and name != name1 and not narrator):
                content = f"{name}: {content}"
        elif behavior == d.NAMES_CONTENT and not narrator:
            content = f"{name}: {content}"
        if "\r" in content:
            content = content.replace("\r", "")
        if quotes and role == "user":
            content = f'"{content}"'
        return {"role": role, "content": content, "name": name}

    return LazyList(len(core), convert)
