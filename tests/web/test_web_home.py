"""The home page and the server's guards, over real HTTP and in a real browser."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import LiveServer, screenshot

from peargarden.web.server import WebConfig, create_app
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Page


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        # Generous: the first request builds the OpenAPI schema, slow on a machine loaded to 40.
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_health_and_openapi(live_server: LiveServer) -> None:
    status, body = get(live_server.base_url + "/api/health")
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, body = get(live_server.base_url + "/openapi.json")
    assert status == 200 and "/api/cards" in json.loads(body)["paths"]


def test_every_page_names_an_icon_the_server_serves(live_server: LiveServer) -> None:
    """Without one the browser asks for /favicon.ico, gets a 404 and logs an error on every page."""
    status, page = get(live_server.base_url + "/")
    assert status == 200
    icon = re.search(r'<link rel="icon"[^>]*href="([^"]+)"', page.decode("utf-8"))
    assert icon is not None
    status, body = get(live_server.base_url + icon.group(1))
    assert status == 200 and body.lstrip().startswith(b"<svg")


def test_other_hosts_need_the_token(seeded_home: Home) -> None:
    with pytest.raises(ValueError):
        create_app(WebConfig(seeded_home, host="0.0.0.0"))
    with LiveServer(seeded_home, token="令牌不对也不行", host="0.0.0.0") as server:
        assert get(server.base_url + "/api/health")[0] == 401
        assert get(server.base_url + "/api/health", {"Authorization": "Bearer wrong"})[0] == 401
    with LiveServer(seeded_home, token="s3cret", host="0.0.0.0") as server:
        assert get(server.base_url + "/api/health", {"Authorization": "Bearer s3cret"})[0] == 200
        assert get(server.base_url + "/api/cards?token=s3cret")[0] == 200


def test_home_shows_the_bundled_card(live_server: LiveServer, page: Page) -> None:
    page.goto(live_server.base_url + "/")
    tile = page.locator(".card-tile", has_text="青梧")
    tile.wait_for()
    # The avatar loaded (a small copy made on the first request: waited for, not raced).
    page.wait_for_function("document.querySelector('.card-tile img').complete")
    natural = page.evaluate("document.querySelector('.card-tile img').naturalWidth")
    assert natural > 0
    screenshot(page, "home")


def test_import_by_upload_and_bad_file_message(live_server: LiveServer, page: Page, tmp_path: Path) -> None:
    book = tmp_path / "雨巷.json"
    book.write_text(json.dumps({"entries": {"0": {"uid": 0, "key": ["雨巷"], "content": "一条长长的雨巷。"}}},
                               ensure_ascii=False), encoding="utf-8")  # fmt: skip
    bad = tmp_path / "坏卡.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    page.goto(live_server.base_url + "/")
    page.set_input_files("#file-input", str(bad))
    toast = page.locator("#toast.error")
    toast.wait_for()
    assert "坏卡.png" in toast.inner_text()
    assert not (live_server_home(live_server) / "library" / "lorebooks" / "坏卡.json").exists()
    page.set_input_files("#file-input", str(book))
    page.locator("#toast:not(.error)").wait_for()
    assert (live_server_home(live_server) / "library" / "lorebooks" / "雨巷.json").exists()


def live_server_home(server: LiveServer) -> Path:
    app = server.server.config.app
    return Path(app.state.config.home.root)  # type: ignore[union-attr]
