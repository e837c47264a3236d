"""Group chats in a real browser against the fake model: a group made from cards, each speaker's
reply streamed in turn with its face and name, stop between speakers, the member strip (mute,
speak now) and the group's settings."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, screenshot, tool_call_reply, wait_ready

from kit.groups import add_card, chinese_card
from peargarden.testing.fake_openai import Gate, StreamReply, chunk, text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

# Every text a live reply showed while the round ran (a live item is replaced by the kept message).
WATCH_LIVE = """() => {
  window.liveTexts = [];
  new MutationObserver(() => {
    for (const text of document.querySelectorAll('.msg.live .live-text')) window.liveTexts.push(text.textContent);
  }).observe(document.getElementById('messages'), { subtree: true, childList: true, characterData: true });
}"""


def _cards(served: Served) -> None:
    if not (served.home.card_dir("林月")).exists():
        add_card(served.home, "林月", chinese_card("林月", "茶馆的老板娘。", "欢迎光临，{{user}}。"))
        add_card(served.home, "周明", chinese_card("周明", "常来喝茶的诗人。", "雨天正好作诗。"))


def _post(served: Served, path: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(served.url + path, data=json.dumps(body).encode("utf-8"),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=20) as response:
        value = json.loads(response.read())
    assert isinstance(value, dict)
    return value


def _group(served: Served, name: str, strategy: str = "list") -> str:
    """A group of 林月 and 周明 in tavern mode and a new chat of it; returns the chat's page URL."""
    _cards(served)
    group = _post(served, "/api/groups", {"name": name, "members": ["林月", "周明"], "strategy": strategy,
                                          "mode": "tavern"})  # fmt: skip
    folder = urllib.parse.quote(str(group["folder"]))
    chat = _post(served, f"/api/groups/{folder}/chats", {})
    return f"{served.url}/group/{folder}/{urllib.parse.quote(str(chat['chat_id']))}"


def _group_file(served: Served, name: str) -> dict[str, object]:
    value = json.loads((served.home.root / "groups" / name / "group.json").read_text(encoding="utf-8"))
    assert isinstance(value, dict)
    return value


def test_a_group_is_made_from_cards_and_each_member_greets_with_its_face(served: Served, page: Page) -> None:
    _cards(served)
    page.goto(f"{served.url}/groups")
    wait_ready(page)
    page.fill("#group-name", "雨夜茶馆")
    # Ticked in speaking order: 周明 first.
    page.check("#card-choices input[value='周明']")
    page.check("#card-choices input[value='林月']")
    page.select_option("#group-strategy", "list")
    page.click("#create-group")
    page.wait_for_url("**/group/**/*")
    wait_ready(page)
    assert _group_file(served, "雨夜茶馆")["members"] == ["周明.png", "林月.png"]
    greetings = page.locator(".msg.assistant")
    assert greetings.count() == 2
    assert greetings.nth(0).locator(".speaker").inner_text() == "周明"
    assert greetings.nth(1).locator(".speaker").inner_text() == "林月"
    src = greetings.nth(1).locator("img.avatar").get_attribute("src")
    assert src == f"/api/cards/{urllib.parse.quote('林月')}/avatar?size=thumb"
    names = page.locator("#member-strip .member-name").all_inner_texts()
    assert names == ["周明", "林月"]
    page.goto(f"{served.url}/groups")
    wait_ready(page)
    assert "雨夜茶馆" in page.inner_text("#group-list")


def test_each_speaker_streams_in_turn_and_stop_keeps_the_first(served: Served, page: Page) -> None:
    held = threading.Event()
    served.fake.script(
        [
            text_reply("龙井马上就好。"),
            StreamReply(
                items=[
                    chunk(role="assistant", content=""),
                    Gate(held, timeout=30),
                    chunk(content="不该出现"),
                    chunk(finish_reason="stop"),
                ]
            ),
            text_reply("三"),
            text_reply("四"),
        ]
    )
    page.goto(_group(served, "茶馆甲"))
    wait_ready(page)
    before = len(served.fake.chat_requests)
    page.fill("#composer", "今天喝什么茶？")
    page.click("#send")
    # The second speaker's reply is open (its face and name), the first one's text already there.
    page.locator(".msg.live[data-card='周明']").wait_for()
    first = page.locator(".msg.live[data-card='林月'] .live-text")
    assert first.inner_text() == "龙井马上就好。"
    page.click("#stop")
    beats_done(page, 1)
    held.set()
    assert len(served.fake.chat_requests) == before + 2
    speakers = page.locator(".msg.assistant .speaker").all_inner_texts()
    texts = page.locator(".msg.assistant .msg-text").all_inner_texts()
    assert speakers[-1] == "林月" and texts[-1].strip() == "龙井马上就好。"
    assert not any("不该出现" in text for text in texts)
    # Regenerate runs the whole round again: both members answer.
    page.click("#regenerate")
    beats_done(page, 2)
    speakers = page.locator(".msg.assistant .speaker").all_inner_texts()
    texts = [t.strip() for t in page.locator(".msg.assistant .msg-text").all_inner_texts()]
    assert speakers[-2:] == ["林月", "周明"] and texts[-2:] == ["三", "四"]
    screenshot(page, "group-chat")


def test_the_member_strip_mutes_and_calls_on_a_member(served: Served, page: Page) -> None:
    served.fake.script([text_reply("只有我来答。"), text_reply("被点名了，我说两句。")])
    page.goto(_group(served, "茶馆乙"))
    wait_ready(page)
    chip = page.locator("#member-strip .member[data-card='周明']")
    chip.locator("button.mute").click()
    page.locator("#member-strip .member.muted[data-card='周明']").wait_for()
    assert _group_file(served, "茶馆乙")["disabled_members"] == ["周明.png"]
    before = len(served.fake.chat_requests)
    page.fill("#composer", "有人在吗？")
    page.click("#send")
    beats_done(page, 1)
    assert len(served.fake.chat_requests) == before + 1  # the muted member kept quiet
    assert page.locator(".msg.assistant .speaker").all_inner_texts()[-1] == "林月"
    # Speak now: the muted member answers at once, and no message of the user's is posted.
    page.locator("#member-strip .member[data-card='周明'] button.speak").click()
    beats_done(page, 2)
    last = page.locator(".msg").last
    assert last.get_attribute("data-card") == "周明" and "被点名了" in last.inner_text()
    assert page.locator(".msg.user").count() == 1


def test_the_groups_settings_are_saved_into_its_file(served: Served, page: Page) -> None:
    page.goto(_group(served, "茶馆丙"))
    wait_ready(page)
    page.click("#group-settings summary")
    page.select_option("#set-strategy", "manual")
    page.select_option("#set-generation", "join")
    page.fill("#set-prefix", "<FIELDNAME>：")
    page.select_option("#set-choice", "model")
    page.click("#save-settings")
    page.locator("#toast:not([hidden])").wait_for()
    raw = _group_file(served, "茶馆丙")
    assert (raw["activation_strategy"], raw["generation_mode"], raw["generation_mode_join_prefix"]) == (
        2,
        1,
        "<FIELDNAME>：",
    )
    ours = json.loads(Path(served.home.root / "groups" / "茶馆丙" / "群.json").read_text(encoding="utf-8"))
    assert ours["speaker_choice"] == "model"
    page.reload()
    wait_ready(page)
    assert page.input_value("#set-strategy") == "manual"


def test_a_group_chat_exports_as_sillytavern_and_an_unknown_group_is_404(served: Served) -> None:
    served.fake.script([text_reply("一"), text_reply("二")])
    url = _group(served, "茶馆丁")
    group, chat_id = url.split("/group/")[1].split("/")
    stream = urllib.request.Request(f"{served.url}/api/groups/{group}/chats/{chat_id}/beat",
                                    data=json.dumps({"action": "send", "text": "你们好"}).encode("utf-8"),
                                    headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(stream, timeout=30) as response:
        items = [
            json.loads(line[5:]) for line in response.read().decode("utf-8").splitlines() if line.startswith("data:")
        ]
    assert [i["type"] for i in items if i["type"] not in ("text_delta",)] == ["beat", "speaker", "speaker", "done"]
    assert [i["name"] for i in items if i["type"] == "speaker"] == ["林月", "周明"]
    with urllib.request.urlopen(f"{served.url}/api/groups/{group}/chats/{chat_id}/export", timeout=20) as response:
        rows = [json.loads(line) for line in response.read().decode("utf-8").splitlines()]
    assert rows[0]["user_name"] == "unused"
    assert [(r["name"], r["mes"], r.get("original_avatar")) for r in rows[-2:]] == [
        ("林月", "一", "林月.png"),
        ("周明", "二", "周明.png"),
    ]
    try:
        urllib.request.urlopen(f"{served.url}/api/groups/{urllib.parse.quote('没这个群')}/chats", timeout=20)
    except urllib.error.HTTPError as error:
        assert error.code == 404 and "没有名为「没这个群」的群聊" in json.loads(error.read())["error"]
    else:
        raise AssertionError("an unknown group must be 404")


def test_a_stage_round_shows_the_speakers_sealed_prose(served: Served, page: Page) -> None:
    _cards(served)
    group = _post(served, "/api/groups", {"name": "茶馆舞台", "members": ["林月", "周明"], "strategy": "list",
                                          "mode": "stage"})  # fmt: skip
    folder = urllib.parse.quote(str(group["folder"]))
    chat = _post(served, f"/api/groups/{folder}/chats", {})
    prose = "林月替你斟上一杯龙井：“雨前的，尝尝。”"
    served.fake.script(
        [tool_call_reply("a", "draft_write", {"content": prose}), tool_call_reply("b", "draft_seal", {})]
    )
    page.goto(f"{served.url}/group/{folder}/{urllib.parse.quote(str(chat['chat_id']))}")
    wait_ready(page)
    page.evaluate(WATCH_LIVE)
    page.fill("#composer", "今天喝什么茶？")
    page.click("#send")
    beats_done(page, 1)
    # While the round ran, the speaker's live reply showed the sealed prose …
    assert prose in page.evaluate("window.liveTexts")
    # … and the kept round reads as that reply under its speaker (before: a tool round, not drawn).
    reply = page.locator(".msg.assistant:not(.greeting)")
    assert reply.count() == 1
    assert reply.locator(".speaker").inner_text() == "林月"
    assert reply.locator(".msg-text").inner_text().strip() == prose
