"""The HTTP side of the media back ends (voices, pictures, translation): one request, its whole answer.

Each call is one short exchange (a picture, a clip of speech, a translation), so a client lives for
the call: no pool to keep warm between messages.  What goes wrong is one line naming the back end and
the address: a server that cannot be reached, an error status with the server's own words, an answer
that is not what was asked for.  Keys travel only in headers the caller gives.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import msgspec

from peargarden import __version__
from peargarden.errors import ProviderError

from .wire import Client, HTTPError, Timeout, TimeoutException

# A picture from a busy Stable Diffusion can take minutes; a translation or a line of speech seconds.
DEFAULT_TIMEOUT = 300.0
CONNECT_TIMEOUT = 10.0


class Answer(msgspec.Struct, frozen=True):
    status: int
    content_type: str
    body: bytes

    def json(self, what: str, url: str) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            raise ProviderError(f"{what}：{url} 的回答不是 JSON（{_preview(self.body)}）") from None


def _preview(body: bytes) -> str:
    text = body[:120].decode("utf-8", "replace").strip().replace("\n", " ")
    return text or "空"


def server_words(body: bytes) -> str:
    """The message an error answer carries (``error``/``message``/``detail`` of its JSON, else its text)."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return _preview(body)
    if isinstance(parsed, dict):
        for key in ("error", "message", "detail"):
            said = parsed.get(key)
            if isinstance(said, dict):
                said = said.get("message")
            if isinstance(said, str) and said:
                return said
    return _preview(body)


class MediaClient:
    """Requests to one back end, named *what* in every error (``语音（GPT-SoVITS）``)."""

    def __init__(self, what: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.what = what
        self.timeout = Timeout(timeout, connect=CONNECT_TIMEOUT)

    def _send(self, method: str, url: str, headers: Mapping[str, str] | None, content: bytes | None = None) -> Answer:
        sent = {"User-Agent": f"peargarden/{__version__}", **(headers or {})}
        client = Client(self.timeout, follow_redirects=True)
        try:
            response = client.request(method, url, headers=sent, content=content)
            body = response.read()
        except TimeoutException:
            raise ProviderError(f"{self.what}：{url} 超时没有回答（timeout）") from None
        except HTTPError as error:
            raise ProviderError(f"{self.what}：连不上 {url}（{type(error).__name__}: {error}）") from None
        except UnicodeEncodeError:  # a header (the key) that is not ASCII
            raise ProviderError(f"{self.what}：密钥里有非 ASCII 字符，请求发不出去") from None
        finally:
            client.close()
        answer = Answer(response.status_code, response.headers.get("content-type", ""), body)
        if answer.status >= 400:
            raise ProviderError(f"{self.what}：{url} 回答 {answer.status}：{server_words(answer.body)}")
        return answer

    def post_json(self, url: str, body: Any, headers: Mapping[str, str] | None = None) -> Answer:
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        return self._send("POST", url, {"Content-Type": "application/json", **(headers or {})}, content)

    def post_form(self, url: str, form: Mapping[str, str], headers: Mapping[str, str] | None = None) -> Answer:
        sent = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
        return self._send("POST", url, sent, urlencode(dict(form)).encode("ascii"))

    def get(
        self, url: str, params: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None
    ) -> Answer:
        if params:
            url += ("&" if "?" in url else "?") + urlencode(dict(params))
        return self._send("GET", url, headers)
