"""The chat page of issue 47: what a load transfers and when the page takes input after a reply, at
20 and 20,000 messages, with scene notes on, in a real browser (Debian's chromium through Playwright).

For each size a SillyTavern chat (the character and the user alternating, every reply with three
swipes) is imported as the web imports one and served by a live server (uvicorn on loopback in this
process) whose model is the fake OpenAI server; scene notes are on, their side call answered after
``--side`` seconds (a real side model takes about that), the stage's compaction answered at once with
an error (a 20,000-message chat is due for it every beat; its retries are not what is measured).  A
persona with the bundled card's picture speaks, so the page shows two pictures.

- ``bytes``: what a load of the chat page transfers (headers and bodies, HTTP cache empty), by kind,
  the median of ``--loads`` loads; two variants side by side in the same run, load by load alternated:
  ``thumbs`` as the page is, and ``full``, the same page with its picture requests sent to the whole
  picture (the page before this change);
- ``ready``: navigation → the page's ``pear-ready`` mark; ``browser``/``server``: the CPU of chromium's
  processes and of this process (the server's thread and Playwright's client) during the load;
- ``usable``: the last streamed piece of a reply → the composer taking input (``pear-usable``), and
  ``kept``: → the reply drawn as kept (``pear-kept``, when the page used to give the composer back), the
  median of ``--beats`` beats;
- ``waits``: of ``--scroll`` wheel notches of 800 px, one every 100 ms up the chat, after how many the
  "show earlier" item was on the screen (the reader waited for older messages), and how many older
  messages came in.

    .venv/bin/python bench/bench_chat_page.py [--sizes 20,20000] [--loads 5] [--beats 5] [--scroll 40] [--side 1.5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_page_load import children_cpu  # type: ignore[import-not-found]
from web_harness import (  # type: ignore[import-not-found]
    CHROMIUM,
    CHROMIUM_ARGS,
    LiveServer,
    fake_provider_config,
    long_st_chat,
)

from peargarden.app.play.service import PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, Pause, chunk, sse, status, text_reply, usage_chunk
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CARD = "青梧"
PERSONA = "白露"
KINDS = ("document", "script", "stylesheet", "image", "fetch")

USABLE_JS = """(() => {
  const usable = performance.getEntriesByName('pear-usable').at(-1);
  const kept = performance.getEntriesByName('pear-kept').at(-1);
  return [usable.startTime - usable.detail.lastToken, kept.startTime - kept.detail.lastToken];
})()"""
LOADER_IN_VIEW = """() => {
  const item = document.querySelector('#messages li.more-older'), list = document.getElementById('messages');
  if (!item || item.hidden) return false;
  const scrolls = getComputedStyle(list).overflowY !== 'visible';
  const view = scrolls ? list.getBoundingClientRect() : { top: 0, bottom: innerHeight };
  const box = item.getBoundingClientRect();
  return box.bottom > view.top && box.top < view.bottom;
}"""
FIRST_DRAWN = "Math.min(...[...document.querySelectorAll('#messages li.msg[data-index]')].map((li) => +li.dataset.index))"  # noqa: E501


def side_notes(seconds: float) -> Any:
    """The scene notes' side call: a valid answer after *seconds*."""
    notes = json.dumps({"notes": [{"kind": "fact", "text": "掌柜记下了这一夜。"}]}, ensure_ascii=False)
    return sse(Pause(seconds), chunk(role="assistant", content=notes), chunk(finish_reason="stop"), usage_chunk(9, 9))


def load(page: Any, url: str, full: bool) -> dict[str, float]:
    """One load of the chat page with the HTTP cache empty: bytes by kind, ready, CPU."""
    sizes = dict.fromkeys(KINDS, 0.0)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.clearBrowserCache")

    def count(request: Any) -> None:
        kind = request.resource_type if request.resource_type in KINDS else "fetch"
        try:
            measured = request.sizes()
        except Exception:  # a request that failed: nothing transferred to count
            return
        sizes[kind] += measured["responseBodySize"] + measured["responseHeadersSize"]

    page.on("requestfinished", count)
    if full:  # the page before: every picture whole
        page.route("**/avatar?size=*", lambda route: route.continue_(url=route.request.url.split("?")[0]))
    browser_before, server_before = children_cpu(os.getpid()), time.process_time()
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_load_state("networkidle")
    ready = float(page.evaluate("performance.getEntriesByName('pear-ready')[0].startTime"))
    browser, server = children_cpu(os.getpid()) - browser_before, time.process_time() - server_before
    page.remove_listener("requestfinished", count)
    if full:
        page.unroute("**/avatar?size=*")
    cdp.detach()
    return {**sizes, "total": sum(sizes.values()), "ready": ready, "browser": browser * 1000, "server": server * 1000}


def beats(page: Any, fake: FakeOpenAIServer, count: int, side: float, compaction: bool) -> list[list[float]]:
    out = []
    for beat in range(count):
        replies = [text_reply("客官，", "听雨轩今日有新茶，", "您尝尝。"), side_notes(side)]
        if compaction:
            replies.insert(1, status(400, "bench: no summary"))
        fake.script(replies)
        done = int(page.evaluate("Number(document.body.dataset.beats || 0)"))
        page.fill("#composer", f"掌柜，今天有什么茶？（{beat}）")
        page.click("#send")
        page.wait_for_selector(f"body[data-beats='{done + 1}']", timeout=120_000)
        out.append(page.evaluate(USABLE_JS))
    return out


def scroll(page: Any, notches: int) -> tuple[int, int]:
    box = page.locator("#messages").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    first = int(page.evaluate(FIRST_DRAWN))
    waits = 0
    for _ in range(notches):
        page.mouse.wheel(0, -800)
        page.wait_for_timeout(100)
        waits += bool(page.evaluate(LOADER_IN_VIEW))
    return waits, first - int(page.evaluate(FIRST_DRAWN))


def run(sizes: list[int], loads: int, count: int, notches: int, side: float) -> None:
    from playwright.sync_api import sync_playwright

    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as fake, sync_playwright() as playwright:
        home = Home(Path(tmp) / "home")
        seed_home(home)
        config = fake_provider_config(fake.base_url).replace("scene_notes = false", "scene_notes = true")
        home.config_file.write_text(config, encoding="utf-8")
        (home.personas_dir / f"{PERSONA}.json").write_text(json.dumps({"name": PERSONA}, ensure_ascii=False),
                                                          encoding="utf-8")  # fmt: skip
        (home.personas_dir / f"{PERSONA}.png").write_bytes((home.card_dir(CARD) / f"{CARD}.png").read_bytes())
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for size in sizes:
                app = PearApp(home)
                chat = app.import_chat(CARD, long_st_chat(size, user=PERSONA), f"长对话-{size}.jsonl")
                with LiveServer(home) as server:
                    url = f"{server.base_url}/chat/{CARD}/{chat.chat_id}"
                    page = browser.new_page(viewport={"width": 1280, "height": 800}, locale="zh-CN")
                    page.goto(url)  # warm: the chat opened in the server, the browser's modules compiled
                    page.wait_for_selector("body[data-ready='1']")
                    rows: dict[str, list[dict[str, float]]] = {"thumbs": [], "full": []}
                    for _ in range(loads):
                        for variant in ("thumbs", "full"):  # alternated: a drifting load hits both alike
                            rows[variant].append(load(page, url, variant == "full"))
                    for variant, measured in rows.items():
                        median = {key: statistics.median(m[key] for m in measured) for key in measured[0]}
                        print(f"{size:>6} {variant:>6}  total {median['total']:>9,.0f} B"
                              f"  image {median['image']:>8,.0f}  script {median['script']:>7,.0f}"
                              f"  css {median['stylesheet']:>6,.0f}"
                              f"  doc {median['document']:>7,.0f}  fetch {median['fetch']:>7,.0f}"
                              f"  ready {median['ready']:>5.0f} ms  browser {median['browser']:>4.0f} ms"
                              f"  server {median['server']:>4.0f} ms", flush=True)  # fmt: skip
                    ratio = statistics.median(r["total"] for r in rows["full"]) / statistics.median(
                        r["total"] for r in rows["thumbs"])
                    print(f"{size:>6}  full / thumbs bytes: {ratio:.1f}×", flush=True)
                    marks = beats(page, fake, count, side, compaction=size > 1000)
                    usable = statistics.median(m[0] for m in marks)
                    kept = statistics.median(m[1] for m in marks)
                    print(f"{size:>6}  usable {usable:>6.0f} ms   kept {kept:>6.0f} ms   (medians of {count} beats;"
                          f" each {[round(m[0]) for m in marks]} / {[round(m[1]) for m in marks]})", flush=True)
                    if size > 1000:
                        page.goto(url)
                        page.wait_for_selector("body[data-ready='1']")
                        page.wait_for_timeout(300)
                        waits, older = scroll(page, notches)
                        print(f"{size:>6}  scroll {notches} × 800 px every 100 ms: loader in view after {waits},"
                              f" {older} older messages came in", flush=True)  # fmt: skip
                    page.close()
        finally:
            browser.close()
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="20,20000")
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--beats", type=int, default=5)
    parser.add_argument("--scroll", type=int, default=40)
    parser.add_argument("--side", type=float, default=1.5)
    args = parser.parse_args()
    run([int(s) for s in args.sizes.split(",")], args.loads, args.beats, args.scroll, args.side)


if __name__ == "__main__":
    main()
