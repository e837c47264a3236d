"""A message translated, the original kept: SillyTavern's translate extension as a service.

A reply is translated into the user's language (``[translate] language``); the model keeps reading
the original.  An input is translated the other way before it is sent (``auto = "inputs"``): the
model gets the card's language (or ``model_language``), and the user's own words are kept as the
message's translation, one click away on the page.  Both live in the chat's ``translations.json``
(:mod:`.chat_files`), each naming the text it belongs to.

Back ends: the side model (one request, no key), LibreTranslate, DeepL or DeepLX (their HTTP in
:mod:`peargarden.providers.translators`).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import msgspec

from peargarden.errors import BadInput, ProviderError
from peargarden.extras.languages import language_code, script_code
from peargarden.extras.translation import BadAnswer, Translation, side_answer, side_request
from peargarden.stage.language import text_language
from peargarden.workspace.home import Home

from . import chat_files
from .settings import TranslateSettings, endpoint, off, translate_settings

if TYPE_CHECKING:
    from ..play.chat_core import ChatCore

__all__ = ["Translation", "card_language", "keep_input", "translate_message", "translate_text", "translations"]


class Record(msgspec.Struct, frozen=True):
    """One message's other-language text, as ``translations.json`` keeps it."""

    text: str  # the text in the user's language (a reply's translation, an input's own words)
    lang: str
    source_lang: str  # the language of the message's content
    kind: str  # "reply" (translated for reading) or "input" (sent translated)
    of: str  # the hash of the content it belongs to


def _records_path(session: ChatCore) -> Any:
    return chat_files.chat_dir(session) / chat_files.TRANSLATIONS_FILE


def card_language(session: ChatCore) -> str:
    """The card's own language as a code (from its text's script); ``""`` when it does not say."""
    fields = session.env.card.data
    text = "\n".join(str(fields.get(key) or "") for key in ("description", "personality", "scenario", "first_mes"))
    return script_code(text_language(text))


def _side(session: ChatCore, text: str, target: str) -> Translation:
    system, user = side_request(text, target)
    answer = session.side_call()(system, user, min(8192, 256 + 4 * len(text)), purpose="translate")
    try:
        translated = side_answer(answer, text)
    except BadAnswer as bad:
        raise ProviderError(f"翻译（副模型）：{bad}") from None
    return Translation(translated, script_code(text_language(text)))


def translate_text(
    home: Home, session: ChatCore, text: str, target: str, cfg: TranslateSettings | None = None
) -> Translation:
    """*text* into *target* (a language code) through the configured back end."""
    cfg = cfg or translate_settings(home)
    if not cfg.backend:
        raise off("translate")
    if not text.strip():
        raise BadInput("没有要翻译的文字")
    if cfg.backend == "side":
        return _side(session, text, target)
    if not cfg.base_url:
        raise BadInput(f"[translate] backend = {cfg.backend!r} 需要 base_url（服务器地址）")
    from peargarden.providers.translators import translate

    found = endpoint(home, "translate", cfg.base_url, cfg.api_key_env)
    return translate(cfg.backend, found.base_url, found.api_key, text, target)


def translations(session: ChatCore) -> dict[str, dict[str, Any]]:
    """The chat's kept translations by message id, only those whose message still says what they
    were made from."""
    records = chat_files.read_records(_records_path(session), cache=False)
    tree = session.chat.tree
    found: dict[str, dict[str, Any]] = {}
    for entry_id, record in records.items():
        if entry_id in tree and isinstance(record, dict):
            content = chat_files.content_of(tree.get(entry_id))
            if record.get("of") == chat_files.text_hash(content):
                found[entry_id] = record
    return found


# Two translations kept at once (two tabs, a reply and an input) must not lose one another.
_KEEPING = threading.Lock()


def _keep(session: ChatCore, entry_id: str, record: Record) -> None:
    path = _records_path(session)
    with _KEEPING:
        records = chat_files.read_records(path, cache=False)
        records[entry_id] = msgspec.to_builtins(record)
        chat_files.write_records(path, records, cache=False)


def translate_message(home: Home, session: ChatCore, index: int, to: str | None = None) -> Translation:
    """Message *index* into *to* (default: the user's language), kept beside it; a translation kept
    already for the same text and language is given back without asking again."""
    cfg = translate_settings(home)
    target = language_code(to or cfg.language, what="" if to else "[translate] language")
    entry = chat_files.message_at(session, index)
    content = chat_files.content_of(entry)
    kept = translations(session).get(entry.id)
    if kept is not None and kept.get("lang") == target and kept.get("kind") == "reply":
        return Translation(str(kept["text"]), str(kept.get("source_lang") or ""))
    result = translate_text(home, session, content, target, cfg)
    _keep(session, entry.id, Record(result.text, target, result.source_lang, "reply", chat_files.text_hash(content)))
    return result


def model_language(home: Home, session: ChatCore) -> str:
    """What an input is translated into for the model: ``model_language``, else the card's own."""
    cfg = translate_settings(home)
    if cfg.model_language:
        return language_code(cfg.model_language, what="[translate] model_language")
    found = card_language(session)
    if not found:
        raise BadInput("看不出这张卡用什么语言：在 [translate] model_language 里写明发给模型的语言")
    return found


def keep_input(home: Home, session: ChatCore, index: int, original: str) -> None:
    """Message *index* was sent translated: keep *original* (the user's words) as its translation."""
    entry = chat_files.message_at(session, index)
    if entry.role != "user":
        raise BadInput(f"第 {index} 条不是你发的消息")
    content = chat_files.content_of(entry)
    lang = language_code(translate_settings(home).language, what="[translate] language")
    try:
        source = model_language(home, session)  # what it was translated into for the model
    except BadInput:
        source = script_code(text_language(content))
    record = Record(original, lang, source, "input", chat_files.text_hash(content))
    _keep(session, entry.id, record)
