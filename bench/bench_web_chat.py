"""The chat page at real chat lengths, in a real browser (Debian's chromium through Playwright).

For each size a SillyTavern chat JSONL is written (user and character alternating, Chinese text,
every reply with three swipes, the middle one chosen) and imported the way the web imports it
(``PearApp.import_chat``); a live server (uvicorn on loopback, the model the fake OpenAI server)
serves the chat page at 1280×800 and at 390×844 (a phone).  Per size and viewport:

- ``ready``: milliseconds from navigation to the page's ``pear-ready`` mark (the window drawn, the
  chat list and personas read), the median of ``--repeat`` loads with the chat already open in the
  server (``cold``: the first load, which opens the chat from its session index);
- ``nodes``: elements in the page once the branch tree is drawn too;
- ``usable``: milliseconds from the last streamed piece of a reply to the page taking input again
  (the ``pear-usable`` mark; with after-beat work, at ``reply_end``, before the reply is drawn as
  kept: ``bench_chat_page.py`` times that too), the median of ``--beats`` beats;
- ``scroll p95`` / ``max``: frame times (``requestAnimationFrame`` deltas) while the wheel scrolls the
  messages up for ``--scroll`` steps, loading older messages on the way;
- ``drawn``: messages in the page after that scroll (the window is capped).

    .venv/bin/python bench/bench_web_chat.py [--sizes 20,2000,20000] [--repeat 5] [--beats 5] [--scroll 60]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

from web_harness import (  # type: ignore[import-not-found]
    CHROMIUM,
    CHROMIUM_ARGS,
    LiveServer,
    fake_provider_config,
    long_st_chat,
)

from peargarden.app.play.service import PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CARD = "青梧"
VIEWPORTS = ((1280, 800), (390, 844))


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


FRAMES_JS = """() => new Promise((done) => {
  window.__frames = []; let last = performance.now();
  function tick(now) { window.__frames.push(now - last); last = now; if (!window.__stop) requestAnimationFrame(tick); }
  window.__stop = false; requestAnimationFrame(tick); done();
})"""


USABLE_JS = "(() => { const m = performance.getEntriesByName('pear-usable').at(-1); return m.startTime - m.detail.lastToken; })()"  # noqa: E501


def ready_ms(page: Any) -> float:
    page.wait_for_selector("body[data-ready='1']")
    return float(page.evaluate("performance.getEntriesByName('pear-ready')[0].startTime"))


def measure(page: Any, url: str, fake: FakeOpenAIServer, repeat: int, beats: int, scroll: int) -> dict[str, Any]:
    page.goto(url)
    cold = ready_ms(page)
    loads = []
    for _ in range(repeat):
        page.goto(url)
        loads.append(ready_ms(page))
    page.wait_for_selector("#tree .node")
    nodes = int(page.evaluate("document.getElementsByTagName('*').length"))
    usable = []
    for beat in range(beats):
        fake.script([text_reply("客官，", "听雨轩今日有新茶，", "您尝尝。")])
        page.fill("#composer", f"掌柜，今天有什么茶？（{beat}）")
        page.click("#send")
        page.wait_for_selector(f"body[data-beats='{beat + 1}']")
        usable.append(float(page.evaluate(USABLE_JS)))
    box = page.locator("#messages").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.evaluate(FRAMES_JS)
    for _ in range(scroll):
        page.mouse.wheel(0, -600)
        page.wait_for_timeout(16)
    page.wait_for_timeout(300)
    frames = page.evaluate("(() => { window.__stop = true; return window.__frames.slice(1); })()")
    drawn = int(page.evaluate("document.querySelectorAll('#messages li.msg').length"))
    return {"cold": cold, "ready": statistics.median(loads), "nodes": nodes, "usable": statistics.median(usable),
            "p95": p95(frames), "max": max(frames), "drawn": drawn}  # fmt: skip


def run(sizes: list[int], repeat: int, beats: int, scroll: int) -> None:
    from playwright.sync_api import sync_playwright

    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    print(f"{'messages':>8} {'viewport':>9} {'cold':>7} {'ready':>7} {'nodes':>6} {'usable':>7} {'scroll p95':>10}"
          f" {'max':>6} {'drawn':>6}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as fake, sync_playwright() as playwright:
        home = Home(Path(tmp) / "home")
        seed_home(home)
        home.config_file.write_text(fake_provider_config(fake.base_url), encoding="utf-8")
        app = PearApp(home)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for size in sizes:
                for width, height in VIEWPORTS:
                    # A chat per viewport, imported as the web imports one: each run starts from the
                    # same chat, cold in the server.
                    chat = app.import_chat(CARD, long_st_chat(size), f"长对话-{size}.jsonl")
                    with LiveServer(home) as server:
                        page = browser.new_page(viewport={"width": width, "height": height}, locale="zh-CN")
                        row = measure(page, f"{server.base_url}/chat/{CARD}/{chat.chat_id}", fake, repeat, beats,
                                      scroll)  # fmt: skip
                        page.close()
                    print(f"{size:>8} {f'{width}×{height}':>9} {row['cold']:>7.0f} {row['ready']:>7.0f}"
                          f" {row['nodes']:>6} {row['usable']:>7.1f} {row['p95']:>10.1f} {row['max']:>6.1f}"
                          f" {row['drawn']:>6}", flush=True)  # fmt: skip
        finally:
            browser.close()
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="20,2000,20000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--beats", type=int, default=5)
    parser.add_argument("--scroll", type=int, default=60)
    args = parser.parse_args()
    run([int(s) for s in args.sizes.split(",")], args.repeat, args.beats, args.scroll)


if __name__ == "__main__":
    main()
