"""Real script cards in Chromium (issue 45 item 2), from ../shared/fixtures/thirdparty/script-cards
(skipped without it; nothing of them is copied here).

房东模拟器 as a new user gets it: imported with its scripts and regex allowed, its chat page opened. Its
enabled TavernHelper scripts start, each in its frame, with 0 page errors (its phone and workshop keep
their settings in ``localStorage``, which an opaque frame lacks: each frame gets one in memory); the
phone's floating button is drawn where it can be seen (the panel grows to what floats) and opens the
phone, whose screen — a frame the script makes in its own frame — is kept (nested_frames.js gives it
the frame world; test_web_real_mvu_bar.py reads its clock).  Not covered: the phone's apps themselves
(they draw into that inner frame from the script's, another origin here)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from real_card_home import LANDLORD, real_card_served
from real_card_home import LANDLORD_CARD as CARD
from status_card import frame_of
from web_harness import Served, open_new_chat

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture(scope="module")
def landlord_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from real_card_served(tmp_path_factory, LANDLORD, "landlord-home")


def test_landlords_scripts_load_and_its_phone_opens(landlord_served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_new_chat(page, landlord_served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready]", timeout=120_000)
    started = int(page.evaluate("document.body.dataset.scriptsReady || '0'"))
    assert started >= 20, started  # every enabled script but MVU's own (kept by the server)
    view = page.locator("#script-frames iframe[title='脚本：小手机主程序']")
    phone = frame_of(view)
    phone.wait_for_selector("#tavern-phone-system-fab")
    page.wait_for_function("(frame) => frame.getBoundingClientRect().height >= 156", arg=view.element_handle())
    # Its button opens the phone on a press and release without a drag, as the script listens for.
    phone.locator("#tavern-phone-system-fab").dispatch_event("mousedown")
    phone.evaluate("document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}))")
    phone.wait_for_function(
        "getComputedStyle(document.getElementById('tavern-phone-system-container')).display !== 'none'"
    )
    page.wait_for_function("(frame) => frame.getBoundingClientRect().height >= 800", arg=view.element_handle())
    notes = page.locator("#script-panel").text_content() or ""
    assert "localStorage" not in notes
    assert "iframe（脚本框里不允许）" not in notes  # the phone's screen is kept
    assert phone.locator("#tavern-phone-system-iframe").count() == 1
    assert errors == []
