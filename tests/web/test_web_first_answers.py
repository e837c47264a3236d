"""The chat page carries the answers its scripts ask for first (web/first_answers.py): no request for
them as it starts, the same drawing, and nothing a message or a persona says can break out of them."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, new_chat, open_new_chat, wait_ready

from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page, Request

CARD = "青梧"
HOSTILE = "掌柜</script><script>document.body.dataset.pwned='1'</script>好<!-- 注释 -->雨 & 茶 ' \u2028"
CARRIED = re.compile(r'<script type="application/json" id="first-answers">(.*?)</script>', re.S)


def _page_html(url: str) -> str:
    with urllib.request.urlopen(url, timeout=20) as response:
        return str(response.read().decode("utf-8"))


def _api(url: str, body: dict[str, object]) -> object:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.loads(response.read())


def test_the_page_carries_what_the_api_answers(served: Served) -> None:
    chat_id = new_chat(served.url)
    html = _page_html(f"{served.url}/chat/{urllib.parse.quote(CARD)}/{chat_id}")
    found = CARRIED.findall(html)
    assert len(found) == 1
    carried = json.loads(found[0])
    # Each answer is what a GET of its path answers now (the chat's window, the settings, the personas,
    # the card's regex allowance, what the extensions read); the keys are the paths as the page asks
    # for them, decoded.
    assert sorted(carried) == sorted([f"/api/chats/{CARD}/{chat_id}?last=100", "/api/settings", "/api/personas",
                                      f"/api/cards/{CARD}/regex-allowance",
                                      f"/api/chats/{CARD}/{chat_id}/extras"])  # fmt: skip
    for path, answer in carried.items():
        target, _, query = path.partition("?")
        url = served.url + urllib.parse.quote(target) + (f"?{query}" if query else "")
        with urllib.request.urlopen(url, timeout=20) as response:
            assert json.loads(response.read()) == answer, path
    assert carried[f"/api/chats/{CARD}/{chat_id}?last=100"]["messages"], "the greeting is in the window"


def test_the_chat_page_starts_without_asking_for_what_it_carries(served: Served, page: Page) -> None:
    asked: list[str] = []

    def note(request: Request) -> None:
        if "/api/" in request.url:
            asked.append(urllib.parse.unquote(request.url.split(served.url, 1)[1]))

    page.on("request", note)
    chat_id = open_new_chat(page, served.url)
    window = f"/api/chats/{CARD}/{chat_id}?last=100"
    carried = {window, "/api/settings", f"/api/cards/{CARD}/regex-allowance", f"/api/chats/{CARD}/{chat_id}/extras"}
    assert not carried & set(asked), asked
    # Two scripts read the personas as they start; one answer is carried, the other asks.
    assert asked.count("/api/personas") <= 1, asked
    assert page.locator(".msg.assistant").count() == 1  # the greeting, drawn from the carried window
    assert page.locator("#connection-profile").count() == 1
    # After the start the page asks the server again: a reload carries a new answer, not the old one.
    served.fake.script([text_reply("青梧点头。")])
    page.fill("#composer", "掌柜，来壶茶。")
    page.click("#send")
    beats_done(page, 1)
    page.reload()
    wait_ready(page)
    assert page.locator(".msg").count() == 3
    assert "来壶茶" in page.locator(".msg.user").last.inner_text()


def test_hostile_text_in_a_message_or_a_persona_stays_text(served: Served, page: Page) -> None:
    _api(f"{served.url}/api/personas", {"name": "客人", "description": HOSTILE})
    served.fake.script([text_reply(HOSTILE)])
    chat_id = open_new_chat(page, served.url)
    page.fill("#composer", HOSTILE)
    page.click("#send")
    beats_done(page, 1)
    # Messages with HTML in them are drawn in sandboxed frames that run no script (chat_message.js).
    framed = "els => els.map((el) => el.srcdoc)"
    drawn = page.locator(".msg .msg-text").evaluate_all(framed)
    url = f"{served.url}/chat/{urllib.parse.quote(CARD)}/{chat_id}"
    html = _page_html(url)
    carried = CARRIED.findall(html)
    # Jinja's tojson writes < > & ' as \\u escapes: the one element closes where it should, and its
    # JSON reads back the text as the user and the model wrote it.
    assert len(carried) == 1 and "</script><script>" not in carried[0] and "<!--" not in carried[0]
    answers = json.loads(carried[0])
    assert HOSTILE in json.dumps(answers, ensure_ascii=False)
    page.goto(url)
    wait_ready(page)
    assert page.evaluate("document.body.dataset.pwned") is None
    assert page.locator("script:not([src]):not([type='application/json'])").count() == 0
    # Drawn from the carried answer, the messages are what they were when drawn from the server's.
    assert page.locator(".msg .msg-text").evaluate_all(framed) == drawn
    assert sum(1 for doc in drawn if doc and "雨 & 茶" in doc) == 2
