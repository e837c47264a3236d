"""Fixtures for the web tests: a real server (uvicorn on loopback) and a real browser (Debian chromium)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import CHROMIUM, CHROMIUM_ARGS, LiveServer, Served, SharedPage, fake_provider_config

from kit.cli import pear_in_process
from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture
def seeded_home(home_dir: Path) -> Home:
    """A data folder set up by `pear init` (the bundled card 青梧 and its lorebook), run in this process."""
    pear_in_process(home_dir, "init", check=True)
    return Home(home_dir)


@pytest.fixture
def live_server(seeded_home: Home) -> Iterator[LiveServer]:
    with LiveServer(seeded_home) as server:
        yield server


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not os.path.exists(CHROMIUM):
        missing = f"no browser at {CHROMIUM} (Debian chromium: scripts/test.sh installs it when run as root)"
        # scripts/test.sh asks for the browser tests (PEARGARDEN_BROWSER=required): a run that skipped
        # them all would pass without having looked at a single page.
        if os.environ.get("PEARGARDEN_BROWSER") == "required":
            pytest.fail(f"{missing}; the browser tests cannot run (PEARGARDEN_NO_BROWSER=1: run without them)")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def shared_page(browser: Browser) -> Iterator[SharedPage]:
    """The worker's one page; tests take ``page`` (and this only for what a page alone cannot set)."""
    shared = SharedPage(browser)
    yield shared
    shared.close()


@pytest.fixture
def page(shared_page: SharedPage) -> Iterator[Page]:
    """The worker's page, reset after each test and checked before the next one (web_harness.SharedPage).

    A reset that fails is an error of the test that left the page so; the next test gets a new page.
    """
    shared_page.check_fresh()
    yield shared_page.page
    try:
        shared_page.reset()
    except Exception:
        shared_page.renew()
        raise


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One fake model server and one web server for a whole test module."""
    from peargarden.workspace.seed import seed_home

    home = Home(tmp_path_factory.mktemp("served-home"))
    seed_home(home)
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(fake_provider_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)
