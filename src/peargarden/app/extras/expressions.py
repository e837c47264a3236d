"""The expression of a reply and the card's sprite for it (SillyTavern's expressions extension).

Which label: the side model, asked one short question per reply (``[expressions] classify = "side"``,
or ``"auto"`` when the chat's side model is an endpoint rather than the small embedded model), else
the reply's own words (``"keywords"``, and ``"auto"`` with no endpoint or when the side model fails).
A label is kept per message in the chat's ``.cache/expressions.json`` with the text it was read from:
asked again, it is answered without a request; an edited message is read again.  Which picture: the
speaker card's sprite for the label, else the fallback label's (``[expressions] fallback``), else none.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import msgspec

from peargarden.errors import BadInput, ProviderError
from peargarden.extras.expressions import classify_request, keyword_label, labels_with, parse_label, pick_sprite
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import Home

from . import chat_files
from .settings import ExpressionSettings, expression_settings
from .sprites import by_label, card_sprites, sprite_path

if TYPE_CHECKING:
    from ..play.chat_core import ChatCore

CACHE_FILE = "expressions.json"


class Expression(msgspec.Struct, frozen=True):
    label: str
    sprite: str | None  # the sprite's name in the card's set (sprites.card_sprites), None when it has none
    by: str  # "side" (the side model), "keywords", or "kept" (read before)
    card: str  # the speaker's card folder


_CACHING = threading.Lock()


def _classify(
    session: ChatCore, cfg: ExpressionSettings, text: str, labels: list[str], char: str
) -> tuple[str, str]:
    """(label, by) for *text*: the side model when the settings ask for it, else the keywords."""
    use_side = cfg.classify == "side" or (cfg.classify == "auto" and not session.side_connection().embedded)
    if use_side:
        system, user = classify_request(text, labels, char, cfg.prompt)
        try:
            answer = session.side_call()(system, user, 200, purpose="expression")
        except ProviderError:
            if cfg.classify == "side":
                raise
            answer = ""
        found = parse_label(answer, labels)
        if found is not None:
            return found, "side"
        if cfg.classify == "side":
            raise ProviderError(f"表情（副模型）：回答里没有表情标签：{answer.strip()[:80]!r}")
    return keyword_label(text, labels) or "neutral", "keywords"


def speaker_card(session: ChatCore, entry_id: str) -> CardFolder:
    """The card whose character wrote a reply: a group chat's member, else the chat's card."""
    return session.env_of(session.chat.tree.get(entry_id)).folder


def expression_of(home: Home, session: ChatCore, index: int) -> Expression:
    """The expression of message *index* (a character's reply) and its speaker's sprite for it."""
    entry = chat_files.message_at(session, index)
    if entry.role != "assistant":
        raise BadInput(f"第 {index} 条不是角色的回复，没有表情")
    card = speaker_card(session, entry.id)
    char = str(entry.message.get("name") or session.env_of(entry).char_name)
    cfg = expression_settings(home)
    sprites = card_sprites(card)
    grouped = by_label(sprites)
    labels = labels_with(grouped)
    text = chat_files.content_of(entry)
    path = chat_files.chat_dir(session) / chat_files.CACHE_DIR / CACHE_FILE
    kept = chat_files.read_records(path, cache=True).get(entry.id)
    if isinstance(kept, dict) and kept.get("of") == chat_files.text_hash(text) and kept.get("label") in labels:
        label, by = str(kept["label"]), "kept"
    else:
        label, by = _classify(session, cfg, text, labels, char)
        with _CACHING:
            records = chat_files.read_records(path, cache=True)
            records[entry.id] = {"label": label, "of": chat_files.text_hash(text), "by": by}
            chat_files.write_records(path, records, cache=True)
    return Expression(label, pick_sprite(label, grouped, cfg.fallback), by, card.folder)


def sprite_location(card: CardFolder, name: str | None) -> str | None:
    """Where the sprite is, relative to the data folder (what ``pear expression --json`` prints)."""
    return None if name is None else sprite_path(card, name)
