"""Helpers for the browser tests: a live uvicorn server and screenshots."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.web.server import WebConfig, create_app
from peargarden.workspace.home import Home

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    def __init__(self, home: Home, token: str | None = None, host: str = "127.0.0.1") -> None:
        import uvicorn

        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(WebConfig(home, host=host, token=token)), host="127.0.0.1",
                                port=self.port, log_level="warning")  # fmt: skip
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("web server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def screenshot(page: object, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    return path


def fake_provider_config(base_url: str) -> str:
    """A config.toml whose main model is the fake OpenAI server (thinking off: plain replies).

    Scene notes are off: their side-model call after each beat would take the scripted replies.
    """
    return (
        'user_name = "旅人"\nmode = "stage"\ncreation_mode = "ask"\ngreeting = true\n\n'
        "[story]\nscene_notes = false\n\n"
        '[model]\nprovider = "fake"\nmodel = "fake-model"\nthinking = "off"\n\n'
        f'[providers.fake]\nbase_url = "{base_url}"\napi_key = "sk-test"\n'
    )


def wait_ready(page: object) -> None:
    """The page's module has drawn its first state (pages set body[data-ready] when done)."""
    page.wait_for_selector("body[data-ready='1']")  # type: ignore[attr-defined]


def tool_call_reply(call_id: str, name: str, arguments: dict[str, object]) -> object:
    """A streamed model turn that makes one tool call (id and name first, then the arguments)."""
    import json

    from peargarden.testing.fake_openai import chunk, sse, tool_call_delta, usage_chunk

    return sse(
        chunk(role="assistant", content=""),
        chunk(tool_calls=[tool_call_delta(0, id=call_id, name=name, arguments="")]),
        chunk(tool_calls=[tool_call_delta(0, arguments=json.dumps(arguments, ensure_ascii=False))]),
        chunk(finish_reason="tool_calls"),
        usage_chunk(20, 8),
    )


def open_new_chat(page: object, base_url: str, card: str = "青梧") -> str:
    """Open a fresh chat of *card* in the browser; returns its id."""
    import json
    import urllib.parse
    import urllib.request

    request = urllib.request.Request(
        f"{base_url}/api/chats/{urllib.parse.quote(card)}", data=b"{}", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        chat_id = str(json.loads(response.read())["chat_id"])
    page.goto(f"{base_url}/chat/{urllib.parse.quote(card)}/{chat_id}")  # type: ignore[attr-defined]
    wait_ready(page)
    return chat_id


def beats_done(page: object, count: int) -> None:
    """Wait until the page has finished *count* beats (chat.js counts them on <body>)."""
    page.wait_for_selector(f"body[data-beats='{count}']")  # type: ignore[attr-defined]


@dataclass
class Served:
    """A data folder served by a live web server whose model is the fake OpenAI server."""

    home: Home
    server: LiveServer
    fake: FakeOpenAIServer

    @property
    def url(self) -> str:
        return self.server.base_url


def screenshots(page: object, name: str) -> None:
    """*name* at the two sizes the web is judged at: 1280×800 and 390×844 (a phone)."""
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})  # type: ignore[attr-defined]
        screenshot(page, f"{name}-{width}")
