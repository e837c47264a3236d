"""A chat page with a card's 24 scripts and 50 status bars (issue 45), in Debian's Chromium: what the
scripts cost, side by side with the same chat whose scripts are not allowed, and how fast the composer
answers while one of them loops.

The card (``tests/web/script_card.py``'s MVU card, 24 enabled scripts: MVU, the panel script, and 22
more that each draw a panel and listen to the tavern events, and the status bar of
``tests/web/status_card.py`` on every reply) plays ``--replies`` beats in tavern mode against the fake
OpenAI server; a second folder holds the same card and chat with its scripts not allowed.  A live
server and Chromium (``--site-per-process``, as desktop Chrome) open the chat ``--repeat`` times each:

- ``usable``: seconds from ``page.goto`` until the page is drawn and every script said it is ready
  (``body[data-scripts-ready]``; without scripts: ``body[data-ready]``), the median;
- ``cpu``: the CPU seconds all of Chromium's processes spent over one load (``/proc``), the median;
- ``rss``: Chromium's renderer processes' resident memory once loaded (MB, the last load);
- ``type+send``: with scripts, after a button whose handler is ``while (true) {}`` was clicked:
  milliseconds from filling the composer to the user's message drawn on the page, and to the beat's
  request reaching the model server (``--loops`` times, the median).

    .venv/bin/python bench/bench_script_frames.py [--replies 50] [--scripts 24] [--repeat 3] [--loops 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

from script_card import PANEL, _script, script_card_data  # type: ignore[import-not-found]
from status_card import STATUS_BAR, reply, tavern_config  # type: ignore[import-not-found]
from web_harness import CHROMIUM, CHROMIUM_ARGS, LiveServer  # type: ignore[import-not-found]

from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.formats import card_to_png, read_card
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CARD = "账房阿梨"


def _card(home: Home, scripts: int, allowed: bool) -> None:
    data: Any = script_card_data(looping=True)
    helper = data["data"]["extensions"]["tavern_helper"]
    kept = [s for s in helper["scripts"] if s["name"] != "想逃出去的脚本"]
    for n in range(max(0, scripts - len(kept))):
        kept.append(_script(f"面板{n}", PANEL.replace("阿梨面板", f"面板{n}"), [], f"1{n:02d}-panel"))
    helper["scripts"] = kept[:scripts]
    bar = data["data"]["extensions"]["regex_scripts"][0]
    bar["replaceString"] = f"```html\n{STATUS_BAR}\n```"
    card = read_card(json.dumps(data, ensure_ascii=False).encode("utf-8"), f"{CARD}.json")
    folder = home.card_dir(CARD)
    folder.mkdir(parents=True)
    avatar = (home.card_dir("青梧") / "青梧.png").read_bytes()
    (folder / f"{CARD}.png").write_bytes(card_to_png(card, avatar))
    (folder / "卡.json").write_text(json.dumps({"regex_allowed": True, "scripts_allowed": allowed}), encoding="utf-8")


def _chromium_cpu() -> float:
    """CPU seconds (user + system) of every Chromium process now."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                head, fields = stat.read().rsplit(")", 1)
            if "chrom" not in head:
                continue
            parts = fields.split()
            total += (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            continue
    return total


def _renderers_rss() -> float:
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmd:
                if b"--type=renderer" not in cmd.read():
                    continue
            with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
                total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e6


def _play(home: Home, fake: FakeOpenAIServer, replies: int) -> str:
    fake.script([text_reply(reply(f"阿梨第{n}次记账。", f"_.set('房东.资金', {30 + n}, {31 + n});"))
                 for n in range(replies)])  # fmt: skip
    chat = PearApp(home).new_chat(CARD, ChatOptions(mode="tavern"))
    for n in range(replies):
        list(chat.play("send", f"第{n}笔").events())
    return chat.chat_id


def _measure(page: Any, url: str, repeat: int, ready: str) -> tuple[float, float, float]:
    usable, cpu = [], []
    for _ in range(repeat):
        page.goto("about:blank")
        before = _chromium_cpu()
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(ready, timeout=300_000)
        usable.append(time.perf_counter() - start)
        time.sleep(1.0)  # what the frames do right after (their first events, sizes)
        cpu.append(_chromium_cpu() - before)
    return statistics.median(usable), statistics.median(cpu), _renderers_rss()


def _type_and_send(page: Any, fake: FakeOpenAIServer, loops: int) -> tuple[float, float]:
    drawn, sent = [], []
    for n in range(loops):
        page.wait_for_selector("#script-buttons button:has-text('卡死')", timeout=120_000)
        fake.script([text_reply(f"好的{n}。")])
        asked = len(fake.chat_requests)
        page.locator("#script-buttons button", has_text="卡死").click()
        time.sleep(0.3)  # the loop has begun
        start = time.perf_counter()
        page.fill("#composer", f"循环时说的第{n}句")
        page.click("#send")
        page.wait_for_selector("#messages li.msg.pending")
        drawn.append((time.perf_counter() - start) * 1000)
        while len(fake.chat_requests) == asked:
            time.sleep(0.005)
        sent.append((time.perf_counter() - start) * 1000)
        page.wait_for_selector("body[data-beats='1']", timeout=120_000)  # (counted per page load)
        page.reload()  # the looping script was stopped: a fresh page has it again
        page.wait_for_selector("body[data-scripts-ready]", timeout=300_000)
    return statistics.median(drawn), statistics.median(sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replies", type=int, default=50)
    parser.add_argument("--scripts", type=int, default=24)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loops", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, FakeOpenAIServer() as fake:
        homes = {}
        for allowed in (True, False):
            home = Home(Path(folder) / ("on" if allowed else "off"))
            seed_home(home)
            _card(home, args.scripts, allowed)
            home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
            homes[allowed] = (home, _play(home, fake, args.replies))
        results = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for allowed in (False, True):
                home, chat_id = homes[allowed]
                with LiveServer(home) as server:
                    page = browser.new_page()
                    url = f"{server.base_url}/chat/{urllib.parse.quote(CARD)}/{chat_id}"
                    ready = f"body[data-scripts-ready='{args.scripts}']" if allowed else "body[data-ready='1']"
                    results[allowed] = _measure(page, url, args.repeat, ready)
                    if allowed and args.loops:
                        drawn, sent = _type_and_send(page, fake, args.loops)
                        print(f"while(true) in a script: type+send drawn={drawn:.0f}ms request={sent:.0f}ms "
                              f"(median of {args.loops})")  # fmt: skip
                    page.close()
            browser.close()
    off, on = results[False], results[True]
    print(f"replies={args.replies} scripts={args.scripts} (chromium: {CHROMIUM})")
    print(f"  no scripts: usable={off[0]:.2f}s cpu={off[1]:.2f}s rss={off[2]:.0f}MB")
    print(f"  scripts:    usable={on[0]:.2f}s cpu={on[1]:.2f}s rss={on[2]:.0f}MB")
    print(f"  ratio:      usable x{on[0] / off[0]:.2f} cpu x{on[1] / max(off[1], 0.01):.2f} rss x{on[2] / off[2]:.2f}")


if __name__ == "__main__":
    main()
