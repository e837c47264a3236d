"""The HTTP side of an OpenAI-compatible endpoint: the chat POST, its server-sent events, ``/models``.

Written on the standard library's HTTP (:mod:`.wire`) rather than through the ``openai`` SDK (its
import alone, its generated types for every API, cost about 1 s of CPU on each ``pear chat`` start)
or httpx2 (a sixth of a beat's imports), for one POST, one GET and an SSE reader.  What the SDK did
that a caller can see is kept: the bearer key, the JSON body as httpx wrote it (UTF-8, compact, no
NaN), redirects followed, an error status read into its JSON ``error`` object, an ``error`` event
inside the stream, the stream ended by ``[DONE]``.  Retries,
timeouts and cancellation are the provider's (:mod:`.openai_compat`).

Server-sent events follow the WHATWG rules: lines end in CRLF, LF or CR; ``data:`` lines of one
event are joined with newlines; a line starting with ``:`` is a comment; an empty line ends an event.
Each line is decoded as strict UTF-8: a line that is not, or an event that is not JSON, raises
:class:`MalformedEvent` holding its bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from email.message import Message
from typing import Any

import msgspec

from peargarden import __version__

from .wire import Client, Response, Timeout

# Each event of a stream is decoded by msgspec (about a quarter of ``json``'s cost, which a reply of
# a hundred thousand events feels); what msgspec refuses (NaN, a lone surrogate, a number out of
# range, and anything broken) is read by ``json``, so an event means what it always meant and a
# broken one fails as before.
_EVENT_JSON = msgspec.json.Decoder()


def _decoded(event: str) -> Any:
    try:
        return _EVENT_JSON.decode(event)
    except msgspec.DecodeError:
        return json.loads(event)


class EndpointError(Exception):
    """The endpoint answered with an error: an error status, or an ``error`` object instead of a reply.

    *body* is the server's ``error`` object when it sent one (else its whole JSON or text answer);
    *message* the error's text as far as it can be found.
    """

    def __init__(self, message: str, body: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.body = body


class StatusError(EndpointError):
    """An HTTP error status (4xx, 5xx); *headers* carry ``Retry-After``."""

    def __init__(self, status_code: int, message: str, body: object, headers: Message) -> None:
        super().__init__(message, body)
        self.status_code = status_code
        self.headers = headers


class ChatClient:
    """One endpoint's connection pool: ``base_url`` + ``/chat/completions`` and ``/models``."""

    def __init__(self, base_url: str, api_key: str, timeout: Timeout) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._client = Client(timeout, follow_redirects=True)
        self._headers = {
            "Accept": "application/json",
            "Content-Type": "application/json",
            "User-Agent": f"peargarden/{__version__}",
            "Authorization": f"Bearer {api_key}",
        }

    def open_chat_stream(self, body: dict[str, Any]) -> Response:
        """POST the chat request; the response with its body still unread (the caller closes it).
        An error status raises :class:`StatusError` (its body read, the response closed)."""
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        response = self._client.request(
            "POST", f"{self.base_url}/chat/completions", headers=self._headers, content=content
        )
        if response.status_code >= 400:
            try:
                response.read()
            finally:
                response.close()
            raise status_error(response)
        return response

    def get_json(self, path: str) -> Any:
        """GET ``base_url + path`` and decode its JSON (``ValueError`` when it is not JSON)."""
        headers = {key: value for key, value in self._headers.items() if key != "Content-Type"}
        response = self._client.request("GET", f"{self.base_url}{path}", headers=headers)
        try:
            if response.status_code >= 400:
                raise status_error(response)
            return json.loads(response.content)
        finally:
            response.close()

    def close(self) -> None:
        self._client.close()


def status_error(response: Response) -> StatusError:
    """The error for an answer with an error status: ``Error code: N``, plus the server's own message
    when its JSON has one; *body* is that JSON's ``error`` object (or the JSON, or the text)."""
    message = f"Error code: {response.status_code}"
    text = response.text.strip()
    body: object = text
    try:
        body = json.loads(text)
    except ValueError:
        pass
    else:
        if isinstance(body, dict):
            body = body.get("error", body)
            said = body.get("message") if isinstance(body, dict) else None
            if isinstance(said, str) and said:
                message += f" - {said}"
    return StatusError(response.status_code, message, body, response.headers)


class MalformedEvent(ValueError):
    """An event that is not UTF-8 or not JSON: *data* is its bytes, *kind* what was wrong
    (``JSONDecodeError``, ``UnicodeDecodeError``), so a message can quote the event itself."""

    def __init__(self, kind: str, data: bytes) -> None:
        super().__init__(f"{kind}: {data[:200]!r}")
        self.kind = kind
        self.data = data


def stream_chunks(data: Iterator[bytes]) -> Iterator[Any]:
    """The JSON chunks of a chat stream, up to ``[DONE]``.  An ``error`` object raises
    :class:`EndpointError`; an event that is not JSON raises :class:`MalformedEvent`."""
    for event in sse_data(data):
        if event.startswith("[DONE]"):
            return
        try:
            chunk = _decoded(event)
        except ValueError as bad:  # JSONDecodeError
            raise MalformedEvent(type(bad).__name__, event.encode("utf-8", "surrogatepass")) from None
        if isinstance(chunk, dict) and chunk.get("error"):
            error = chunk["error"]
            said = error.get("message") if isinstance(error, dict) else None
            raise EndpointError(said if isinstance(said, str) and said else "error in the stream", error)
        yield chunk


def sse_data(data: Iterator[bytes]) -> Iterator[str]:
    """The ``data`` of each server-sent event (its data lines joined with newlines).  An event that
    carried only other fields (``event:``, ``id:``, ``retry:``) has empty data."""
    lines: list[str] = []
    fields = False  # a field other than a comment was seen since the last event ended
    for raw in _lines(data):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise MalformedEvent("UnicodeDecodeError", raw) from None
        if not line:
            if fields:
                yield "\n".join(lines)
            lines, fields = [], False
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            lines.append(value)
            fields = True
        elif name in ("event", "id", "retry"):
            fields = True


def _lines(data: Iterator[bytes]) -> Iterator[bytes]:
    """Split a byte stream into lines ending in CRLF, LF or CR, across chunk boundaries (a CR at the
    end of one chunk may be the first half of a CRLF).

    Linear in the stream: the pieces of a line that has not ended yet are kept in a list and joined
    once when it ends (adding each piece to the unfinished line copied it again and again, and a
    long line cost its square)."""
    held: list[bytes] = []  # an unfinished line, in pieces
    for piece in data:
        if b"\n" not in piece and b"\r" not in piece and not (held and held[-1].endswith(b"\r")):
            if piece:
                held.append(piece)
            continue
        if held:
            held.append(piece)
            piece = b"".join(held)
            held = []
        lines = piece.splitlines(keepends=True)  # bytes split on LF, CR and CRLF only
        if not lines[-1].endswith(b"\n"):  # unfinished, or a CR that may be half of a CRLF
            held.append(lines.pop())
        for line in lines:
            yield line.rstrip(b"\r\n")  # each line has exactly one ending, and no CR or LF before it
    if held:
        yield b"".join(held).rstrip(b"\r\n")
