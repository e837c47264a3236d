"""Helpers for the browser tests: a live uvicorn server, one browser page per worker, screenshots."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peargarden.testing.fake_openai import FakeOpenAIServer, StreamReply, chunk, sse, tool_call_delta, usage_chunk
from peargarden.web.server import WebConfig, create_app
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

# Debian's chromium-headless-shell when it is installed (scripts/test.sh installs it): chromium's old
# headless mode, which Playwright itself runs for headless by default.  The new headless mode of
# /usr/bin/chromium draws a whole browser window (tab strip, omnibox, loading animation) and composites
# it in software on every frame; the shell draws only the page.  Same Blink, the same screenshots to the
# pixel, about a third less CPU over the web tests (the old benchmark notebook, `git show
# fd224ce:docs/benchmarks.md`, "Test suite time", seventh round).
# PEARGARDEN_TEST_CHROMIUM names another binary (to compare the two).
CHROMIUM = os.environ.get("PEARGARDEN_TEST_CHROMIUM") or next(
    (path for path in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.path.exists(path)),
    "/usr/bin/chromium",
)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
# Screenshots are pictures to look at, never read back by a test: they are taken only when asked for
# (PEARGARDEN_SCREENSHOTS=1 bash scripts/test.sh tests/web).  Full-page captures at two sizes were
# about a twelfth of the browser tests' CPU (the old benchmark notebook, `git show
# fd224ce:docs/benchmarks.md`, "Test suite time", eighth round).
SCREENSHOTS_WANTED = os.environ.get("PEARGARDEN_SCREENSHOTS") == "1"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # As desktop Chrome does (headless-shell leaves it off): frames of another site — a card's sandboxed
    # frames, an opaque origin — run in a process of their own, so a card's script that loops cannot
    # stop the page (tests/web/test_web_script_bounds.py).
    "--site-per-process",
]


# What every test's page starts as (the viewport and language of the page fixture).
VIEWPORT = {"width": 1200, "height": 850}
LOCALE = "zh-CN"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    def __init__(
        self, home: Home, token: str | None = None, host: str = "127.0.0.1", port: int | None = None, **config: Any
    ) -> None:
        """*config*: more of ``WebConfig`` (a test's stand-in for installing the embedded model)."""
        import uvicorn

        # The socket is bound here and handed to the server: a port picked free and bound later can be
        # taken by another test's server in between.
        self.socket = socket.socket()
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn's own (a port used again)
        self.socket.bind(("127.0.0.1", port or 0))
        self.port = int(self.socket.getsockname()[1])
        self.base_url = f"http://127.0.0.1:{self.port}"
        served = uvicorn.Config(create_app(WebConfig(home, host=host, token=token, **config)), host="127.0.0.1",
                                port=self.port, log_level="warning")  # fmt: skip
        self.server = uvicorn.Server(served)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

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
        self.socket.close()


def screenshot(page: Page, name: str, *, viewport_only: bool = False) -> None:
    """The whole page (or what the viewport shows) as build/screenshots/*name*.png, when wanted."""
    if SCREENSHOTS_WANTED:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=not viewport_only)


def element_screenshot(element: Locator, name: str) -> None:
    """One element of the page as build/screenshots/*name*.png, when wanted."""
    if SCREENSHOTS_WANTED:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        element.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


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


def wait_ready(page: Page) -> None:
    """The page's module has drawn its first state (pages set body[data-ready] when done)."""
    page.wait_for_selector("body[data-ready='1']")


def tool_call_reply(call_id: str, name: str, arguments: dict[str, object]) -> StreamReply:
    """A streamed model turn that makes one tool call (id and name first, then the arguments)."""
    return sse(
        chunk(role="assistant", content=""),
        chunk(tool_calls=[tool_call_delta(0, id=call_id, name=name, arguments="")]),
        chunk(tool_calls=[tool_call_delta(0, arguments=json.dumps(arguments, ensure_ascii=False))]),
        chunk(finish_reason="tool_calls"),
        usage_chunk(20, 8),
    )


def new_chat(base_url: str, card: str = "青梧") -> str:
    """A fresh chat of *card*, made through the API (no page load); returns its id."""
    import urllib.request

    request = urllib.request.Request(
        f"{base_url}/api/chats/{urllib.parse.quote(card)}", data=b"{}", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        return str(json.loads(response.read())["chat_id"])


def post_json(base_url: str, path: str, body: dict[str, object]) -> dict[str, object]:
    """POST *body* to the server's *path* (no page); the JSON object it answers."""
    import urllib.request

    request = urllib.request.Request(base_url + path, data=json.dumps(body).encode("utf-8"),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=20) as response:
        value = json.loads(response.read())
    assert isinstance(value, dict)
    return value


def open_new_chat(page: Page, base_url: str, card: str = "青梧") -> str:
    """Open a fresh chat of *card* in the browser; returns its id."""
    chat_id = new_chat(base_url, card)
    page.goto(f"{base_url}/chat/{urllib.parse.quote(card)}/{chat_id}")
    wait_ready(page)
    return chat_id


def script_calls_answered(page: Page, timeout: float = 30_000) -> None:
    """Every call the page's script frames made has the server's answer (script_frames.js counts the
    open ones on <body data-script-calls>): a TavernHelper write, which a script makes on its copy at
    once, has reached the chat.  The frames' last messages get a moment to reach the page first."""
    page.wait_for_timeout(100)
    page.wait_for_function("(document.body.dataset.scriptCalls || '0') === '0'", timeout=timeout)


def beats_done(page: Page, count: int, timeout: float = 30_000) -> None:
    """Wait until the page has finished *count* beats (chat.js counts them on <body>); *timeout* in ms."""
    page.wait_for_selector(f"body[data-beats='{count}']", timeout=timeout)


@dataclass
class Served:
    """A data folder served by a live web server whose model is the fake OpenAI server."""

    home: Home
    server: LiveServer
    fake: FakeOpenAIServer

    @property
    def url(self) -> str:
        return self.server.base_url


def screenshots(page: Page, name: str) -> None:
    """*name* at the two sizes the web is judged at: 1280×800 and 390×844 (a phone).  The page is left at
    the phone's size, screenshots wanted or not (tests go on at that size)."""
    sizes = ((1280, 800), (390, 844)) if SCREENSHOTS_WANTED else ((390, 844),)
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"{name}-{width}")


class SharedPage:
    """One browser page per test worker, handed to each test as if it were new.

    A new page costs chromium a new renderer process and a browser window (about 0.8 s of CPU, and
    1.2 s more for its first page load); a page that is reset costs about 0.2 s. ``reset`` undoes what a
    test can leave behind: it leaves the test's page (its scripts and streams stop), closes pages the
    test opened, drops its routes and the listeners it added, clears the HTTP cache, the cookies and
    every origin's storage the page visited (local and session storage, IndexedDB, cache storage),
    the navigation history and the permissions, and puts back the viewport, the time zone and the mouse.
    ``check_fresh`` proves it before each test (tests/web/test_web_shared_page.py shows that a test's
    storage, cookies, routes, listeners and viewport do not reach the next one).
    """

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self._open()

    def _open(self) -> None:
        self.context = self.browser.new_context(viewport=VIEWPORT, locale=LOCALE)
        self.page = self.context.new_page()
        self.cdp = self.context.new_cdp_session(self.page)
        self.origins: set[str] = set()
        self.listeners: list[tuple[str, Callable[..., Any]]] = []
        self.timezone: str | None = None
        # The page's own bookkeeping: which origins it has shown, to clear their storage afterwards.
        self.page.on("framenavigated", self._seen)
        # Listeners the tests add are recorded, so that reset can remove them (page.on/page.once).
        original_on, original_once = self.page.on, self.page.once

        def on(event: str, handler: Callable[..., Any]) -> None:
            self.listeners.append((event, handler))
            original_on(event, handler)

        def once(event: str, handler: Callable[..., Any]) -> None:
            self.listeners.append((event, handler))
            original_once(event, handler)

        self.page.on, self.page.once = on, once
        # Routes and permissions are noted as they are set, so that reset undoes them only when there
        # are some (each undo is a round trip through Playwright's driver, for every test).
        self.routed = self.granted = False
        page_route, context_route, grant = self.page.route, self.context.route, self.context.grant_permissions

        def route_page(*args: Any, **kwargs: Any) -> Any:
            self.routed = True
            return page_route(*args, **kwargs)

        def route_context(*args: Any, **kwargs: Any) -> Any:
            self.routed = True
            return context_route(*args, **kwargs)

        def grant_permissions(*args: Any, **kwargs: Any) -> Any:
            self.granted = True
            return grant(*args, **kwargs)

        self.page.route, self.context.route = route_page, route_context
        self.context.grant_permissions = grant_permissions

    def _seen(self, frame: Any) -> None:
        parts = urllib.parse.urlsplit(frame.url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")

    def emulate_timezone(self, zone: str) -> None:
        """The page's time zone (what a new context's ``timezone_id`` sets), until the reset."""
        self.cdp.send("Emulation.setTimezoneOverride", {"timezoneId": zone})
        self.timezone = zone

    def reset(self) -> None:
        for event, handler in self.listeners:
            self.page.remove_listener(event, handler)
        self.listeners.clear()
        if self.routed:
            self.page.unroute_all(behavior="ignoreErrors")
            self.context.unroute_all(behavior="ignoreErrors")
            self.routed = False
        for other in self.context.pages:
            if other != self.page:
                other.close()
        self.page.goto("about:blank")
        self.cdp.send("Network.clearBrowserCache")
        for origin in sorted(self.origins):
            self.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        self.origins.clear()
        self.cdp.send("Page.resetNavigationHistory")
        self.context.clear_cookies()
        if self.granted:
            self.context.clear_permissions()
            self.granted = False
        if self.timezone is not None:
            self.cdp.send("Emulation.setTimezoneOverride", {"timezoneId": ""})  # "": the system's zone
            self.timezone = None
        if self.page.viewport_size != VIEWPORT:
            self.page.set_viewport_size(VIEWPORT)
        self.page.mouse.move(0, 0)

    def check_fresh(self) -> None:
        """What a test may rely on from a new page; an AssertionError names what leaked."""
        assert self.page.url == "about:blank", self.page.url
        assert self.context.pages == [self.page], self.context.pages
        assert self.page.viewport_size == VIEWPORT, self.page.viewport_size
        assert self.context.cookies() == [], self.context.cookies()
        assert not self.listeners and not self.origins and self.timezone is None
        assert not self.routed and not self.granted
        history = self.cdp.send("Page.getNavigationHistory")
        assert len(history["entries"]) == 1, history

    def renew(self) -> None:
        """A new context and page, for when a reset failed (the old page is left to be closed)."""
        try:
            self.context.close()
        finally:
            self._open()

    def close(self) -> None:
        self.context.close()


LONG_USER = "掌柜可还记得镇北渡口的怀瑾公子？那年也是这样的雨天，*他撑着伞站在柳树下*。"
LONG_REPLY = "青梧放下茶盏，望向窗外的河，半晌才道：“记得。他走的那天，渡口的柳树才抽芽。”\n\n*雨声渐密。*"


def long_st_chat(messages: int, card: str = "青梧", user: str = "旅人") -> bytes:
    """A SillyTavern chat JSONL of *messages* messages after the header, the character first and the
    user answering; every reply has three swipes, the middle one chosen (the shape of a long chat a
    role-player brings over).  Message *i*'s text ends with ``（i）`` or ``（i·其n）`` for swipe n."""
    import json

    lines: list[dict[str, Any]] = [{"user_name": user, "character_name": card, "create_date": "2026-12-01@10h00m00s",
                                    "chat_metadata": {}}]  # fmt: skip
    for index in range(messages):
        date = f"2026-12-01T10:{index // 60 % 60:02d}:{index % 60:02d}.000Z"
        if index % 2:
            lines.append({"name": user, "is_user": True, "is_system": False, "send_date": date,
                          "mes": f"{LONG_USER}（{index}）", "extra": {}})  # fmt: skip
        else:
            swipes = [f"{LONG_REPLY}（{index}·其{n}）" for n in range(3)]
            lines.append({"name": card, "is_user": False, "is_system": False, "send_date": date, "mes": swipes[1],
                          "extra": {}, "swipe_id": 1, "swipes": swipes,
                          "swipe_info": [{"send_date": date, "extra": {}} for _ in swipes]})  # fmt: skip
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode() + b"\n"
