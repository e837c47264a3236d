"""A chat whose every reply carries a card's status bar (issue 29 point 5): what opening it costs in Chromium.

The MVU card of the browser tests (``tests/web/status_card.py``: ``[initvar]`` seed, a fenced status bar
using jQuery and lodash, Vue and Font Awesome from CDNs) plays ``--replies`` beats in tavern mode against
the fake OpenAI server; then a live server and Debian's Chromium open the chat ``--repeat`` times.
Seconds from ``page.goto`` (the median):

- ``ready``: the page drew its window (``body[data-ready]``);
- ``bars``: every bar made so far has reported its size (bars are made as they come near the screen);
- ``made``: how many bars were made by then, of ``framed`` status frames in the window.

    .venv/bin/python bench/bench_status_bars.py [--replies 60] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

from status_card import CARD, add_status_card, reply, tavern_config  # type: ignore[import-not-found]
from web_harness import CHROMIUM, CHROMIUM_ARGS, LiveServer  # type: ignore[import-not-found]

from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

DRAWN = (
    "(() => { const made = [...document.querySelectorAll('iframe.status-frame')].filter((f) => f.srcdoc);"
    " return made.length > 0 && made.every((f) => parseFloat(f.style.height) > 0); })()"
)

MADE = "[...document.querySelectorAll('iframe.status-frame')].filter((f) => f.srcdoc).length"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replies", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, FakeOpenAIServer() as fake:
        home = Home(Path(folder))
        seed_home(home)
        add_status_card(home)
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        fake.script([text_reply(reply(f"林晚第{n}次斟茶。", f"_.set('林晚.好感度', {n}, {n + 1});"))
                     for n in range(args.replies)])  # fmt: skip
        chat = PearApp(home).new_chat(CARD, ChatOptions(mode="tavern"))
        for n in range(args.replies):
            list(chat.play("send", f"第{n}句").events())
        with LiveServer(home) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            url = f"{server.base_url}/chat/{urllib.parse.quote(CARD)}/{chat.chat_id}"
            ready, bars, made, framed = [], [], 0, 0
            for _ in range(args.repeat):
                start = time.perf_counter()
                page.goto(url)
                page.wait_for_selector("body[data-ready='1']")
                ready.append(time.perf_counter() - start)
                page.wait_for_function(DRAWN, timeout=120_000)
                bars.append(time.perf_counter() - start)
                made = page.evaluate(MADE)
                framed = page.evaluate("document.querySelectorAll('iframe.status-frame').length")
            browser.close()
    print(f"replies={args.replies} ready={statistics.median(ready):.2f}s bars={statistics.median(bars):.2f}s "
          f"made={made} framed={framed}")  # fmt: skip


if __name__ == "__main__":
    main()
