"""Image servers: an OpenAI-compatible ``/v1/images/generations``, Stable Diffusion WebUI's
``/sdapi/v1/txt2img`` and ComfyUI's ``/prompt`` + ``/history`` + ``/view`` (the bodies are
:mod:`peargarden.extras.pictures`'s)."""

from __future__ import annotations

import time
import uuid
from typing import Any
from urllib.parse import urlsplit

from peargarden.errors import ProviderError
from peargarden.extras import pictures as pic
from peargarden.extras.media_types import image_kind

from .media_http import MediaClient, server_words

_NAMES = {"openai": "生图（OpenAI 兼容）", "sdwebui": "生图（Stable Diffusion WebUI）", "comfyui": "生图（ComfyUI）"}
# How long a ComfyUI prompt may run, and how often its history is read meanwhile.
COMFY_TIMEOUT = 600.0
COMFY_POLL = 0.5


def _openai_url(base_url: str) -> str:
    base = base_url.strip().rstrip("/")
    path = urlsplit(base).path
    if path.endswith("/images/generations"):
        return base
    return f"{base}/images/generations" if path.endswith("/v1") else f"{base}/v1/images/generations"


def generate(backend: str, base_url: str, api_key: str, body: dict[str, Any]) -> bytes:
    """The picture the server makes for *body* (a ComfyUI workflow for ``comfyui``)."""
    what = _NAMES[backend]
    client = MediaClient(what)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    base = base_url.strip().rstrip("/")
    try:
        if backend == "openai":
            url = _openai_url(base)
            answer = client.post_json(url, body, headers).json(what, url)
            data = answer.get("data") if isinstance(answer, dict) else None
            first = data[0] if isinstance(data, list) and data else {}
            return pic.picture_of(first.get("b64_json") if isinstance(first, dict) else None, what)
        if backend == "sdwebui":
            url = f"{base}/sdapi/v1/txt2img"
            answer = client.post_json(url, body, headers).json(what, url)
            images = answer.get("images") if isinstance(answer, dict) else None
            return pic.picture_of(images[0] if isinstance(images, list) and images else None, what)
        return _comfy(client, base, headers, body)
    except pic.BadAnswer as bad:
        raise ProviderError(f"{what}：{bad}") from None


def _comfy(client: MediaClient, base: str, headers: dict[str, str], workflow: dict[str, Any]) -> bytes:
    what = client.what
    url = f"{base}/prompt"
    queued = client.post_json(url, {"prompt": workflow, "client_id": f"peargarden-{uuid.uuid4().hex[:8]}"}, headers)
    answer = queued.json(what, url)
    prompt_id = answer.get("prompt_id") if isinstance(answer, dict) else None
    if not isinstance(prompt_id, str) or not prompt_id:
        raise ProviderError(f"{what}：{url} 没有给出 prompt_id（{server_words(queued.body)}）")
    deadline = time.monotonic() + COMFY_TIMEOUT
    while True:
        history_url = f"{base}/history/{prompt_id}"
        found = pic.comfy_output(client.get(history_url, headers=headers).json(what, history_url), prompt_id)
        if found is not None:
            break
        if time.monotonic() > deadline:
            raise ProviderError(f"{what}：等了 {COMFY_TIMEOUT:.0f} 秒，工作流还没跑完（timeout）")
        time.sleep(COMFY_POLL)
    picture = client.get(f"{base}/view", params=found, headers=headers).body
    if image_kind(picture) is None:
        raise ProviderError(f"{what}：{base}/view 给的不是图片（{server_words(picture)}）")
    return picture
