"""A group chat has what a card's chat has (issue 47, item 5): each message's time, number and tokens,
hide, delete several at once, each member's status bar run with that member's own scripts, and a
picture of the group made of its members'."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from web_harness import LiveServer, Served, beats_done, fake_provider_config, wait_ready

from kit.groups import add_card, chinese_card
from peargarden.app.library.groups import create_group
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

GROUP = "雨夜茶馆"
PLACEHOLDER = "<StatusPlaceHolderImpl/>"


def status_bar(name: str) -> str:
    """A member's own status bar: a document whose script writes the member's name into it."""
    return (f'<!doctype html><html><body><div id="谁">…</div><script>document.getElementById("谁").textContent = '
            f'"{name}的状态栏";</script></body></html>')  # fmt: skip


def member(home: Home, name: str, greeting: str) -> None:
    script = {"scriptName": "状态栏", "findRegex": "/<StatusPlaceHolderImpl\\/>/g",
              "replaceString": f"```html\n{status_bar(name)}\n```", "placement": [2], "markdownOnly": True,
              "disabled": False}  # fmt: skip
    add_card(home, name, chinese_card(name, f"{name}是茶馆里的人。", greeting, regex_scripts=[script]))
    (home.card_dir(name) / "卡.json").write_text(json.dumps({"regex_allowed": True}), encoding="utf-8")


@pytest.fixture(scope="module")
def group_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("group-daily-home"))
    seed_home(home)
    member(home, "林月", "林月：“欢迎光临。”")
    member(home, "周明", "周明抬了抬手。")
    add_card(home, "雾中客", chinese_card("雾中客", "不说话的客人。", "……"))  # no picture: the placeholder
    create_group(home, GROUP, ["林月", "周明", "雾中客"], strategy="list", mode="tavern")
    create_group(home, "渡口", ["青梧", "林月"], strategy="list", mode="tavern")  # 青梧 has a picture
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(fake_provider_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def open_group_chat(page: Page, served: Served) -> str:
    request = urllib.request.Request(f"{served.url}/api/groups/{urllib.parse.quote(GROUP)}/chats", data=b"{}",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=20) as answer:
        chat = str(json.loads(answer.read())["chat_id"])
    page.goto(f"{served.url}/group/{urllib.parse.quote(GROUP)}/{chat}")
    wait_ready(page)
    return chat


def a_round(page: Page, served: Served, text: str, replies: list[str], beats: int) -> None:
    served.fake.script([text_reply(reply) for reply in replies])
    page.fill("#composer", text)
    page.click("#send")
    beats_done(page, beats)


def test_each_message_has_its_time_number_and_tokens_and_each_member_its_own_status_bar(
    group_served: Served, page: Page
) -> None:
    open_group_chat(page, group_served)
    a_round(page, group_served, "三位晚上好。",
            [f"林月端上一壶龙井。{PLACEHOLDER}", f"周明点了点头。{PLACEHOLDER}", "雾中客没有说话。"], 1)  # fmt: skip
    replies = page.locator("#messages li.msg.assistant")
    heads = page.locator("#messages li.msg .msg-head")
    numbers = [heads.nth(i).locator(".msg-index").inner_text() for i in range(heads.count())]
    assert numbers == [f"#{n}" for n in range(len(numbers))] and len(numbers) == 7  # 3 greetings, you, 3 replies
    assert all(heads.nth(i).locator(".msg-time").inner_text().strip() for i in range(heads.count()))
    page.check("#show-meta")
    meta = replies.last.locator(".msg-meta")
    assert meta.is_visible() and re.search(r"\d+ 词元", meta.inner_text())
    # Each member's reply shows that member's status bar, its script run in the sandboxed frame.
    for name in ("林月", "周明"):
        reply = replies.filter(has=page.locator(".speaker", has_text=name)).last
        frame = reply.locator("iframe.status-frame")
        assert frame.count() == 1 and frame.get_attribute("sandbox") == "allow-scripts"
        inside = frame.element_handle().content_frame()
        assert inside is not None
        inside.wait_for_function("(name) => document.getElementById('谁').textContent === name + '的状态栏'",
                                 arg=name)  # fmt: skip
    assert replies.filter(has=page.locator(".speaker", has_text="雾中客")).locator("iframe").count() == 0


def test_hide_and_delete_several_as_in_a_cards_chat(group_served: Served, page: Page) -> None:
    open_group_chat(page, group_served)
    a_round(page, group_served, "下雨了。", ["林月去关窗。", "周明收起伞。", "雾中客望着窗外。"], 1)
    # Hide 周明's reply: greyed, marked, and not sent with the next round.
    his = page.locator("#messages li.msg.assistant", has_text="周明收起伞")
    his.locator("button.hide").click()
    page.locator("#messages li.msg.hidden-msg", has_text="周明收起伞").wait_for()
    assert "已隐藏" in page.locator("#messages li.msg.hidden-msg .hidden-note").inner_text()
    asked = len(group_served.fake.chat_requests)
    a_round(page, group_served, "雨停了吗？", ["林月：还没。", "周明：快了。", "雾中客点头。"], 2)
    sent = json.dumps([r.body for r in group_served.fake.chat_requests[asked:]], ensure_ascii=False)
    assert "周明收起伞" not in sent and "林月去关窗" in sent
    # Delete two messages at once: a new branch without them.
    page.click("#pick-messages")
    for text in ("林月：还没。", "雾中客点头。"):
        page.locator("#messages li.msg", has_text=text).locator(".msg-head .pick").check()
    assert "已选 2 条" in page.inner_text("#picked-count")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#delete-picked")
    page.wait_for_function("!document.querySelector('#messages').innerText.includes('雾中客点头')")
    shown = page.locator("#messages").inner_text()
    assert "林月：还没" not in shown and "周明：快了" in shown and "雨停了吗" in shown
    assert page.is_hidden("#picking")


def test_the_group_has_a_picture_made_of_its_members(group_served: Served, page: Page) -> None:
    with urllib.request.urlopen(f"{group_served.url}/api/groups/{urllib.parse.quote(GROUP)}/avatar") as answer:
        svg = answer.read().decode("utf-8")
        assert answer.headers["content-type"].startswith("image/svg+xml")
    # Three members, three faces: JSON cards without a picture, each its initial on the accent colour
    # as every page draws them.
    assert svg.count("<rect") == 3 and svg.count("<image") == 0 and all(f">{n}</text>" in svg for n in "林周雾")
    with urllib.request.urlopen(f"{group_served.url}/api/groups/{urllib.parse.quote('渡口')}/avatar") as answer:
        svg = answer.read().decode("utf-8")
    # 青梧's small picture inside it (an <img> loads nothing an SVG points at: a data URI), 林月's initial.
    assert svg.count('<image') == 1 and "data:image/webp;base64," in svg and ">林</text>" in svg
    assert len(svg) < 8_000
    open_group_chat(page, group_served)
    page.wait_for_function("document.getElementById('group-avatar').naturalWidth > 0")
    page.goto(f"{group_served.url}/groups")
    wait_ready(page)
    item = page.locator("#group-list li", has_text=GROUP)
    assert item.locator("img.group-avatar").get_attribute("src") == f"/api/groups/{urllib.parse.quote(GROUP)}/avatar"

