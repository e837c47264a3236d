"""The tavern panel switches the card's regex scripts on and off: the switch is written into the card
file (``extensions.regex_scripts[i].disabled``, as SillyTavern stores it), a PNG card keeps every image
byte, and the open chat shows its messages with the new set of scripts at once."""

from __future__ import annotations

import json
import struct
import urllib.parse
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot, wait_ready

from peargarden.formats import card_to_png, read_card
from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.cards import open_card
from peargarden.workspace.regex_scripts import set_regex_allowance

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = "雨夜茶馆"


def tea_house_card() -> dict[str, object]:
    return {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": CARD,
            "description": "渡口边的茶馆，老板娘阿沅记得每位熟客的口味。",
            "personality": "爽利",
            "scenario": "雨夜，茶馆只剩一盏灯。",
            "first_mes": "阿沅抬头：“客官，喝点什么？”",
            "mes_example": "",
            "extensions": {
                "regex_scripts": [
                    {"scriptName": "状态栏", "findRegex": "/<status>(.*?)<\\/status>/g",
                     "replaceString": "〔$1〕", "placement": [2], "markdownOnly": True, "disabled": False},
                    {"scriptName": "雨声", "findRegex": "/雨/g", "replaceString": "雨（沙沙）",
                     "placement": [2], "markdownOnly": True, "disabled": True},
                ],
                "depth_prompt": {"prompt": "", "depth": 4},
            },
        },
    }  # fmt: skip


def image_chunks(png: bytes) -> list[bytes]:
    """Every chunk of a PNG except its text chunks (where the card lives)."""
    out, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        if kind not in (b"tEXt", b"zTXt", b"iTXt"):
            out.append(png[at : at + 12 + length])
        at += 12 + length
    return out


def test_regex_scripts_switch_on_and_off_in_the_card_file(served: Served, page: Page) -> None:
    avatar = (served.home.card_dir("青梧") / "青梧.png").read_bytes()
    card = read_card(json.dumps(tea_house_card(), ensure_ascii=False).encode("utf-8"), "茶馆.json")
    folder = served.home.card_dir(CARD)
    folder.mkdir(parents=True)
    card_file = folder / f"{CARD}.png"
    card_file.write_bytes(card_to_png(card, avatar))
    original = card_file.read_bytes()
    set_regex_allowance(open_card(served.home, CARD), True)  # the user let the card's scripts run

    served.fake.script([text_reply("阿沅笑着斟茶。<status>好感 +1</status>窗外雨还在下。")])
    chat_id = open_new_chat(page, served.url, CARD)
    page.fill("#composer", "一壶龙井。")
    page.click("#send")
    beats_done(page, 1)
    reply = page.locator(".msg.assistant").last
    assert "〔好感 +1〕" in reply.inner_text() and "沙沙" not in reply.inner_text()

    page.goto(f"{served.url}/tavern/{urllib.parse.quote(CARD)}/{chat_id}")
    wait_ready(page)
    status = page.locator("#regex li[data-index='0'] input.switch")
    rain = page.locator("#regex li[data-index='1'] input.switch")
    assert status.is_checked() and not rain.is_checked()
    status.click()
    page.locator("#toast:not(.error)", has_text="已停用").wait_for()
    rain.click()
    page.locator("#toast:not(.error)", has_text="已启用").wait_for()
    page.wait_for_function(
        "document.querySelector(\"#regex li[data-index='1'] input.switch\").checked"
    )
    assert not status.is_checked() and rain.is_checked()
    screenshot(page, "tavern-regex")

    stored = card_file.read_bytes()
    scripts = read_card(stored, card_file.name).data["extensions"]["regex_scripts"]
    assert [s["disabled"] for s in scripts] == [True, False]
    assert [s["scriptName"] for s in scripts] == ["状态栏", "雨声"]  # nothing else moved
    assert image_chunks(stored) == image_chunks(original)  # the picture is byte for byte the same
    assert read_card(stored, card_file.name).data["extensions"]["depth_prompt"] == {"prompt": "", "depth": 4}

    # The open chat shows its messages through the scripts now switched on.
    page.goto(f"{served.url}/chat/{urllib.parse.quote(CARD)}/{chat_id}")
    wait_ready(page)
    # The raw <status> tag is no HTML a message keeps: as in SillyTavern its text shows, the tag does not.
    reply = page.locator(".msg.assistant").last
    shown = reply.locator(".md").inner_text()
    assert "雨（沙沙）" in shown and "好感 +1" in shown and "〔好感 +1〕" not in shown and "<status>" not in shown


def test_a_json_card_keeps_its_spec_and_a_stale_switch_is_refused(served: Served) -> None:
    import urllib.error
    import urllib.request

    folder = served.home.card_dir("茶馆账房")
    folder.mkdir(parents=True)
    data = tea_house_card()
    data["data"]["name"] = "茶馆账房"  # type: ignore[index]
    card_file = folder / "茶馆账房.json"
    card_file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    url = f"{served.url}/api/tavern/{urllib.parse.quote('茶馆账房')}/regex"

    def post(body: dict[str, object]) -> tuple[int, dict[str, object]]:
        request = urllib.request.Request(url, data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
                                         headers={"Content-Type": "application/json"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    status, controls = post({"index": 1, "enabled": True, "name": "雨声"})
    assert status == 200
    assert [s["disabled"] for s in controls["regex_scripts"]] == [False, False]  # type: ignore[attr-defined]
    stored = json.loads(card_file.read_text(encoding="utf-8"))
    assert stored["spec"] == "chara_card_v2" and stored["data"]["description"] == data["data"]["description"]  # type: ignore[index]
    assert stored["data"]["extensions"]["regex_scripts"][1]["disabled"] is False
    # The page was drawn from an older card: the name no longer matches, nothing is written.
    before = card_file.read_bytes()
    status, error = post({"index": 0, "enabled": False, "name": "雨声"})
    assert status == 409 and "刷新" in str(error["error"])
    status, error = post({"index": 5, "enabled": False})
    assert status == 404 and card_file.read_bytes() == before
