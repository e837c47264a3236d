"""`pear serve` on the embedded model when its worker crashes or hangs: the server keeps answering,
the chat page shows the one line, the composer is usable and the next beat is answered.

The worker is the real one, on the fake runtime of ``kit/fake_runtime`` (see tests/providers/
test_providers_worker.py for the provider's side).
"""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import LiveServer, beats_done, open_new_chat, screenshot

from kit.fake_llama import FAKE_REPLY, fake_model, loads, misbehave
from peargarden.providers import embedded, runtime_check
from peargarden.providers.embedded import EmbeddedProvider
from peargarden.providers.worker_client import WorkerLimits
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Page

QUESTION = "掌柜，今晚还有空房吗？"


@pytest.fixture
def local_home(seeded_home: Home, tmp_path: Path, fake_runtime: Path) -> Iterator[tuple[Home, Path, Path]]:
    """A data folder whose main model is a (fake) local GGUF, already self-tested; the shared provider
    of this process for it is closed afterwards (its worker with it)."""
    state = fake_runtime
    model = fake_model(tmp_path)
    assert runtime_check.run_check(model, (1, 1)).chosen == "fast"
    seeded_home.config_file.write_text(
        f'user_name = "旅人"\nmode = "stage"\ngreeting = true\n\n[story]\nscene_notes = false\n\n'
        f'[model]\nlocal_path = {json.dumps(str(model))}\nthinking = "off"\n',
        encoding="utf-8",
    )
    try:
        yield seeded_home, state, model
    finally:
        provider = embedded._shared.pop(str(model), None)
        if provider is not None:
            provider.close()


def _answers(url: str) -> int:
    with urllib.request.urlopen(url, timeout=10) as response:
        return int(response.status)


def _send(page: Page, text: str) -> None:
    page.fill("#composer", text)
    page.click("#send")


def test_a_crash_mid_reply_shows_one_line_and_the_next_beat_and_chat_are_answered(
    local_home: tuple[Home, Path, Path], page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, state, _ = local_home
    misbehave(monkeypatch, "crash_at=4;once")
    with LiveServer(home) as server:
        open_new_chat(page, server.base_url)
        _send(page, QUESTION)
        toast = page.locator("#toast.error")
        toast.filter(has_text="SIGSEGV").wait_for()
        beats_done(page, 1)
        assert "安全配置" in toast.inner_text() and "\n" not in toast.inner_text().strip()
        screenshot(page, "chat-embedded-crash")
        assert _answers(server.base_url + "/api/cards") == 200  # the server is still there
        users = page.locator(".msg.user")
        assert users.count() == 1 and QUESTION in users.last.inner_text()  # the message was kept
        assert page.locator("#composer").is_enabled() and page.locator("#send").is_enabled()
        _send(page, "那就要一间。")
        beats_done(page, 2)
        assert FAKE_REPLY in page.locator(".msg.assistant").last.inner_text()
        # Another chat of the same server uses the same warm worker.
        open_new_chat(page, server.base_url)
        _send(page, QUESTION)
        beats_done(page, 1)
        assert FAKE_REPLY in page.locator(".msg.assistant").last.inner_text()
    workers = [extra for _, extra in loads(state)]
    assert workers == [True, False, True, False]  # self-test ×2, the crashed worker, one fresh safe worker


def test_a_hung_worker_is_stopped_while_the_server_keeps_answering(
    local_home: tuple[Home, Path, Path], page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, state, model = local_home
    # Short limits for this server's model: the provider the app will find for the GGUF.
    monkeypatch.setitem(embedded._shared, str(model), EmbeddedProvider(model, limits=WorkerLimits(20, 3)))
    misbehave(monkeypatch, "hang_at=2;once")
    with LiveServer(home) as server:
        open_new_chat(page, server.base_url)
        _send(page, QUESTION)
        page.wait_for_function("document.getElementById('stop').hidden === false")
        answered: list[int] = []
        reader = threading.Thread(target=lambda: answered.append(_answers(server.base_url + "/api/cards")))
        reader.start()
        reader.join(timeout=10)
        assert answered == [200]  # answered while the beat waits on the hung worker
        page.locator("#toast.error", has_text="3 秒没有任何输出").wait_for()
        beats_done(page, 1)
        assert page.locator("#composer").is_enabled()
        _send(page, "那就要一间。")
        beats_done(page, 2)
        assert FAKE_REPLY in page.locator(".msg.assistant").last.inner_text()
    assert len(loads(state)) == 4


def test_the_page_shows_the_reply_clause_by_clause_and_a_sentence_taken_back(
    local_home: tuple[Home, Path, Path], page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 49: the first words are on the page while the model still writes (before ``done``), and
    a sentence the guard takes back after it went out is seen to go, struck through with the reason."""
    home, _, _ = local_home
    reply = "有的，楼上还空着一间。我是这里的掌柜，管着这间客栈，也是阿里云开发的模型。热水在灶上，客官先坐。"
    misbehave(monkeypatch, f"reply={reply};slow=0.1")
    with LiveServer(home) as server:
        open_new_chat(page, server.base_url)
        _send(page, QUESTION)
        # The opening shown while the beat still runs (the stop button is there until done).
        page.wait_for_function(
            "document.querySelector('.msg.live .live-text')?.textContent.startsWith('有的，')"
            " && document.getElementById('stop').hidden === false"
        )
        note = page.locator(".msg.live .taken-back")
        note.wait_for()
        assert note.locator("s").inner_text() == "我是这里的掌柜，" and "跳出了角色" in note.inner_text()
        assert "我是这里的掌柜" not in page.locator(".msg.live .live-text").inner_text()
        screenshot(page, "chat-embedded-taken-back")
        beats_done(page, 1)
        kept = page.locator(".msg.assistant").last.inner_text()
        assert "有的，楼上还空着一间。热水在灶上，客官先坐。" in kept and "阿里云" not in kept
