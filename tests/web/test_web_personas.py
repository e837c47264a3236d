"""Personas in Chromium: a picture for a persona (a non-image refused), deleting one (the vault keeps
it), and switching the persona of an open chat — the next request plays the new one, and reopening
the chat keeps it (the switch is recorded on the branch)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from web_harness import Served, beats_done, element_screenshot, open_new_chat, screenshot, wait_ready

from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.vault import Vault


def said(page: Any, text: str, error: bool = False) -> None:
    page.locator("#toast.error" if error else "#toast:not(.error)", has_text=text).wait_for()
    page.evaluate("() => { const box = document.getElementById('toast'); box.hidden = true; box.textContent = ''; }")


def panel_shot(page: Any, width: str) -> None:
    """The whole page, and the persona panel alone (the part this test is about)."""
    screenshot(page, f"personas-{width}")
    element_screenshot(page.locator("#persona-panel"), f"personas-panel-{width}")


def _persona(served: Served, name: str, description: str) -> None:
    body = json.dumps({"name": name, "description": description}, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(f"{served.url}/api/personas", data=body,
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    urllib.request.urlopen(request, timeout=20).close()


def test_persona_pictures_and_deletion(served: Served, page: Any, tmp_path: Any) -> None:
    _persona(served, "沈砚", "落第的书生，背着一只旧书箱。")
    _persona(served, "阿蘅", "采药的姑娘。")
    picture = tmp_path / "沈砚头像.png"
    picture.write_bytes((served.home.card_dir("青梧") / "青梧.png").read_bytes())
    not_a_picture = tmp_path / "头像.png"
    not_a_picture.write_text("这不是图片", encoding="utf-8")

    page.set_viewport_size({"width": 1280, "height": 800})
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{served.url}/settings")
    wait_ready(page)
    page.locator("#personas[data-ready='1']").wait_for()
    page.locator("#personas li[data-persona='沈砚'] .persona-avatar-file").set_input_files(str(picture))
    said(page, "已更换")
    assert (served.home.personas_dir / "沈砚.png").read_bytes() == picture.read_bytes()
    image = page.locator("#personas li[data-persona='沈砚'] img.persona-avatar")
    image.wait_for()
    page.wait_for_function("document.querySelector(\"#personas li[data-persona='沈砚'] img\").naturalWidth > 0")
    page.locator("#personas li[data-persona='阿蘅'] .persona-avatar-file").set_input_files(str(not_a_picture))
    said(page, "不是 PNG", error=True)
    assert not list(served.home.personas_dir.glob("阿蘅.*png"))
    panel_shot(page, "1280")

    page.locator("#personas li[data-persona='沈砚'] .persona-delete").click()
    said(page, "已删除人设")
    assert not list(served.home.personas_dir.glob("沈砚.*"))
    vault = Vault(served.home)
    kept = vault.read_file(vault.snapshots()[0].id, "library/personas/沈砚.png")
    assert kept == picture.read_bytes()
    assert page.locator("#personas li[data-persona='沈砚']").count() == 0

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.locator("#personas[data-ready='1']").wait_for()
    # The persona panel fits a phone (the settings page's connection table is another matter).
    widest = ("Math.max(...[...document.querySelectorAll('#persona-panel, #persona-panel *')]"
              ".map(e => e.getBoundingClientRect().right))")
    assert page.evaluate(widest) <= 390
    panel_shot(page, "390")


def test_the_persona_of_an_open_chat_is_switched(served: Served, page: Any) -> None:
    _persona(served, "柳七", "走镖的镖师，左手缺一指。")
    page.set_viewport_size({"width": 1280, "height": 800})
    chat_id = open_new_chat(page, served.url)
    page.locator("#chat[data-persona-switch='ready']").wait_for()
    served.fake.script([text_reply("客官请。"), text_reply("镖师辛苦。")])
    page.fill("#composer", "掌柜，一碗茶。")
    page.click("#send")
    beats_done(page, 1)
    assert "缺一指" not in served.fake.chat_requests[-1].body["messages"][0]["content"]

    page.select_option("#persona-switch", "柳七")
    said(page, "现在你扮演「柳七」")
    assert page.locator("#persona-name").inner_text() == "柳七"
    page.fill("#composer", "再来一碗。")
    page.click("#send")
    beats_done(page, 2)
    system = served.fake.chat_requests[-1].body["messages"][0]["content"]
    assert "柳七" in system and "缺一指" in system
    screenshot(page, "persona-switch-1280")

    # Reopened (a fresh page, the hub reads the chat again): still 柳七.
    served.server.server.config.app.state.hub._chats.clear()  # type: ignore[union-attr]
    page.goto(f"{served.url}/chat/%E9%9D%92%E6%A2%A7/{chat_id}")
    wait_ready(page)
    assert page.locator("#persona-name").inner_text() == "柳七"
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    wait_ready(page)
    page.locator("#chat[data-persona-switch='ready']").wait_for()
    screenshot(page, "persona-switch-390")


def test_user_messages_show_the_picture_of_the_persona_who_spoke(served: Served, page: Any) -> None:
    _persona(served, "白露", "撑油纸伞的说书人。")
    _persona(served, "墨竹", "不爱说话的琴师。")  # no picture
    (served.home.personas_dir / "白露.png").write_bytes((served.home.card_dir("青梧") / "青梧.png").read_bytes())
    body = json.dumps({"persona": "白露"}, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(f"{served.url}/api/chats/%E9%9D%92%E6%A2%A7", data=body,
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=20) as response:
        chat_id = json.loads(response.read())["chat_id"]
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{served.url}/chat/%E9%9D%92%E6%A2%A7/{chat_id}")
    wait_ready(page)
    page.locator("#chat[data-persona-switch='ready']").wait_for()
    served.fake.script([text_reply("请讲。"), text_reply("琴声也好。")])
    page.fill("#composer", "今天说一段《白蛇》。")
    page.click("#send")
    beats_done(page, 1)
    first = page.locator(".msg.user").first.locator(".msg-head img.avatar")
    assert first.get_attribute("src") == "/api/personas/%E7%99%BD%E9%9C%B2/avatar?size=thumb"
    page.wait_for_function("document.querySelector('.msg.user .msg-head img.avatar').naturalWidth > 0")

    # Another persona from here on: its messages show its own face (an initial: it has no picture),
    # the earlier ones keep the picture of the persona who said them.
    page.select_option("#persona-switch", "墨竹")
    said(page, "现在你扮演「墨竹」")
    page.fill("#composer", "……")
    page.click("#send")
    beats_done(page, 2)
    second = page.locator(".msg.user").nth(1).locator(".msg-head")
    assert second.locator("img.avatar").count() == 0 and second.locator(".avatar.initial").inner_text() == "墨"
    assert first.get_attribute("src") == "/api/personas/%E7%99%BD%E9%9C%B2/avatar?size=thumb"
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"chat-persona-avatars-{width}")
