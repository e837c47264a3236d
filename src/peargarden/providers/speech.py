"""Speech servers: an OpenAI-compatible ``/v1/audio/speech`` and GPT-SoVITS's ``/tts`` (the bodies are
:mod:`peargarden.extras.speech`'s).  What comes back must be audio: an HTML page or a JSON error
served with 200 is one line, not a file of noise."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from peargarden.errors import ProviderError
from peargarden.extras.media_types import audio_kind

from .media_http import MediaClient, server_words

_NAMES = {"openai": "语音（OpenAI 兼容）", "gpt-sovits": "语音（GPT-SoVITS）"}


def speech_url(backend: str, base_url: str) -> str:
    """Where the request goes: OpenAI's ``…/v1/audio/speech`` (``/v1`` added to a bare address),
    GPT-SoVITS's ``…/tts``; an address that already ends so is taken as it is."""
    base = base_url.strip().rstrip("/")
    path = urlsplit(base).path
    if backend == "gpt-sovits":
        return base if path.endswith("/tts") else f"{base}/tts"
    if path.endswith("/audio/speech"):
        return base
    return f"{base}/audio/speech" if path.endswith("/v1") else f"{base}/v1/audio/speech"


def synthesize(backend: str, base_url: str, api_key: str, body: dict[str, Any]) -> tuple[bytes, str]:
    """The audio the server answers *body* with, and its kind (``mp3``, ``wav`` …)."""
    what = _NAMES[backend]
    url = speech_url(backend, base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    answer = MediaClient(what, timeout=180).post_json(url, body, headers)
    kind = audio_kind(answer.body)
    if kind is None:
        said = f"{answer.content_type or '?'}：{server_words(answer.body)}"
        raise ProviderError(f"{what}：{url} 的回答不是音频（{said}）")
    return answer.body, kind
