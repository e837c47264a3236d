"""A message spoken by its character's voice (SillyTavern's TTS extension): ``pear tts`` and the page.

Back ends: ``browser`` (the page's own speech synthesis: no server, the page asks here only for the
text and the voice's name), an OpenAI-compatible ``/v1/audio/speech``, GPT-SoVITS's ``/tts``.  The
voice is the speaker's in ``[tts.voices]``, else ``[tts] voice``.  What a server answers is kept per
message in the chat's ``.cache/tts/`` under a hash of everything that made it (back end, address,
model, voice, speed, languages, text): played again, it is not asked for again.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import msgspec

from peargarden.errors import BadInput
from peargarden.extras.media_types import AUDIO_TYPES
from peargarden.extras.speech import openai_body, sovits_body, spoken_text
from peargarden.workspace import atomic
from peargarden.workspace.home import Home

from . import chat_files
from .settings import SpeechSettings, endpoint, off, speech_settings

if TYPE_CHECKING:
    from ..play.chat_core import ChatCore

TTS_CACHE = "tts"


class Line(msgspec.Struct, frozen=True):
    """What is spoken of a message, by whom and in which voice."""

    text: str
    speaker: str
    voice: str


class Audio(msgspec.Struct, frozen=True):
    data: bytes
    kind: str  # mp3, wav, ogg …
    cached: bool

    @property
    def content_type(self) -> str:
        return AUDIO_TYPES.get(self.kind, "application/octet-stream")


class Overrides(msgspec.Struct, frozen=True):
    """What ``pear tts`` flags say instead of ``[tts]``: an OpenAI-compatible endpoint, its model, a voice."""

    base_url: str = ""
    model: str = ""
    voice: str = ""


def line_of(home: Home, session: ChatCore, index: int, cfg: SpeechSettings | None = None, voice: str = "") -> Line:
    """Message *index* as it is spoken: the text (SillyTavern's options), its speaker and voice."""
    cfg = cfg or speech_settings(home)
    entry = chat_files.message_at(session, index)
    options = {"quotes_only": cfg.quotes_only, "skip_asterisks": cfg.skip_asterisks, "skip_code": cfg.skip_code}
    text = spoken_text(chat_files.content_of(entry), **options)
    if not text:
        raise BadInput(f"第 {index} 条没有要念的文字")
    fallback = session.env.user_name if entry.role == "user" else session.env_of(entry).char_name
    speaker = str(entry.message.get("name") or fallback)
    return Line(text, speaker, voice or cfg.voices.get(speaker) or cfg.voice)


def speak(home: Home, session: ChatCore, index: int, overrides: Overrides | None = None) -> Audio:
    """Message *index* as audio from the configured server (or the one *overrides* names)."""
    given = overrides or Overrides()
    cfg = speech_settings(home)
    # Flags change the configured server's address; with none configured (or the browser's) they name
    # an OpenAI-compatible one.
    backend = cfg.backend if not given.base_url or cfg.backend in ("openai", "gpt-sovits") else "openai"
    if not backend:
        raise off("tts")
    if backend == "browser":
        raise BadInput(
            '[tts] backend = "browser" 用网页里浏览器自己的语音朗读，没有音频文件',
            hint="要文件请用 --base-url 指一个 OpenAI 兼容的语音服务",
        )
    line = line_of(home, session, index, cfg, given.voice)
    connection = "" if given.base_url else cfg.connection
    found = endpoint(home, "tts", given.base_url or cfg.base_url, cfg.api_key_env, connection)
    if not found.base_url:
        raise BadInput(f"[tts] backend = {backend!r} 需要 base_url（服务器地址）")
    model = given.model or cfg.model
    if backend == "openai":
        body = openai_body(line.text, model, line.voice, cfg.speed)
    else:
        body = sovits_body(line.text, line.voice, cfg.text_lang, cfg.prompt_lang, cfg.speed)
    made_of = json.dumps([backend, found.base_url, body], ensure_ascii=False, sort_keys=True)
    key = hashlib.sha256(made_of.encode("utf-8")).hexdigest()[:24]
    folder = chat_files.chat_dir(session) / chat_files.CACHE_DIR / TTS_CACHE
    for kind in AUDIO_TYPES:
        kept = folder / f"{key}.{kind}"
        if kept.is_file():
            return Audio(kept.read_bytes(), kind, True)
    from peargarden.providers.speech import synthesize

    data, kind = synthesize(backend, found.base_url, found.api_key, body)
    atomic.write_cache(folder / f"{key}.{kind}", data)
    return Audio(data, kind, False)
