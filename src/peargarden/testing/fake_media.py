"""Fakes of the media servers on 127.0.0.1, for tests and benchmarks: each records every request and
answers the way the real server does, refusing a request the real one would refuse (a missing field,
a wrong type, no key) with its error status and words.

One :class:`FakeMediaServer` serves them all, each under its own path:

- OpenAI's ``POST /v1/audio/speech`` (``model``, ``input``, ``voice``; ``response_format``, ``speed``)
  and GPT-SoVITS's ``POST /tts`` (api_v2: ``text``, ``text_lang``, ``ref_audio_path``, ``prompt_lang``);
- OpenAI's ``POST /v1/images/generations`` (``b64_json``), Stable Diffusion WebUI's
  ``POST /sdapi/v1/txt2img``, ComfyUI's ``POST /prompt`` + ``GET /history/{id}`` + ``GET /view``;
- LibreTranslate's ``POST /translate``, DeepL's ``POST /v2/translate`` (a form, ``DeepL-Auth-Key``)
  and DeepLX's ``POST /deeplx``.

``server.fail(path, status, body)`` makes the next request to *path* fail; ``server.phrases`` maps
(text, target) to the translation the fake answers (else ``«target» text``).
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import struct
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .fake_openai import RecordedRequest, _QuietServer


def tiny_png(rgb: tuple[int, int, int] = (200, 80, 60), size: int = 4) -> bytes:
    """A real PNG of *size*×*size* pixels of one colour."""
    raw = b"".join(b"\x00" + bytes(rgb) * size for _ in range(size))

    def part(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + part(b"IHDR", header) + part(b"IDAT", zlib.compress(raw)) + part(b"IEND", b"")


def tiny_wav(samples: int = 800) -> bytes:
    """A real WAV file: *samples* of silence, 16-bit mono at 8 kHz."""
    data = b"\x00\x00" * samples
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    return b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<I", 16) + fmt + b"data" + \
        struct.pack("<I", len(data)) + data  # fmt: skip


# What /v1/audio/speech answers per response_format (an MP3 starts with an ID3 tag or a frame sync).
FAKE_MP3 = b"ID3\x03\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x00" * 16
_AUDIO = {
    "mp3": ("audio/mpeg", FAKE_MP3), "wav": ("audio/wav", b""), "opus": ("audio/ogg", b"OggS fake"),
    "aac": ("audio/aac", b"\xff\xf1 fake"), "flac": ("audio/flac", b"fLaC fake"), "pcm": ("audio/pcm", b"\0\0"),
}  # fmt: skip


@dataclass
class Failure:
    status: int
    body: Any


@dataclass
class FakeMediaServer:
    """Start with ``with FakeMediaServer() as server``; ``server.url`` is ``http://127.0.0.1:PORT``."""

    api_key: str = ""  # when set, requests must carry it (as each server takes its key)
    requests: list[RecordedRequest] = field(default_factory=list)
    phrases: dict[tuple[str, str], str] = field(default_factory=dict)
    picture: bytes = field(default_factory=tiny_png)
    # ComfyUI: how many polls of /history see nothing yet before the picture is there.
    comfy_pending_polls: int = 1
    _failures: dict[str, list[Failure]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _prompts: dict[str, int] = field(default_factory=dict)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _httpd: Any = None

    def __enter__(self) -> FakeMediaServer:
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler(self))
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def fail(self, path: str, status: int, body: Any) -> None:
        with self._lock:
            self._failures.setdefault(path, []).append(Failure(status, body))

    def to(self, path: str) -> list[RecordedRequest]:
        """The requests made to *path* (query strings left out)."""
        return [r for r in self.requests if urlsplit(r.path).path == path]

    def translate(self, text: str, target: str) -> str:
        return self.phrases.get((text, target), f"«{target}» {text}")

    def _failure(self, path: str) -> Failure | None:
        with self._lock:
            queued = self._failures.get(path)
            return queued.pop(0) if queued else None


def _script_of(text: str) -> str:
    if re.search(r"[\u3040-\u30ff]", text):
        return "ja"
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"


class _Refused(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(str(body))
        self.status = status
        self.body = body


def _need(body: Any, fields: dict[str, type | tuple[type, ...]], words: Callable[[str], Any]) -> dict[str, Any]:
    """*body* as a JSON object holding each of *fields* with its type, else the server's 4xx."""
    if not isinstance(body, dict):
        raise _Refused(400, words("body must be a JSON object"))
    for name, kind in fields.items():
        value = body.get(name)
        if value is None or not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise _Refused(400, words(f"field {name!r} is required ({kind})"))
        if isinstance(value, str) and not value.strip():
            raise _Refused(400, words(f"field {name!r} is empty"))
    return body


def _openai_error(text: str) -> Any:
    return {"error": {"message": text, "type": "invalid_request_error"}}


def _bearer(server: FakeMediaServer, headers: dict[str, str], words: Callable[[str], Any]) -> None:
    if server.api_key and headers.get("authorization") != f"Bearer {server.api_key}":
        raise _Refused(401, words("Incorrect API key provided"))


def _speech(server: FakeMediaServer, req: RecordedRequest) -> tuple[int, str, bytes]:
    _bearer(server, req.headers, _openai_error)
    body = _need(req.body, {"model": str, "input": str, "voice": str}, _openai_error)
    fmt = body.get("response_format", "mp3")
    if fmt not in _AUDIO:
        raise _Refused(400, _openai_error(f"response_format {fmt!r} is not supported"))
    speed = body.get("speed", 1.0)
    if not isinstance(speed, int | float) or not 0.25 <= speed <= 4.0:
        raise _Refused(400, _openai_error("speed must be between 0.25 and 4.0"))
    kind, data = _AUDIO[fmt]
    return 200, kind, data or tiny_wav()


def _sovits(server: FakeMediaServer, req: RecordedRequest) -> tuple[int, str, bytes]:
    def words(text: str) -> Any:
        return {"message": text}

    body = _need(req.body, {"text": str, "text_lang": str, "ref_audio_path": str, "prompt_lang": str}, words)
    if body.get("media_type", "wav") not in ("wav", "ogg", "aac", "raw"):
        raise _Refused(400, words(f"media_type {body.get('media_type')} not supported"))
    if body.get("text_split_method", "cut5") not in {f"cut{n}" for n in range(6)}:
        raise _Refused(400, words("text_split_method is not supported"))
    return 200, "audio/wav", tiny_wav()


def _images(server: FakeMediaServer, req: RecordedRequest) -> Any:
    _bearer(server, req.headers, _openai_error)
    body = _need(req.body, {"prompt": str}, _openai_error)
    if body.get("n", 1) != 1 or not re.fullmatch(r"\d+x\d+", str(body.get("size", "1024x1024"))):
        raise _Refused(400, _openai_error("n must be 1 and size WIDTHxHEIGHT"))
    if body.get("response_format", "b64_json") != "b64_json":
        raise _Refused(400, _openai_error("this fake only answers b64_json"))
    picture = base64.b64encode(server.picture).decode()
    return {"created": 0, "data": [{"b64_json": picture, "revised_prompt": body["prompt"]}]}


def _txt2img(server: FakeMediaServer, req: RecordedRequest) -> Any:
    def words(text: str) -> Any:
        return {"error": "ValidationError", "detail": text}

    body = _need(req.body, {"prompt": str, "steps": int, "width": int, "height": int, "cfg_scale": (int, float)}, words)
    if not isinstance(body.get("negative_prompt", ""), str) or not isinstance(body.get("sampler_name", ""), str):
        raise _Refused(422, words("negative_prompt and sampler_name are strings"))
    return {"images": [base64.b64encode(server.picture).decode()], "parameters": body, "info": "{}"}


def _comfy_prompt(server: FakeMediaServer, req: RecordedRequest) -> Any:
    def words(text: str) -> Any:
        return {"error": {"type": "invalid_prompt", "message": text}, "node_errors": {}}

    body = _need(req.body, {"prompt": dict}, words)
    for node_id, node in body["prompt"].items():
        shaped = isinstance(node, dict) and isinstance(node.get("class_type"), str)
        if not shaped or not isinstance(node.get("inputs"), dict):
            raise _Refused(400, words(f"node {node_id} needs class_type and inputs"))
    prompt_id = f"fake-{next(server._ids)}"
    with server._lock:
        server._prompts[prompt_id] = 0
    return {"prompt_id": prompt_id, "number": 0, "node_errors": {}}


def _comfy_history(server: FakeMediaServer, prompt_id: str) -> Any:
    with server._lock:
        if prompt_id not in server._prompts:
            return {}
        server._prompts[prompt_id] += 1
        if server._prompts[prompt_id] <= server.comfy_pending_polls:
            return {}
    image = {"filename": f"{prompt_id}_00001_.png", "subfolder": "pear", "type": "output"}
    return {prompt_id: {"prompt": [], "outputs": {"9": {"images": [image]}},
                        "status": {"status_str": "success", "completed": True, "messages": []}}}  # fmt: skip


def _libre(server: FakeMediaServer, req: RecordedRequest) -> Any:
    def words(text: str) -> Any:
        return {"error": text}

    body = _need(req.body, {"q": str, "source": str, "target": str}, words)
    if server.api_key and body.get("api_key") != server.api_key:
        raise _Refused(403, words("Invalid API key"))
    target = {"zt": "zh-TW"}.get(body["target"], body["target"])
    detected = _script_of(body["q"]) if body["source"] == "auto" else body["source"]
    answer: dict[str, Any] = {"translatedText": server.translate(body["q"], target)}
    if body["source"] == "auto":
        answer["detectedLanguage"] = {"confidence": 90.0, "language": detected}
    return answer


def _deepl(server: FakeMediaServer, req: RecordedRequest) -> Any:
    def words(text: str) -> Any:
        return {"message": text}

    if not req.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        raise _Refused(415, words("expected a form body"))
    if server.api_key and req.headers.get("authorization") != f"DeepL-Auth-Key {server.api_key}":
        raise _Refused(403, words("Authorization failed. Please supply a valid auth_key parameter."))
    form = req.body if isinstance(req.body, dict) else {}
    text, target = form.get("text"), form.get("target_lang")
    if not isinstance(text, str) or not isinstance(target, str) or target != target.upper():
        raise _Refused(400, words("Value for 'target_lang' not supported."))
    code = {"ZH-HANT": "zh-TW", "EN-US": "en", "EN-GB": "en", "PT-BR": "pt", "ZH-HANS": "zh"}.get(target)
    translated = server.translate(text, code or target.lower())
    return {"translations": [{"detected_source_language": _script_of(text).upper(), "text": translated}]}


def _deeplx(server: FakeMediaServer, req: RecordedRequest) -> Any:
    def words(text: str) -> Any:
        return {"code": 400, "message": text}

    body = _need(req.body, {"text": str, "source_lang": str, "target_lang": str}, words)
    code = {"ZH-HANT": "zh-TW", "EN-US": "en"}.get(body["target_lang"], body["target_lang"].lower())
    return {"code": 200, "data": server.translate(body["text"], code), "source_lang": _script_of(body["text"]).upper(),
            "target_lang": body["target_lang"]}  # fmt: skip


_POSTS: dict[str, Callable[[FakeMediaServer, RecordedRequest], Any]] = {
    "/v1/audio/speech": _speech, "/tts": _sovits, "/v1/images/generations": _images, "/sdapi/v1/txt2img": _txt2img,
    "/prompt": _comfy_prompt, "/translate": _libre, "/v2/translate": _deepl, "/deeplx": _deeplx,
}  # fmt: skip


def _handler(server: FakeMediaServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _record(self, body: Any) -> RecordedRequest:
            request = RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            with server._lock:
                server.requests.append(request)
            return request

        def _answer(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _json(self, status: int, value: Any) -> None:
            self._answer(status, "application/json", json.dumps(value, ensure_ascii=False).encode("utf-8"))

        def _failed(self, path: str) -> bool:
            failure = server._failure(path)
            if failure is not None:
                self._json(failure.status, failure.body)
            return failure is not None

        def do_GET(self) -> None:
            self._record(None)
            parts = urlsplit(self.path)
            if self._failed(parts.path):
                return
            if parts.path.startswith("/history/"):
                self._json(200, _comfy_history(server, parts.path.removeprefix("/history/")))
            elif parts.path == "/view":
                query = parse_qs(parts.query)
                if not query.get("filename") or "type" not in query:
                    self._json(400, {"error": "filename and type are required"})
                else:
                    self._answer(200, "image/png", server.picture)
            else:
                self._json(404, {"error": f"no route {parts.path}"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            kind = self.headers.get("Content-Type", "")
            body: Any
            if kind.startswith("application/x-www-form-urlencoded"):
                body = {key: values[0] for key, values in parse_qs(raw.decode("utf-8")).items()}
            else:
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
            request = self._record(body)
            path = urlsplit(self.path).path
            if self._failed(path):
                return
            route = _POSTS.get(path)
            if route is None:
                self._json(404, {"error": f"no route {path}"})
                return
            try:
                answer = route(server, request)
            except _Refused as refused:
                self._json(refused.status, refused.body)
                return
            if isinstance(answer, tuple):
                self._answer(*answer)
            else:
                self._json(200, answer)

    return Handler


__all__ = ["FAKE_MP3", "FakeMediaServer", "tiny_png", "tiny_wav"]
