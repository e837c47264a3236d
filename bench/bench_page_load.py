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
- 20 ``page.evaluate`` round trips through Playwright's driver, per call;
- a beat on the chat page (fill, click, the streamed reply, the patch), against the fake model;
- a navigation's floor: a page of our own making with no script, with one module script and with
  fourteen, served by ``http.server`` from a temporary folder;
- where a chat-page load's browser CPU goes, thread by thread (``/proc/<pid>/task/*/stat``).

    .venv/bin/python bench/bench_page_load.py [--repeat 8]
"""

from __future__ import annotations

import argparse
import collections
import functools
import http.server
import os
import re
import sys
import tempfile
import threading
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

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
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


def threads_cpu(root: int) -> collections.Counter[tuple[str, str]]:
    """CPU seconds of every thread of every process under *root*, by (process type, thread name)."""
    tick = os.sysconf("SC_CLK_TCK")
    by_parent: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                by_parent.setdefault(int(Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[1]),
                                     []).append(int(name))  # fmt: skip
            except OSError:
                continue
    found: collections.Counter[tuple[str, str]] = collections.Counter()
    stack = [root]
    while stack:
        for pid in by_parent.get(stack.pop(), []):
            stack.append(pid)
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            typed = re.search(r"--type=(\S+)", command)
            kind = typed.group(1) if typed else ("driver" if "node" in command.split(" ")[0] else "browser")
            for task in tasks:
                try:
                    raw = Path(f"/proc/{pid}/task/{task}/stat").read_text()
                except OSError:
                    continue
                thread = re.sub(r"\d+$", "", raw[raw.index("(") + 1 : raw.rindex(")")])
                fields = raw.rsplit(")", 1)[1].split()
                found[(kind, thread)] += (int(fields[11]) + int(fields[12])) / tick
    return found


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # the base class names it "format"
        pass


def synthetic_pages(folder: Path) -> None:
    """A page with no script, one with one module, one with fourteen (each module a few hundred bytes)."""
    for index in range(14):
        (folder / f"m{index}.js").write_text(f"export const v{index} = {index};\n" + "// pad\n" * 200)
    ready = "document.body.dataset.ready = '1';\n"
    (folder / "many.js").write_text("".join(f'import {{ v{i} }} from "./m{i}.js";\n' for i in range(14)) + ready)
    (folder / "one.js").write_text("".join(f"const v{i} = {i};\n" + "// pad\n" * 200 for i in range(14)) + ready)
    page = "<!doctype html><html><body><p>梨园</p>{}</body></html>"
    (folder / "none.html").write_text(page.format('<script>document.body.dataset.ready = "1";</script>'))
    (folder / "one.html").write_text(page.format('<script type="module" src="one.js"></script>'))
    (folder / "many.html").write_text(page.format('<script type="module" src="many.js"></script>'))


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

            fake.default_reply = text_reply("青梧放下茶盏，", "笑道：“有的，", "客官楼上请。”")
            beats = [0]

            def beat() -> None:
                beats[0] += 1
                page.fill("#composer", f"掌柜，还有空房吗？（{beats[0]}）")
                page.click("#send")
                page.wait_for_selector(f"body[data-beats='{beats[0]}']")

            load(chat)()
            measure("a beat (fill, click, reply, patch)", beat, repeat)

            folder = Path(tmp) / "synthetic"
            folder.mkdir()
            synthetic_pages(folder)
            plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
            threading.Thread(target=plain.serve_forever, daemon=True).start()
            for name in ("none", "one", "many"):
                url = f"http://127.0.0.1:{plain.server_address[1]}/{name}.html"

                def synthetic(url: str = url) -> None:
                    cdp.send("Network.clearBrowserCache")
                    page.goto("about:blank")
                    page.goto(url)
                    wait_ready(page)

                measure(f"about:blank, then a page: {name} script(s)", synthetic, repeat)
            plain.shutdown()

            spent: collections.Counter[tuple[str, str]] = collections.Counter()
            for _ in range(repeat):
                before = threads_cpu(os.getpid())
                cleared()
                spent.update({key: value - before.get(key, 0.0) for key, value in threads_cpu(os.getpid()).items()})
            print("a chat-page load (cache cleared), by thread:")
            for (kind, thread), seconds in spent.most_common(10):
                print(f"  {1000 * seconds / repeat:6.1f} ms  {kind} / {thread}")
            browser.close()


if __name__ == "__main__":
    main()
