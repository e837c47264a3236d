"""What the features beside the chat (issue 48) cost a chat-page load: the page with them against the
same page with their script held back, side by side in one run (the two loads alternate), and the
server's part (the answer the page carries, the theme's stylesheet) per call.

Two data folders: one with nothing configured (every feature says it is off), one with all of them on
(translation, voices, pictures against the fake media servers; 28 sprites on the card; a theme with
its CSS), so a load draws the sprite and the translations.  Figures are means over ``--repeat`` loads
of each after one untimed load: ``browser`` the CPU of chromium's processes, ``server`` of this one
(the web server and Playwright's client), ``wall`` the time to ``body[data-ready]`` (and, with the
extras, to ``body[data-extras-ready]``).

    .venv/bin/python bench/bench_extras_page.py [--repeat 12] [--against REV]

``--against REV``: a third load in each round, the page with the extras' scripts as they were at git
revision REV (served in their place through Playwright), so a change to them is measured side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_page_load import children_cpu  # type: ignore[import-not-found]
from playwright.sync_api import Page, sync_playwright
from web_harness import (  # type: ignore[import-not-found]
    CHROMIUM,
    CHROMIUM_ARGS,
    LOCALE,
    VIEWPORT,
    LiveServer,
    fake_provider_config,
    new_chat,
)

from peargarden.extras.expressions import LABELS
from peargarden.testing.fake_media import FakeMediaServer, tiny_png
from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def all_on(home: Home, media: str) -> str:
    """Every feature on: its tables, 28 sprites on 青梧, a theme with CSS in force."""
    sprites = home.card_dir("青梧") / "sprites"
    sprites.mkdir()
    for label in LABELS:
        (sprites / f"{label}.png").write_bytes(tiny_png())
    themes = home.root / "library" / "themes"
    themes.mkdir(parents=True)
    theme = {"name": "青瓷", "main_text_color": "rgba(20, 60, 80, 1)", "blur_strength": 6, "chat_display": 1,
             "custom_css": ".md q { color: teal; }\n" * 40}  # fmt: skip
    (themes / "青瓷.json").write_text(json.dumps(theme, ensure_ascii=False), encoding="utf-8")
    return (
        f'[translate]\nbackend = "libre"\nbase_url = "{media}"\n[tts]\nbackend = "openai"\nbase_url = "{media}/v1"\n'
        f'[pictures]\nbackend = "sdwebui"\nbase_url = "{media}"\n[expressions]\nclassify = "keywords"\n'
        '[theme]\nname = "青瓷"\nmode = "dark"\n'
    )


EXTRAS_SCRIPTS = ("chat_extras.js", "translate.js", "expressions.js", "tts.js", "pictures.js")


def scripts_at(revision: str) -> dict[str, bytes]:
    """The extras' scripts as they were at git *revision* (a script it did not have is left out)."""
    root = Path(__file__).resolve().parents[1]
    found = {}
    for name in EXTRAS_SCRIPTS:
        shown = subprocess.run(["git", "show", f"{revision}:src/peargarden/web/static/{name}"], cwd=root,
                               capture_output=True, check=False)  # fmt: skip
        if shown.returncode == 0:
            found[name] = shown.stdout
    return found


def serving(body: bytes | None) -> Callable[[Any], None]:
    """A route handler that answers with a script as it was (a script the revision did not have: none)."""

    def serve(route: Any) -> None:
        if body is None:
            route.abort()
        else:
            route.fulfill(body=body, content_type="text/javascript")

    return serve


def timed(label: str, runs: dict[str, Callable[[], None]], repeat: int) -> None:
    """Each of *runs* once untimed, then *repeat* rounds of all of them in turn; a line each, and the
    ratio of each to the last (the page without the extras)."""
    me = os.getpid()
    spent = {name: [0.0, 0.0, 0.0] for name in runs}
    for run in runs.values():
        run()
    for _ in range(repeat):
        for name, run in runs.items():
            browser, server, wall = children_cpu(me), time.process_time(), time.perf_counter()
            run()
            spent[name][0] += children_cpu(me) - browser
            spent[name][1] += time.process_time() - server
            spent[name][2] += time.perf_counter() - wall
    base = list(spent.values())[-1]
    for name, (browser, server, wall) in spent.items():
        print(f"{label:20} {name:24} browser {1000 * browser / repeat:6.1f} ms ({browser / base[0]:4.2f})  "
              f"server {1000 * server / repeat:5.1f} ms ({server / base[1]:4.2f})  "
              f"wall {1000 * wall / repeat:6.1f} ms ({wall / base[2]:4.2f})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=12)
    parser.add_argument("--against", help="a git revision whose extras' scripts load in a third page")
    args = parser.parse_args()
    repeat = args.repeat
    old = scripts_at(args.against) if args.against else {}
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as fake, FakeMediaServer() as media, \
            sync_playwright() as playwright:  # fmt: skip
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for label in ("nothing configured", "every feature on"):
            home = Home(Path(tmp) / label.replace(" ", "-"))
            seed_home(home)
            extra = all_on(home, media.url) if label == "every feature on" else ""
            home.config_file.write_text(fake_provider_config(fake.base_url) + extra, encoding="utf-8")
            with LiveServer(home) as server:
                chat_id = new_chat(server.base_url)
                url = f"{server.base_url}/chat/{urllib.parse.quote('青梧')}/{chat_id}"
                context = browser.new_context(viewport=VIEWPORT, locale=LOCALE)
                # Both pages go through Playwright's request interception (which costs every request
                # something): one lets the extras' script through, the other holds it back.
                page = context.new_page()
                page.route("**/chat_extras.js", lambda route: route.continue_())
                held = context.new_page()
                held.route("**/chat_extras.js", lambda route: route.abort())

                def with_extras(page: Page = page, url: str = url) -> None:
                    page.goto(url)
                    page.wait_for_selector("body[data-ready='1'][data-extras-ready='1']")

                def without(held: Page = held, url: str = url) -> None:
                    held.goto(url)
                    held.wait_for_selector("body[data-ready='1']")

                runs = {"with the extras": with_extras}
                if args.against:
                    then = context.new_page()
                    for name in EXTRAS_SCRIPTS:
                        then.route(f"**/{name}", serving(old.get(name)))

                    def with_old(then: Page = then, url: str = url) -> None:
                        then.goto(url)
                        then.wait_for_selector("body[data-ready='1'][data-extras-ready='1']")

                    runs[f"as at {args.against}"] = with_old
                runs["their script held back"] = without
                timed(label, runs, repeat)
                api = f"{server.base_url}/api/chats/{urllib.parse.quote('青梧')}/{chat_id}/extras"

                def carried(api: str = api) -> None:
                    for _ in range(20):
                        with urllib.request.urlopen(api, timeout=20) as response:
                            response.read()

                started, wall = time.process_time(), time.perf_counter()
                for _ in range(repeat):
                    carried()
                print(f"{label:20} GET …/extras (the answer the page carries), per call: "
                      f"server+client CPU {1000 * (time.process_time() - started) / (20 * repeat):5.2f} ms, "
                      f"wall {1000 * (time.perf_counter() - wall) / (20 * repeat):5.2f} ms")  # fmt: skip
                context.close()
        browser.close()


if __name__ == "__main__":
    main()
