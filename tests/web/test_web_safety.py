"""Safe defaults over real HTTP and in a real browser: no framing, no state change on GET, capped
bodies, errors in the documented ``{"error": …}`` shape, long names answered with a clear 4xx."""

from __future__ import annotations

import hashlib
import http.client
import json
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import LiveServer, screenshot

from peargarden.web import safety
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = urllib.parse.quote("青梧")


def send(server: LiveServer, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
         chunks: list[bytes] | None = None) -> tuple[int, dict[str, str], str]:  # fmt: skip
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    if chunks is not None:
        connection.request(method, path, body=iter(chunks), headers={**(headers or {}), "Transfer-Encoding": "chunked"},
                           encode_chunked=True)  # fmt: skip
    else:
        connection.request(method, path, body=body or None, headers=headers or {})
    response = connection.getresponse()
    text = response.read().decode("utf-8", "replace")
    return response.status, {k.lower(): v for k, v in response.getheaders()}, text


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}  # fmt: skip


def test_every_answer_forbids_framing(live_server: LiveServer) -> None:
    for path in ("/", f"/chat/{CARD}", "/api/cards", "/static/app.css", "/api/nowhere", "/settings"):
        _, headers, _ = send(live_server, "GET", path)
        assert headers["content-security-policy"] == "frame-ancestors 'none'; frame-src 'none'", path
        assert headers["x-frame-options"] == "DENY", path


def test_a_framing_page_gets_nothing(live_server: LiveServer, page: Page) -> None:
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        framing = f'<p>another site</p><iframe id="f" src="{live_server.base_url}/" width="600" height="400">'
        with page.expect_event("framenavigated", predicate=lambda frame: frame.parent_frame is not None) as seen:
            page.set_content(framing)
        framed = seen.value
        framed.wait_for_load_state()  # the error page, or (what must not be) the app with its card grid
        # Chromium refuses to draw the app inside another page: the frame holds its error page.
        assert framed.url.startswith("chrome-error://") or framed.locator("#card-grid").count() == 0
        screenshot(page, f"safety-framed-{width}")


def test_no_get_changes_the_data_folder(live_server: LiveServer, seeded_home: Home) -> None:
    before = snapshot(seeded_home.root)
    status, _, text = send(live_server, "GET", f"/chat/{CARD}")
    assert status == 200 and "start-chat" in text  # a card without chats: a button, no new chat
    for path in ("/", "/api/cards", f"/api/cards/{CARD}", f"/api/cards/{CARD}/avatar", f"/api/chats/{CARD}",
                 f"/entries/{CARD}", f"/studio/{CARD}", f"/presets/{CARD}", "/vault", "/settings",
                 "/api/settings", "/api/personas", "/api/vault", f"/api/studio/{CARD}", f"/api/presets/{CARD}",
                 f"/api/entries/{CARD}", "/openapi.json"):  # fmt: skip
        assert send(live_server, "GET", path)[0] < 500, path
    assert snapshot(seeded_home.root) == before
    assert not list((seeded_home.card_dir("青梧") / "chats").glob("*"))


def test_get_of_an_open_chat_changes_nothing(live_server: LiveServer, seeded_home: Home) -> None:
    _, _, text = send(live_server, "POST", f"/api/chats/{CARD}", b"{}", {"Content-Type": "application/json"})
    chat = json.loads(text)["chat_id"]
    before = snapshot(seeded_home.root)
    for path in (f"/chat/{CARD}", f"/chat/{CARD}/{chat}", f"/api/chats/{CARD}/{chat}", f"/inspect/{CARD}/{chat}",
                 f"/api/inspect/{CARD}/{chat}?source=dry:stage", f"/api/chats/{CARD}/{chat}/export",
                 f"/tavern/{CARD}/{chat}", f"/api/tavern/{CARD}?chat={chat}"):  # fmt: skip
        assert send(live_server, "GET", path)[0] < 500, path
    assert snapshot(seeded_home.root) == before


def test_bodies_over_the_limit_are_refused_before_they_are_read(live_server: LiveServer, seeded_home: Home,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    json_headers = {"Content-Type": "application/json"}
    # A 20 MB persona: refused, nothing written.
    persona = json.dumps({"name": "巨人", "description": "大" * (7 * 1024 * 1024)}).encode()
    status, _, text = send(live_server, "POST", "/api/personas", persona, json_headers)
    assert status == 413 and "MiB" in json.loads(text)["error"]
    assert not (seeded_home.personas_dir / "巨人.json").exists()
    # A 300 MiB upload announced by its length: refused from the headers alone.
    connection = http.client.HTTPConnection("127.0.0.1", live_server.port, timeout=30)
    connection.putrequest("POST", "/api/import")
    connection.putheader("Content-Type", "multipart/form-data; boundary=x")
    connection.putheader("Content-Length", str(300 * 1024 * 1024))
    connection.endheaders()
    connection.send(b"--x\r\n")
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["error"]
    # A body without a length (chunked) is cut off once it passes the cap while streaming.
    monkeypatch.setattr(safety, "UPLOAD_LIMIT", 1024 * 1024)
    cards_before = sorted(p.name for p in seeded_home.cards_dir.iterdir())
    head = b'--x\r\nContent-Disposition: form-data; name="files"; filename="big.json"\r\n\r\n'
    chunks = [head, *([b"{" + b" " * (256 * 1024)] * 12), b"}\r\n--x--\r\n"]
    multipart = {"Content-Type": "multipart/form-data; boundary=x"}
    status, _, text = send(live_server, "POST", "/api/import", headers=multipart, chunks=chunks)
    assert status == 413 and json.loads(text)["error"]
    assert sorted(p.name for p in seeded_home.cards_dir.iterdir()) == cards_before


def test_errors_have_the_documented_shape(live_server: LiveServer) -> None:
    json_headers = {"Content-Type": "application/json"}
    _, _, text = send(live_server, "POST", f"/api/chats/{CARD}", b"{}", json_headers)
    chat = json.loads(text)["chat_id"]
    cases = [
        ("POST", f"/api/chats/{CARD}/{chat}/beat", b'{"action": "dance"}', 422),
        ("POST", f"/api/chats/{CARD}/{chat}/edit", b'{"index": "x"}', 422),
        ("POST", "/api/personas", b"not json", 422),
        ("GET", "/api/nowhere", b"", 404),
        ("DELETE", "/api/cards", b"", 405),
        ("GET", "/api/cards/" + urllib.parse.quote("名" * 400), b"", None),
        ("GET", "/chat/" + urllib.parse.quote("名" * 400), b"", None),
        ("GET", f"/api/chats/{CARD}/" + "x" * 400, b"", None),
    ]
    for method, path, body, expected in cases:
        status, _, text = send(live_server, method, path, body, json_headers)
        assert (status == expected) if expected else (400 <= status < 500), (path, status)
        payload = json.loads(text)
        assert list(payload) == ["error"] and isinstance(payload["error"], str) and payload["error"], (path, payload)
        assert "\n" not in payload["error"]


def test_openapi_is_served_but_no_page_loads_scripts_from_a_cdn(live_server: LiveServer) -> None:
    assert send(live_server, "GET", "/openapi.json")[0] == 200
    status, _, text = send(live_server, "GET", "/docs")
    assert status == 404 and "cdn" not in text.lower()
