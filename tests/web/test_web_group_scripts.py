"""The members' TavernHelper scripts on a group chat's page (issue 45): a group of two script cards,
each written the way real ones are (the host found through ``window.parent``, a panel drawn into "the
page", ``eventOn`` listeners, a script button whose handler writes a chat variable and a toast), both
made from one template (the same script id).  Real Chromium, the real page, the fake model: both
scripts run, each in its own frame; each hears the round's events per speaker with the speaker as
the current character (nobody once the round is over, as SillyTavern has it); each button's write
lands in the group chat (its character variable in its own card); a call in the name of a card that
is not a member is refused (``app/play/group_page_scripts.py``)."""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
from script_card import helper_script
from status_card import frame_of, tavern_config, wait_text
from web_harness import LiveServer, Served, beats_done, wait_ready

from kit.groups import add_card, chinese_card
from peargarden.app.library.groups import create_group
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Page

GROUP = "茶馆夜话"
SCRIPT_ID = "茶馆模板-面板"  # both cards come from one template


def _panel_script(owner: str, button: str, key: str) -> str:
    """A member's panel: what it heard (with who was the current character then) and the chat's *key*."""
    return f"""
const host = () => (window.parent && window.parent !== window ? window.parent : window);
const $page = host().$;
const heard = [];
const who = () => host().SillyTavern.getContext().name2 || '无';
function draw() {{
  $page('#面板 .听到', host().document).text(heard.join(' '));
  $page('#面板 .值', host().document).text('{key}=' + (getVariables({{ type: 'chat' }}).{key} || 0));
}}
$(() => {{
  $page('body', host().document)
    .append('<div id="面板"><b>{owner}</b> <span class="听到"></span> <i class="值"></i></div>');
  draw();
  eventOn(tavern_events.MESSAGE_SENT, (id) => {{ heard.push('发' + id + '@' + who()); draw(); }});
  eventOn(tavern_events.GROUP_MEMBER_DRAFTED, () => {{ heard.push('轮到' + getCurrentCharacterName()); draw(); }});
  eventOn(tavern_events.MESSAGE_RECEIVED, (id) => {{ heard.push('收' + id + '@' + who()); draw(); }});
  eventOn(tavern_events.GROUP_WRAPPER_FINISHED, () => {{ heard.push('散@' + who()); draw(); }});
  eventOn(getButtonEvent('{button}'), async () => {{
    const old = getVariables({{ type: 'chat' }});
    insertOrAssignVariables({{ {key}: (old.{key} || 0) + 1 }}, {{ type: 'chat' }});
    insertOrAssignVariables({{ 按过: '{button}' }}, {{ type: 'character' }});
    draw();
    toastr.success('{owner}记下了', '{owner}');
  }});
}});
"""


def _member(home: Home, name: str, script_name: str, button: str, key: str) -> None:
    script = helper_script(script_name, _panel_script(name, button, key), [button], SCRIPT_ID)
    add_card(home, name, chinese_card(name, f"{name}，茶馆的常客。", f"{name}在此。",
                                      tavern_helper={"scripts": [script], "variables": {}}))  # fmt: skip
    (home.card_dir(name) / "卡.json").write_text(json.dumps({"scripts_allowed": True}), encoding="utf-8")


@pytest.fixture(scope="module")
def group_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("group-scripts-home"))
    seed_home(home)
    _member(home, "林月", "林月的账本", "记茶钱", "茶钱")
    _member(home, "周明", "周明的诗囊", "吟诗", "诗")
    _member(home, "小桃", "小桃的算盘", "算账", "账")  # not a member of the group
    create_group(home, GROUP, ["林月", "周明"], strategy="list", mode="tavern")
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def _post(served: Served, path: str, body: dict[str, Any]) -> dict[str, Any]:
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(served.url + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        return dict(json.loads(response.read()))


def _world_when(served: Served, base: str, ready: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """The group chat's data once *ready* holds of it (the page sends a frame's writes as they come)."""
    until = time.monotonic() + 15
    while True:
        with urllib.request.urlopen(f"{served.url}{base}/scripts/world") as answer:
            world: dict[str, Any] = json.loads(answer.read())["world"]
        if ready(world) or time.monotonic() > until:
            return world
        time.sleep(0.1)


def _frame(page: Page, script: str) -> Frame:
    return frame_of(page.locator(f"#script-frames iframe[title='脚本：{script}']"))


def test_both_members_scripts_run_hear_the_round_and_write_into_the_group_chat(
    group_served: Served, page: Page
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    group_served.fake.script([text_reply("林月端上一壶龙井。"), text_reply("周明吟了两句。")])
    folder = urllib.parse.quote(GROUP)
    chat_id = str(_post(group_served, f"/api/groups/{folder}/chats", {})["chat_id"])
    base = f"/api/groups/{folder}/chats/{urllib.parse.quote(chat_id)}"
    page.goto(f"{group_served.url}/group/{folder}/{urllib.parse.quote(chat_id)}")
    wait_ready(page)
    page.wait_for_selector("body[data-scripts-ready='2']")  # one frame per member's script
    lin, zhou = _frame(page, "林月的账本"), _frame(page, "周明的诗囊")
    assert page.locator("#script-frames iframe[title='脚本：小桃的算盘']").count() == 0
    heads = page.locator("#script-frames .script-frame-head span").all_inner_texts()
    assert heads == ["林月 · 林月的账本", "周明 · 周明的诗囊"]  # each panel says whose card it is
    wait_text(lin, "#面板 .值", "茶钱=0")
    wait_text(zhou, "#面板 .值", "诗=0")

    page.fill("#composer", "两位晚上好。")
    page.click("#send")
    beats_done(page, 1)
    # Lines: the two greetings (0, 1), the user's (2), 林月's reply (3), 周明's (4).
    heard = "发2@无 轮到林月 收3@林月 轮到周明 收4@周明 散@无"
    wait_text(lin, "#面板 .听到", heard)
    wait_text(zhou, "#面板 .听到", heard)

    page.click("#script-buttons button:has-text('记茶钱')")
    wait_text(lin, "#面板 .值", "茶钱=1")
    page.click("#script-buttons button:has-text('吟诗')")
    wait_text(zhou, "#面板 .值", "诗=1")
    page.wait_for_function("(document.body.textContent || '').includes('周明记下了')")  # its toast is the page's
    def both_written(world: dict[str, Any]) -> bool:  # (a reply's chat metadata is saved after its calls)
        chat = world["chat_metadata"].get("variables") or {}
        return "诗" in chat and bool(world["members"]["周明"]["character"]["variables"])

    world = _world_when(group_served, base, both_written)
    assert world["chat_metadata"]["variables"] == {"茶钱": 1, "诗": 1}  # both writes in the group chat
    assert world["members"]["林月"]["character"]["variables"] == {"按过": "记茶钱"}  # each in its own card
    assert world["members"]["周明"]["character"]["variables"] == {"按过": "吟诗"}
    saved = json.loads((group_served.home.card_dir("林月") / "卡.json").read_text(encoding="utf-8"))
    assert saved["tavern_helper_state"]["variables"] == {"按过": "记茶钱"}

    # A call in the name of a card that is not a member (or of another card's script) is refused.
    write = {"name": "insertOrAssignVariables", "args": [{"账": 9}, {"type": "chat"}]}
    forged = _post(group_served, f"{base}/scripts/call", {"calls": [
        {"card": "小桃", "script": SCRIPT_ID, **write}, {"card": "周明", "script": "别的脚本", **write}]})  # fmt: skip
    assert "不是群聊" in forged["answers"][0]["error"] and "别的脚本" in forged["answers"][1]["error"]
    assert "账" not in forged["world"]["chat_metadata"]["variables"]
    assert errors == []
