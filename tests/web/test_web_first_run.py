"""A new user's first minutes, in a real browser against a real `pear serve` on an empty data folder:
from the home page to a first reply using only the page (issue 47, item 1)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import free_port, screenshot, screenshots, wait_ready

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

# What a page must never tell a user to type: a shell command, a `pear` subcommand, a script or a flag.
# (`scripts/` not inside a longer name: a temporary folder's path may end in "…scripts/".)
SHELL = re.compile(
    r"`|\bpear (?:init|models|chat|import|serve)\b|\bbash\b|(?<![\w.-])scripts/|--[a-z]+-?[a-z]*|pip install|chmod"
)
KEY = "sk-first-run-0123456789"  # ASCII (a header value), unique to this test


@contextmanager
def pear_serve(home: Path, models: Path | None) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`pear --home HOME serve` as a child process, as a user starts it; its URL once it answers.
    *models*: the embedded models' folder (``None``: this machine's own)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    if models is not None:
        env["PEARGARDEN_MODELS"] = str(models)
    for _attempt in range(3):
        # A free port can be taken by another test's server before this one binds it: then another port.
        port = free_port()
        command = [sys.executable, "-m", "peargarden", "--home", str(home), "serve", "--port", str(port)]
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        url = f"http://127.0.0.1:{port}"
        if _answers(url, process):
            break
        output = process.communicate()[0]
        if "address already in use" not in output:
            raise AssertionError(f"pear serve did not start: {output}")
    else:
        raise AssertionError(f"pear serve found no free port: {output}")
    try:
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _answers(url: str, process: subprocess.Popen[str]) -> bool:
    """Whether the server at *url* answers within a minute (``False``: its process ended first)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=2):
                return True
        except OSError:
            if process.poll() is not None:
                return False
            if time.monotonic() > deadline:
                process.kill()
                raise AssertionError(f"pear serve did not answer in 60 s: {process.communicate()[0]}") from None
            time.sleep(0.1)


# A chat's own page (/chat/CARD/CHAT_ID), not the card's or the home page, which are ready too.
A_CHAT = re.compile(r"/chat/[^/?#]+/[^/?#]+$")


def shown_text(page: Page) -> str:
    return str(page.evaluate("document.body.innerText"))


def test_a_new_user_gets_a_first_reply_from_the_page_alone(page: Page, tmp_path: Path) -> None:
    home = tmp_path / "新的数据文件夹"
    home.mkdir()  # empty, as a user makes it (or as it is made for them)
    models = tmp_path / "no-models"  # no embedded model here
    with FakeOpenAIServer(models=("梨园-测试模型", "other-model")) as fake, pear_serve(home, models) as (
        url,
        _server,
    ):
        fake.default_reply = text_reply("客官请进，", "楼上还有一间临河的房。")
        # `pear serve` set the folder up as `pear chat` does: the bundled card, its book, SYSTEM.md, config.
        assert (home / "config.toml").is_file() and (home / "SYSTEM.md").read_text(encoding="utf-8").strip()
        assert (home / "cards" / "青梧" / "青梧.png").is_file()
        assert (home / "library" / "lorebooks" / "栖水镇.json").is_file()

        # The home page says no model can answer yet, and offers both ways.
        page.goto(url + "/")
        page.wait_for_selector("body[data-first-reply='needed']")
        assert page.locator("#first-reply").is_visible()
        assert "内置模型" in page.locator("#first-reply-why").inner_text()
        assert page.locator(".card-tile", has_text="青梧").is_visible()
        assert not SHELL.search(shown_text(page)), shown_text(page)
        screenshots(page, "first-run-home")
        page.set_viewport_size({"width": 1200, "height": 850})

        # The first message without a model: its error names no command and links to what fixes it.
        page.locator(".card-tile a", has_text="青梧").click()
        page.locator("#start-chat").click()
        page.wait_for_url(A_CHAT)  # the page before was ready too: wait for the chat's own page
        wait_ready(page)
        page.fill("#composer", "掌柜，还有空房吗？")
        page.click("#send")
        toast = page.locator("#toast.error")
        toast.wait_for()
        assert "内置模型" in toast.inner_text() and not SHELL.search(toast.inner_text()), toast.inner_text()
        assert page.locator("#warnings").is_hidden()  # no SYSTEM.md warning in a folder the app set up
        screenshot(page, "first-run-no-model", viewport_only=True)
        toast.locator("a.fix-link").click()
        page.wait_for_selector("body[data-first-reply='needed']")

        # Connect a model inline: address, key (stored), the model list, a test, then in force.
        page.fill("#connect-url", fake.base_url)
        page.fill("#connect-key", KEY)
        page.click("#connect-list")
        page.wait_for_selector("#connect-result:has-text('2 个模型')")
        offered = page.eval_on_selector_all("#connect-models option", "options => options.map(o => o.value)")
        assert sorted(offered) == ["other-model", "梨园-测试模型"] and page.input_value("#connect-model") in offered
        page.fill("#connect-model", "梨园-测试模型")
        page.click("#connect-try")
        page.wait_for_selector("#connect-result:has-text('通了')")
        assert "楼上还有一间临河的房" in page.locator("#connect-result").inner_text()
        page.click("#connect-save")
        page.wait_for_selector("body[data-first-reply='ready']")
        assert "梨园-测试模型" in page.locator("#first-reply-model").inner_text()
        assert not SHELL.search(shown_text(page)), shown_text(page)

        # Back to the chat: the message that had no reply gets one.
        page.locator("#first-reply-start").click()
        page.wait_for_url(A_CHAT)
        wait_ready(page)
        page.click("#regenerate")
        page.wait_for_selector("li.msg.assistant:has-text('楼上还有一间临河的房')")
        assert "SYSTEM.md" not in page.locator("#warnings").inner_text()  # (the fake answers scene notes in prose)
        assert not SHELL.search(shown_text(page)), shown_text(page)

    # The key was stored as the settings page stores it (0600 in keys/, not in config.toml) and sent.
    config = (home / "config.toml").read_text(encoding="utf-8")
    names = re.findall(r"^\[providers\.([^\]]+)\]", config, re.MULTILINE)
    assert len(names) == 1 and KEY not in config
    key_file = home / "keys" / f"{names[0]}.key"
    assert key_file.read_text(encoding="utf-8") == KEY and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    chats = fake.chat_requests
    assert chats and all(r.headers.get("authorization") == f"Bearer {KEY}" for r in chats)
    assert any("掌柜，还有空房吗？" in json.dumps(r.body, ensure_ascii=False) for r in chats)


def test_a_folder_that_is_set_up_is_left_as_it_is(tmp_path: Path) -> None:
    """`pear serve` seeds only a folder without config.toml (as `pear chat` does): a SYSTEM.md the user
    emptied, or a card they deleted, stays so."""
    home = tmp_path / "home"
    with pear_serve(home, tmp_path / "models") as (_url, _server):
        pass
    (home / "SYSTEM.md").write_text("", encoding="utf-8")
    for path in (home / "cards" / "青梧").iterdir():
        path.unlink()
    (home / "cards" / "青梧").rmdir()
    with pear_serve(home, tmp_path / "models") as (_url, server):
        pass
    assert (home / "SYSTEM.md").read_text(encoding="utf-8") == ""
    assert not (home / "cards" / "青梧").exists()
    assert "已创建数据文件夹" not in (server.stdout.read() if server.stdout else "")


@pytest.mark.parametrize("kind", ["bad-url", "unset-variable"])
def test_the_connect_form_says_what_is_wrong_in_one_line(page: Page, tmp_path: Path, kind: str) -> None:
    home = tmp_path / "home"
    with pear_serve(home, tmp_path / "models") as (url, _server):
        before = (home / "config.toml").read_bytes()
        page.goto(url + "/")
        page.wait_for_selector("body[data-first-reply='needed']")
        if kind == "bad-url":
            page.fill("#connect-url", "api.deepseek.com")
            page.evaluate("document.getElementById('connect-url').type = 'text'")  # past the browser's own check
        else:
            page.fill("#connect-url", "http://127.0.0.1:9/v1")
            page.check("input[name='connect-key-kind'][value='env']")
            page.fill("#connect-key-env", "PEAR_NO_SUCH_VARIABLE_47")
        page.click("#connect-list")
        result = page.locator("#connect-result.error")
        result.wait_for()
        said = result.inner_text()
        assert {"bad-url": "http://", "unset-variable": "环境变量"}[kind] in said
        assert "\n" not in said.strip() and "Traceback" not in said
    assert (home / "config.toml").read_bytes() == before  # nothing was saved



def _embedded_ready() -> bool:
    from peargarden.providers.llama_session import runtime_version
    from peargarden.providers.model_catalog import DEFAULT, FALLBACK
    from peargarden.providers.model_fetch import installed_path

    return bool(runtime_version()) and any(installed_path(model) is not None for model in (DEFAULT, FALLBACK))


@pytest.mark.slow
@pytest.mark.skipif(not _embedded_ready(), reason="the embedded runtime or model is not here (bash scripts/chat.sh)")
def test_a_new_user_gets_a_first_reply_from_the_built_in_model(page: Page, tmp_path: Path) -> None:
    """The same walk with the embedded model this machine has: nothing to connect, a reply written by
    llama.cpp (a minute at most on two busy cores)."""
    home = tmp_path / "新的数据文件夹"
    home.mkdir()
    with pear_serve(home, None) as (url, _server):
        page.goto(url + "/")
        page.wait_for_selector("body[data-first-reply='ready']")
        assert "内置模型" in page.locator("#first-reply-model").inner_text()
        page.locator("#first-reply-start").click()
        page.locator("#start-chat").click()
        page.wait_for_url(A_CHAT)  # the page before was ready too: wait for the chat's own page
        wait_ready(page)
        page.fill("#composer", "掌柜，还有空房吗？")
        page.click("#send")
        page.wait_for_selector("body[data-beats='1']", timeout=240_000)
        reply = page.locator("#messages li.msg.assistant").last
        assert reply.inner_text().strip() and page.locator("#toast.error").count() == 0
        assert not SHELL.search(shown_text(page)), shown_text(page)

