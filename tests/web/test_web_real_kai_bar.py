"""kai's TavernHelper template card (../shared/fixtures/thirdparty/script-cards; skipped without it,
nothing of it copied here) in Chromium, issue 45's acceptance for it: imported through ``pear import``
with its scripts and regex allowed, played on the fake model with replies in the card's own format (an
``<UpdateVariable>`` with ``<Analysis>`` and a ``<JSONPatch>`` on ``/世界/当前时间``, ``/白娅/依存度``…).

Its status bar is a Vue app on the frame's global ``Vue``, with a Pinia store and async-wait-until
imported from ``testingcf.jsdelivr.net``: all three come from the npm packages here (no host question,
no network).  After two beats, a swipe and a reload the bar shows each reply's values (its dependency
strip, the stage of 依存度 its schema derives, the world's time); its ``+`` button writes the message's
variables back with ``updateVariablesWith``, as in TavernHelper (the card's scripts are allowed)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
from real_card_home import real_card_served
from status_card import message_stat, page_errors, send, status_bar
from vue_card import packages_installed
from web_harness import Served, beats_done, open_new_chat, wait_ready

from peargarden.app.play.remote_modules import hosts_state
from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.skipif(
    not packages_installed(), reason="the frames' npm packages are not installed (scripts/setup.sh)"
)
KAI = "kai_tavernhelper_template_example_card.png"
KAI_CARD = "呕吐内心的少女"


def patch_reply(story: str, analysis: str, ops: list[dict[str, object]]) -> str:
    """A reply as the card's 「变量输出格式」 asks: the story, then the analysis and a JSON patch."""
    patch = json.dumps(ops, ensure_ascii=False, indent=2)
    return (f"{story}\n<UpdateVariable>\n<Analysis>\n{analysis}\n</Analysis>\n<JSONPatch>\n{patch}\n</JSONPatch>\n"
            "</UpdateVariable>")  # fmt: skip


FIRST = patch_reply("午休的铃声响了，白娅低着头跟在我身后走出教室。", "- 1 hour passed\n- 依存度 +6",
                    [{"op": "replace", "path": "/世界/当前时间", "value": "2024-04-08 12:00"},
                     {"op": "delta", "path": "/白娅/依存度", "value": 6}])  # fmt: skip
SECOND = patch_reply("放学后，白娅在校门口等我。", "- 5 hours passed\n- 依存度 +5",
                     [{"op": "replace", "path": "/世界/当前时间", "value": "2024-04-08 17:00"},
                      {"op": "delta", "path": "/白娅/依存度", "value": 5}])  # fmt: skip
SWIPED = patch_reply("放学后，白娅一个人先走了。", "- 5 hours passed\n- 依存度 -4",
                     [{"op": "replace", "path": "/世界/当前时间", "value": "2024-04-08 17:30"},
                      {"op": "delta", "path": "/白娅/依存度", "value": -4}])  # fmt: skip


@pytest.fixture(scope="module")
def kai_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from real_card_served(tmp_path_factory, KAI, "kai-home")


def _until(page: Page, read: Callable[[], Any], want: Any) -> None:
    """Wait until *read* gives *want* (a frame drawn anew meanwhile reads as nothing)."""
    from playwright.sync_api import Error as PlaywrightError

    seen: Any = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            seen = read()
        except PlaywrightError:
            seen = None
        if seen == want:
            return
        page.wait_for_timeout(200)
    raise AssertionError((want, seen))


def _shows(page: Page, index: int, clock: str, dependency: int) -> None:
    """Reply *index*'s bar shows the world's time and 依存度 of that reply."""

    def read() -> tuple[str, str]:
        bar = status_bar(page, index)
        meta = bar.locator(".meta-row").inner_text(timeout=5_000)
        return (clock if f"TIME: {clock}" in meta else meta, bar.locator(".dependency-value").inner_text(timeout=5_000))

    _until(page, read, (clock, f"{dependency}%"))


def test_kais_vue_bar_shows_each_replys_values_and_writes_from_its_button(kai_served: Served, page: Page) -> None:
    errors = page_errors(page)
    kai_served.fake.script([text_reply(FIRST), text_reply(SECOND), text_reply(SWIPED)])
    chat_id = open_new_chat(page, kai_served.url, KAI_CARD)
    _shows(page, 0, "10:45", 35)  # the greeting's bar: the [initvar] seed

    send(page, "一起去吃午饭吧。", 1)
    _shows(page, 2, "12:00", 41)
    # The stage its schema derives (41: 暗中靠近), drawn by the Vue app from its Pinia store (its tab).
    status_bar(page, 2).get_by_text("角色情报").click()
    assert status_bar(page, 2).locator(".char-layout .section-head").first.inner_text() == "暗中靠近"

    send(page, "放学一起走吗？", 2)
    _shows(page, 4, "17:00", 46)
    _shows(page, 2, "12:00", 41)  # each reply's own values

    page.locator("#messages .swipe-next").click()
    beats_done(page, 3)
    _shows(page, 4, "17:30", 37)

    # The bar's + button: its store's deep watch writes the message's variables back with
    # updateVariablesWith (the card's scripts are allowed), and the chat keeps it.
    status_bar(page, 4).locator(".dependency-button").nth(1).click()
    _shows(page, 4, "17:30", 38)
    _until(page, lambda: message_stat(kai_served.url, KAI_CARD, chat_id, 4)["白娅"]["依存度"], 38)
    assert message_stat(kai_served.url, KAI_CARD, chat_id, 4)["世界"]["当前时间"] == "2024-04-08 17:30"

    page.reload()
    wait_ready(page)
    _shows(page, 2, "12:00", 41)
    _shows(page, 4, "17:30", 38)
    # Vue, Pinia and async-wait-until came from the packages: no host asked about, nothing fetched.
    assert page.locator(".remote-ask").count() == 0
    hosts = hosts_state(kai_served.home, KAI_CARD)
    assert hosts["hosts"] == {} and hosts["pins"] == []
    assert errors == []  # its 「立即事件」 script's injectPrompts is kept by the server now
