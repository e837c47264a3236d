"""Installing the built-in model from the home page (issue 47, item 2), in Chromium against stand-in
steps (nothing is built or downloaded: tests/kit/fake_setup.py): the work as it happens — the build's
files and time left, the download's bytes, the self-test — in the server's background, so a reload
shows it again; "停止" stops it; a machine that cannot build says what to do in one line."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import LiveServer, screenshots

from kit.fake_setup import FakeSetup
from peargarden.providers.runtime_build import tools_error
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

SHELL = re.compile(r"`|\bpear (?:init|models|chat)\b|\bbash\b|scripts/|apt-get|pip install|sudo")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("PEARGARDEN_MODELS", str(tmp_path / "no-models"))  # no model: the page offers to install
    found = Home(tmp_path / "数据")
    seed_home(found)
    return found


def served(home: Home, fake: FakeSetup) -> LiveServer:
    return LiveServer(home, setup_steps=lambda _home: fake.steps())


def step(page: Page, name: str) -> str:
    return page.locator(f"#setup-steps li[data-step='{name}']").inner_text()


BUILD_HELD = "document.querySelector(\"li[data-step='runtime'] progress\")?.value === 16"


def start(page: Page, server: LiveServer) -> None:
    """The home page of a machine without the built-in model; "安装内置模型" clicked, the build held at
    16 of 40 files (the stand-in's gate)."""
    page.goto(server.base_url + "/")
    page.wait_for_selector("body[data-first-reply='needed']")
    page.click("#setup-start")
    page.wait_for_function(BUILD_HELD)


@pytest.fixture
def gates() -> Iterator[dict[str, threading.Event]]:
    held = {"build": threading.Event(), "fetch": threading.Event()}
    yield held
    for gate in held.values():
        gate.set()  # a test that failed half-way leaves no step waiting


def test_the_work_shows_as_it_happens_and_a_reload_finds_it_again(
    page: Page, home: Home, gates: dict[str, threading.Event]
) -> None:
    fake = FakeSetup(gates=gates)
    with served(home, fake) as server:
        start(page, server)
        # The build: files compiled of all, a bar, the time left.
        bar = page.locator("#setup-steps li[data-step='runtime'] progress")
        assert bar.get_attribute("max") == "40" and "16/40" in step(page, "runtime")
        assert "还要约 2 分钟" in step(page, "runtime")
        assert "等待" in step(page, "model") and "等待" in step(page, "check")
        assert page.is_visible("#setup-cancel") and page.is_hidden("#setup-start")
        screenshots(page, "embedded-setup")
        page.set_viewport_size({"width": 1200, "height": 850})
        # A reload: the work goes on in the server, and the page shows it again.
        page.reload()
        page.wait_for_selector("body[data-embedded-setup='running']")
        assert "16/40" in step(page, "runtime") and page.is_hidden("#setup-start")
        gates["build"].set()
        # The download: megabytes of the model's size.
        page.wait_for_function("document.querySelector(\"li[data-step='model'] progress\")?.value === 245500000")
        assert "246 / 491 MB" in step(page, "model") and "完成" in step(page, "runtime")
        gates["fetch"].set()
        page.wait_for_selector("body[data-embedded-setup='done']")
        assert [("完成" in step(page, name)) for name in ("runtime", "model", "check")] == [True, True, True]
        page.locator("#toast", has_text="内置模型装好了").wait_for()
        assert page.is_hidden("#setup-cancel")
    assert fake.calls == ["build:native", "fetch:qwen-0.5b", "check"]


def test_stop_stops_the_step_running_and_the_work_can_start_again(
    page: Page, home: Home, gates: dict[str, threading.Event]
) -> None:
    fake = FakeSetup(gates=gates)
    with served(home, fake) as server:
        start(page, server)
        page.click("#setup-cancel")
        page.wait_for_selector("body[data-embedded-setup='cancelled']")
        assert "已停止" in step(page, "runtime") and "等待" in step(page, "model")
        assert page.is_hidden("#setup-error") and page.is_visible("#setup-start")  # it may start again
        assert fake.runtime is False and fake.calls == ["build:native"]
        gates["build"].set()
        gates["fetch"].set()
        page.click("#setup-start")
        page.wait_for_selector("body[data-embedded-setup='done']")
    assert fake.calls == ["build:native", "build:native", "fetch:qwen-0.5b", "check"]


def test_a_machine_that_cannot_build_says_what_to_do_in_one_line(page: Page, home: Home) -> None:
    fake = FakeSetup(fail={"build": tools_error(["cmake", "g++", "make"])})
    with served(home, fake) as server:
        page.goto(server.base_url + "/")
        page.wait_for_selector("body[data-first-reply='needed']")
        page.click("#setup-start")
        page.wait_for_selector("body[data-embedded-setup='failed']")
        said = page.inner_text("#setup-error")
        assert "cmake、g++、make" in said and "连接一个模型" in said and "\n" not in said.strip()
        assert not SHELL.search(page.evaluate("document.body.innerText"))
        assert "失败" in step(page, "runtime") and page.is_visible("#setup-start")
