"""What one page load costs the browser and the server, in CPU: where the web tests' time goes.

A live server (uvicorn on loopback, in this process) and Debian's chromium through Playwright, as
the web tests run them.  Each figure is the mean over ``--repeat`` runs after one untimed run:
``browser`` is the CPU of every process under this one (chromium's and Playwright's driver, read
from ``/proc``), ``server`` the CPU of this process (the web server's thread and Playwright's
client), ``wall`` the time.

- the chat page, the HTTP cache kept and cleared (the web tests' reset clears it before each test),
  and the requests a load makes;
- the home page, ``about:blank`` and a plain stylesheet as a document (a navigation's floor);
- 20 ``fetch`` calls of an API and of a static file from the page, per call;
- 20 ``page.evaluate`` round trips through Playwright's driver, per call.

    .venv/bin/python bench/bench_page_load.py [--repeat 8]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

from playwright.sync_api import sync_playwright
from web_harness import (  # type: ignore[import-not-found]
    CHROMIUM,
    CHROMIUM_ARGS,
    LOCALE,
    VIEWPORT,
    LiveServer,
    fake_provider_config,
    new_chat,
    wait_ready,
)

from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def children_cpu(root: int) -> float:
    """CPU seconds of every live process under *root*, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    by_parent: dict[int, list[tuple[int, float]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        by_parent.setdefault(int(fields[1]), []).append((int(name), (int(fields[11]) + int(fields[12])) / tick))
    total, stack = 0.0, [root]
    while stack:
        for pid, cpu in by_parent.get(stack.pop(), []):
            total += cpu
            stack.append(pid)
    return total


def measure(label: str, action: Callable[[], object], repeat: int, per: int = 1) -> None:
    action()
    me = os.getpid()
    browser, server, wall = children_cpu(me), time.process_time(), time.perf_counter()
    for _ in range(repeat):
        action()
    runs = repeat * per
    print(f"{label:44} browser {1000 * (children_cpu(me) - browser) / runs:6.1f} ms  "
          f"server {1000 * (time.process_time() - server) / runs:5.1f} ms  "
          f"wall {1000 * (time.perf_counter() - wall) / runs:6.1f} ms")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=8)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as fake:
        home = Home(Path(tmp) / "home")
        seed_home(home)
        home.config_file.write_text(fake_provider_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=VIEWPORT, locale=LOCALE)
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            chat = f"{server.base_url}/chat/%E9%9D%92%E6%A2%A7/{new_chat(server.base_url)}"

            def load(url: str) -> Callable[[], None]:
                def go() -> None:
                    page.goto(url)
                    wait_ready(page)

                return go

            def cleared() -> None:
                cdp.send("Network.clearBrowserCache")
                load(chat)()

            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.resource_type))
            cleared()
            kinds = {kind: requests.count(kind) for kind in sorted(set(requests))}
            print(f"the chat page makes {len(requests)} requests: {kinds}")
            measure("chat page, HTTP cache kept", load(chat), repeat)
            measure("chat page, HTTP cache cleared first", cleared, repeat)
            measure("home page, HTTP cache kept", load(f"{server.base_url}/"), repeat)
            measure("about:blank", lambda: page.goto("about:blank"), repeat)
            measure("a stylesheet as the document", lambda: page.goto(f"{server.base_url}/static/app.css"), repeat)
            load(chat)()
            fetches = "Promise.all(Array.from({length: 20}, () => fetch(%s).then(r => r.text())))"
            measure("fetch of /api/settings (each of 20)",
                    lambda: page.evaluate(fetches % "'/api/settings'"), repeat, per=20)  # fmt: skip
            measure("fetch of a static file, uncached (each of 20)",
                    lambda: page.evaluate(fetches % "'/static/chat.js?' + Math.random()"), repeat, per=20)  # fmt: skip
            measure("page.evaluate round trip (each of 20)",
                    lambda: [page.evaluate("1") for _ in range(20)], repeat, per=20)  # fmt: skip
            browser.close()


if __name__ == "__main__":
    main()
