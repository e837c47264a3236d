"""The pages' files under /static/<version>/ (web/static_files.py): kept by the browser without asking
again, a new path whenever a file changes, and the plain /static/ path still answering."""

from __future__ import annotations

import os
import re
import shutil
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import LiveServer, Served, free_port, new_chat, wait_ready

from peargarden.web.static_files import FOREVER, static_version
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Page

# What the page fetched for its scripts, styles and pictures, and how many bytes came over the network.
FETCHED = """() => performance.getEntriesByType("resource")
  .filter((e) => e.initiatorType !== "fetch" && new URL(e.name).pathname.startsWith("/static/"))
  .map((e) => [new URL(e.name).pathname, e.transferSize])"""


def _get(url: str) -> tuple[int, dict[str, str], str]:
    with urllib.request.urlopen(url, timeout=20) as response:
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()


def test_the_version_follows_every_files_bytes_and_name(tmp_path: Path) -> None:
    (tmp_path / "chat.js").write_text('import { t } from "./i18n.js";\n', encoding="utf-8")
    (tmp_path / "样式.css").write_text("body { color: #333; }\n", encoding="utf-8")
    first = static_version(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{12}", first) and static_version(tmp_path) == first
    (tmp_path / "__pycache__").mkdir()  # not a file the pages load
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert static_version(tmp_path) == first
    (tmp_path / "样式.css").write_text("body { color: #334; }\n", encoding="utf-8")
    changed = static_version(tmp_path)
    assert changed != first
    (tmp_path / "样式.css").rename(tmp_path / "式样.css")
    assert static_version(tmp_path) not in (first, changed)


def test_pages_name_versioned_files_kept_for_a_year(live_server: LiveServer) -> None:
    chat_id = new_chat(live_server.base_url)
    for page in ("/", "/settings", f"/chat/{urllib.parse.quote('青梧')}/{chat_id}", "/vault", "/groups"):
        _, _, html = _get(live_server.base_url + page)
        named = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
        assert named, page
        assert all(re.match(r"/static/[0-9a-f]{12}/", path) for path in named), (page, named)
    _, headers, text = _get(f"{live_server.base_url}{named[0]}")
    assert headers["cache-control"] == FOREVER and text
    _, plain, same = _get(f"{live_server.base_url}/static/{named[0].split('/', 3)[3]}")
    assert "immutable" not in plain.get("cache-control", "") and same == text


def test_a_second_page_takes_its_files_from_the_browsers_cache(served: Served, page: Page) -> None:
    page.goto(served.url + "/settings")
    wait_ready(page)
    first = page.evaluate(FETCHED)
    assert first and all(size > 0 for _, size in first), first  # the test's first load: all from the server
    page.goto(served.url + "/")
    wait_ready(page)
    page.goto(served.url + "/settings")
    wait_ready(page)
    again = page.evaluate(FETCHED)
    # The same files, and not one byte over the network: not even a question answered "not modified".
    assert sorted(path for path, _ in again) == sorted(path for path, _ in first)
    assert all(size == 0 for _, size in again), again


def test_after_an_upgrade_the_page_runs_the_new_scripts(seeded_home: Home, page: Page, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """A browser keeps a plain file whose Last-Modified is old without asking (heuristic freshness):
    served under one path across an upgrade, the old script would go on running.  Here the server's
    files are a copy dated a year back, a script changes, and the server starts again on the same
    address: the page runs the new script."""
    import peargarden.web.server as server_module

    web = tmp_path / "web"
    shutil.copytree(Path(server_module.HERE) / "templates", web / "templates")
    shutil.copytree(Path(server_module.HERE) / "static", web / "static")
    year_ago = time.time() - 365 * 24 * 3600
    for path in (web / "static").rglob("*"):
        os.utime(path, (year_ago, year_ago))
    monkeypatch.setattr(server_module, "HERE", web)
    port = free_port()
    with LiveServer(seeded_home, port=port) as server:
        page.goto(server.base_url + "/settings")
        wait_ready(page)
        assert page.inner_text("#lang-switch") == "EN"
    i18n = web / "static" / "i18n.js"
    i18n.write_text(i18n.read_text(encoding="utf-8") + '\ndocument.body.dataset.upgraded = "yes";\n', encoding="utf-8")
    os.utime(i18n, (year_ago, year_ago))  # as a package's files keep the dates they were built with
    with LiveServer(seeded_home, port=port) as server:
        page.goto(server.base_url + "/settings")
        wait_ready(page)
        assert page.evaluate("document.body.dataset.upgraded") == "yes"
