"""The character list with hundreds of cards: what the home page and ``GET /api/cards`` cost the server.

``--cards`` PNG cards (the bundled 青梧 picture, 155 KB, each with its own name, tags, creator and
creator notes in Chinese, a few chats on some) are written to a temporary data folder; then, wall
time in this process through Starlette's test client (no network, no browser: the server's own time),
milliseconds, the median of ``--repeat`` runs:

- ``cold``: the first ``GET /`` the moment a server starts (every card file read and parsed; the
  server's own warm-up thread reads them too, at the same time);
- ``first``: the first ``GET /`` of another server, two seconds after it started (its warm-up done);
- ``page``: ``GET /`` again (the rows kept in memory while the files are unchanged);
- ``api``: ``GET /api/cards?sort=last_chat``;
- ``search``: ``GET /api/cards?q=江南 长篇`` (two words, CJK);
- ``bytes``: the size of the home page.

    .venv/bin/python bench/bench_card_list.py [--cards 500] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from peargarden.app.library import card_list
from peargarden.formats import Card
from peargarden.formats.card_files import card_to_png
from peargarden.web.server import WebConfig, create_app
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.home import Home
from peargarden.workspace.seed import bundled, seed_home

TAGS = ["江南", "武侠", "奇幻", "长篇", "日常", "悬疑", "古风", "校园", "科幻", "治愈"]


def write_cards(home: Home, count: int) -> None:
    image = bundled("cards", "青梧.png")
    for number in range(count):
        name = f"角色{number:03d}·{TAGS[number % len(TAGS)]}"
        card = Card.new(name, description=f"{name}住在栖水镇。" * 20, first_mes="客官里边请。",
                        tags=[TAGS[number % len(TAGS)], TAGS[(number * 7) % len(TAGS)]], creator=f"作者{number % 13}",
                        creator_notes=f"第{number}张卡：适合{TAGS[(number * 3) % len(TAGS)]}故事。" * 5)  # fmt: skip
        folder = home.card_dir(name)
        folder.mkdir(parents=True)
        (folder / f"{name}.png").write_bytes(card_to_png(card, image))
        if number % 5 == 0:
            chat = ChatFile.create(folder / "chats", card=name, mode="stage")
            chat.append_message({"role": "user", "content": "你好"})


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def run(count: int, repeat: int) -> None:
    from fastapi.testclient import TestClient

    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp) / "home")
        seed_home(home)
        write_cards(home, count)
        client = TestClient(create_app(WebConfig(home)), base_url="http://127.0.0.1:8765")
        cold = timed(lambda: client.get("/"))
        card_list._ROWS.clear()  # a new server process: nothing in memory
        later = TestClient(create_app(WebConfig(home)), base_url="http://127.0.0.1:8765")
        time.sleep(2)
        first = timed(lambda: later.get("/"))
        size = len(client.get("/").content)
        page = statistics.median(timed(lambda: client.get("/")) for _ in range(repeat))
        api = statistics.median(timed(lambda: client.get("/api/cards?sort=last_chat")) for _ in range(repeat))
        query = {"q": "江南 长篇"}
        search = statistics.median(timed(lambda: client.get("/api/cards", params=query)) for _ in range(repeat))
        assert client.get("/").status_code == 200
        print(f"{'cards':>6} {'cold':>7} {'first':>7} {'page':>7} {'api':>7} {'search':>7} {'bytes':>9}")
        print(f"{count + 1:>6} {cold:>7.0f} {first:>7.0f} {page:>7.0f} {api:>7.0f} {search:>7.0f} {size:>9}")
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cards", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    run(args.cards, args.repeat)


if __name__ == "__main__":
    main()
