"""The members' TavernHelper scripts in a group chat's page (issue 45): each member card's allowed
scripts listed with their card, each call checked against ITS card (a member's script writes into the
group chat and its own card's state; a card that is not a member, or a script its card does not run,
is refused), the chat numbered as the group's SillyTavern file, and a round's events per speaker with
the speaker as the current character (``app/play/group_page_scripts.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit.apps import scripted_app, seeded_home
from kit.groups import add_card, chinese_card, tea_house
from peargarden.app.library.groups import create_group
from peargarden.app.play.group_page_scripts import group_action_events, group_page_scripts, run_group_calls
from peargarden.app.play.group_session import GroupSession, new_group_chat
from peargarden.app.play.service import ChatOptions
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import Home
from peargarden.workspace.script_allowance import set_scripts_allowance


def _script(script_id: str, name: str, button: str) -> dict[str, Any]:
    buttons = {"enabled": True, "buttons": [{"name": button, "visible": True}]}
    return {"type": "script", "enabled": True, "id": script_id, "name": name, "content": "console.log(1);",
            "info": "", "data": {}, "button": buttons}  # fmt: skip


def _helper(*scripts: dict[str, Any]) -> dict[str, Any]:
    return {"scripts": list(scripts), "variables": {}}


@pytest.fixture
def home(home_dir: Path) -> Home:
    home = tea_house(seeded_home(home_dir))
    add_card(home, "林月", chinese_card("林月", "茶馆的老板娘。", "欢迎光临，{{user}}。",
                                       tavern_helper=_helper(_script("林月-账本", "账本", "记账"))))  # fmt: skip
    add_card(home, "周明", chinese_card("周明", "常来喝茶的诗人。", "雨天正好作诗。",
                                       tavern_helper=_helper(_script("周明-诗囊", "诗囊", "吟诗"))))  # fmt: skip
    add_card(home, "小桃", chinese_card("小桃", "小伙计。", "客官里边请！",
                                       tavern_helper=_helper(_script("小桃-算盘", "算盘", "算账"))))  # fmt: skip
    for card in ("林月", "周明", "小桃"):
        set_scripts_allowance(CardFolder(home, card), True)
    return home


def _chat(home: Home, *replies: str) -> GroupSession:
    create_group(home, "茶馆", ["林月", "周明"], strategy="list")
    provider = ScriptedProvider()
    for reply in replies:
        provider.add(text_turn(reply))
    return new_group_chat(scripted_app(home, provider), "茶馆", ChatOptions(mode="tavern"))


def _call(card: str, script: str, name: str, *args: Any) -> dict[str, Any]:
    return {"card": card, "script": script, "name": name, "args": list(args)}


def test_each_members_allowed_scripts_run_with_their_card(home: Home) -> None:
    chat = _chat(home)
    found = group_page_scripts(chat)
    assert [(s["card"], s["id"], s["buttons"]) for s in found["scripts"]] == [
        ("林月", "林月-账本", ["记账"]), ("周明", "周明-诗囊", ["吟诗"])]  # fmt: skip
    assert found["allowed"] is True and found["count"] == 0
    world = found["world"]
    assert [m["mes"] for m in world["chat"]] == ["欢迎光临，旅人。", "雨天正好作诗。"]  # one line per greeting
    assert world["names"] == {"user": "旅人", "char": ""}  # nobody is the current character between rounds
    assert set(world["members"]) == {"林月", "周明"}


def test_a_member_not_allowed_waits_and_its_scripts_do_not_run(home: Home) -> None:
    set_scripts_allowance(CardFolder(home, "周明"), False)
    found = group_page_scripts(_chat(home))
    assert [s["card"] for s in found["scripts"]] == ["林月"]
    assert [(m["card"], m["allowed"], m["count"]) for m in found["members"]] == [("林月", True, 1), ("周明", False, 1)]


def test_calls_are_checked_against_their_own_card(home: Home) -> None:
    chat = _chat(home)
    answer = run_group_calls(chat, [
        _call("林月", "林月-账本", "insertOrAssignVariables", {"记账": 1}, {"type": "chat"}),
        _call("周明", "周明-诗囊", "insertOrAssignVariables", {"诗": "雨"}, {"type": "character"}),
        _call("小桃", "小桃-算盘", "insertOrAssignVariables", {"偷": 1}, {"type": "chat"}),  # not a member
        _call("周明", "林月-账本", "insertOrAssignVariables", {"冒名": 1}, {"type": "chat"}),  # another card's script
    ])  # fmt: skip
    answers = answer["answers"]
    assert "error" not in answers[0] and "error" not in answers[1]
    assert "不是群聊" in answers[2]["error"] and "小桃" in answers[2]["error"]
    assert "林月-账本" in answers[3]["error"]
    world = answer["world"]
    assert world["chat_metadata"]["variables"] == {"记账": 1}  # the group chat's, written once
    assert world["members"]["周明"]["character"]["variables"] == {"诗": "雨"}  # 周明's own card
    assert world["members"]["林月"]["character"]["variables"] == {}
    saved = json.loads((home.card_dir("周明") / "卡.json").read_text(encoding="utf-8"))
    assert saved["tavern_helper_state"]["variables"] == {"诗": "雨"}
    assert not (home.card_dir("小桃") / "卡.json").read_text(encoding="utf-8").count("偷")
    assert chat.chat.header is not None and _chat_variables(chat) == {"记账": 1}


def _chat_variables(chat: GroupSession) -> Any:
    chat.chat.refresh()
    return group_page_scripts(chat)["world"]["chat_metadata"].get("variables")


def test_a_script_writes_messages_into_the_group_chat_but_starts_no_round(home: Home) -> None:
    chat = _chat(home)
    answer = run_group_calls(chat, [
        _call("周明", "周明-诗囊", "createChatMessages", [{"role": "assistant", "message": "（一首）"}]),
        _call("林月", "林月-账本", "createChatMessages", [{"role": "user", "message": "再来一首"}]),
        _call("林月", "林月-账本", "triggerSlash", "/trigger"),
    ])  # fmt: skip
    assert "error" not in answer["answers"][0]
    assert [m.content for m in chat.messages()][-2:] == ["（一首）", "再来一首"]
    assert "不能发起回合" in json.dumps(answer["answers"][2], ensure_ascii=False)


def test_a_rounds_events_come_per_speaker_with_the_speaker_current(home: Home) -> None:
    chat = _chat(home, "龙井马上就好。", "雨落西湖。")
    list(chat.play("send", "今天喝什么茶？").events())
    found = group_action_events(chat, "send")
    kinds = [event[0] for event in found["events"]]
    assert kinds[:3] == ["message_sent", "user_message_rendered", "group_wrapper_started"]
    assert kinds[-1] == "group_wrapper_finished"
    assert kinds.count("group_member_drafted") == 2 and kinds.count("message_received") == 2
    received = [event for event in found["events"] if event[0] == "message_received"]
    assert [event[1][0] for event in received] == [3, 4]  # the lines of the group's file: greetings, user, replies
    assert [event[2]["speaker"]["name"] for event in received] == ["林月", "周明"]
    assert [event[2]["last"]["mes"] for event in received] == ["龙井马上就好。", "雨落西湖。"]
    prompt = [event for event in found["events"] if event[0] == "chat_completion_prompt_ready"]
    assert len(prompt) == 2 and prompt[0][1][0]["chat"] != prompt[1][1][0]["chat"]  # each speaker's own request
    assert found["events"][0][1] == [2] and found["events"][0][2]["length"] == 3


def test_a_swipe_of_the_last_reply_is_swiped_then_its_speakers_turn(home: Home) -> None:
    chat = _chat(home, "龙井马上就好。", "雨落西湖。", "晴也好。")
    list(chat.play("send", "今天喝什么茶？").events())
    list(chat.play("swipe").events())
    events = group_action_events(chat, "swipe")["events"]
    assert [event[0] for event in events[:3]] == ["message_swiped", "group_wrapper_started", "group_member_drafted"]
    assert events[0][1] == [4] and events[0][2]["last"]["swipes"] == ["雨落西湖。", ""]  # the new swipe empty
    (received,) = [event for event in events if event[0] == "message_received"]
    assert received[1] == [4, "swipe"] and received[2]["speaker"]["name"] == "周明"
    assert received[2]["last"]["mes"] == "晴也好。"
    assert events[1][1] == [{"selected_group": "茶馆", "type": "swipe"}]
