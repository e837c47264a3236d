"""A card's own display-only regex scripts (status bars) change what the chat shows only after the
user allowed that card's scripts, as SillyTavern runs no scoped script before; the stored text never
changes either way."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from web_harness import LiveServer

from peargarden.formats import card_to_png, read_card
from peargarden.workspace.cards import open_card
from peargarden.workspace.home import Home
from peargarden.workspace.regex_scripts import set_regex_allowance
from peargarden.workspace.seed import seed_home

CARD = "说书人"
GREETING = "醒木一拍。<status>听众：三十</status>"
BAR = {
    "scriptName": "状态栏",
    "findRegex": "/<status>([\\s\\S]*?)<\\/status>/g",
    "replaceString": "【$1】",
    "placement": [2],
    "markdownOnly": True,
    "disabled": False,
}


def _post(url: str) -> dict[str, Any]:
    request = urllib.request.Request(url, data=b"{}", method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return dict(json.loads(answer.read().decode("utf-8")))


def _greeting_display(server: LiveServer) -> Any:
    """What the page shows for the greeting instead of its text (None: the text itself)."""
    state = _post(f"{server.base_url}/api/chats/{urllib.parse.quote(CARD)}")
    (greeting,) = [m for m in state["messages"] if m["role"] == "assistant"]
    assert greeting["content"] == GREETING  # the stored text never changes
    return greeting["display"]


def test_display_scripts_wait_for_the_users_yes(home_dir: Path) -> None:
    home = Home(home_dir)
    seed_home(home)
    data = {"spec": "chara_card_v2", "spec_version": "2.0",
            "data": {"name": CARD, "description": "茶楼里的说书人。", "first_mes": GREETING,
                     "extensions": {"regex_scripts": [BAR]}}}  # fmt: skip
    card = read_card(json.dumps(data, ensure_ascii=False).encode("utf-8"), "说书人.json")
    folder = home.card_dir(CARD)
    folder.mkdir(parents=True)
    avatar = (home.card_dir("青梧") / "青梧.png").read_bytes()
    (folder / f"{CARD}.png").write_bytes(card_to_png(card, avatar))

    with LiveServer(home) as server:
        never_asked = _greeting_display(server)
        set_regex_allowance(open_card(home, CARD), False)
        refused = _greeting_display(server)
        set_regex_allowance(open_card(home, CARD), True)
        allowed = _greeting_display(server)

    assert never_asked is None and refused is None
    assert allowed == "醒木一拍。【听众：三十】"
