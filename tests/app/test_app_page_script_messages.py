"""The chat's messages as a card's page scripts read them back (issue 50 item 3): what ``run_calls``
gives the frames (its ``world``) is SillyTavern's state of the chat as the recordings of
``../shared/tavernhelper`` show it — here on the recorded cases' own cards (``tests/scripting/cases``),
without a browser (``tests/web/test_web_script_oracle.py`` plays the whole cases in Chromium)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kit.th_cases import CASES, case_home
from peargarden.app.play.page_events import action_events
from peargarden.app.play.page_scripts import run_calls
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.scripting.api import TAVERN_EVENTS
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def _chat(tmp_path: Path, fake: FakeOpenAIServer, case: str) -> tuple[ChatSession, str]:
    config = (
        'mode = "tavern"\ngreeting = true\n\n[story]\nscene_notes = false\n\n'
        '[model]\nprovider = "fake"\nmodel = "gpt-3.5-turbo"\nthinking = "off"\n\n'
        f'[providers.fake]\nbase_url = "{fake.base_url}"\napi_key = "sk-test"\n'
    )
    home, card = case_home(tmp_path / "梨园", CASES / case, config)
    script = json.loads((CASES / case / "input.json").read_text(encoding="utf-8"))["card"]["data"]["extensions"]
    return PearApp(home).new_chat(card, ChatOptions(mode="tavern")), script["tavern_helper"]["scripts"][0]["id"]


def _calls(chat: ChatSession, script: str, *calls: tuple[str, list[Any]]) -> dict[str, Any]:
    answer = run_calls(chat, [{"script": script, "name": name, "args": args} for name, args in calls])
    assert all("error" not in one for one in answer["answers"]), answer["answers"]
    return answer


def test_a_message_whose_record_a_script_emptied_keeps_an_empty_record(tmp_path: Path, fake: FakeOpenAIServer) -> None:
    # Case 17: replaceVariables({}) leaves SillyTavern's message with `variables: [{}]`, not without.
    chat, script = _chat(tmp_path, fake, "17-vars-message-misc")
    made = [{"role": "user", "message": "师父，唱哪段？"},
            {"role": "assistant", "message": "《游园》。", "data": {"段": 1}}]  # fmt: skip
    world = _calls(chat, script, ("createChatMessages", [made]))["world"]
    assert world["chat"][-1]["variables"] == [{"段": 1}]
    world = _calls(chat, script, ("replaceVariables", [{}, {"type": "message", "message_id": -1}]))["world"]
    assert world["chat"][-1]["variables"] == [{}]
    again = _calls(chat, script, ("getVariables", [{"type": "message", "message_id": -1}]))
    assert json.loads(again["answers"][0]["json"]) == {}
    assert again["world"]["chat"][-1]["variables"] == [{}]
    assert "variables" not in again["world"]["chat"][-2]  # the user's message never had any


def test_a_greeting_swipe_shown_by_a_script_keeps_the_extra_sillytavern_gave_it(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    # Case 02: setChatMessages([{message_id: 0, swipe_id}]) makes the greeting's extra that swipe's
    # swipe_info entry ({send_date, extra}); it stays so after the switch back, in a new host too.
    chat, script = _chat(tmp_path, fake, "02-vars-message-swipes")
    world = _calls(chat, script, ("setChatMessages", [[{"message_id": 0, "swipe_id": 1}]]))["world"]
    greeting = world["chat"][0]
    assert greeting["mes"] == "（第二个开场）小梨在后台描眉。"
    assert greeting["extra"] == {"send_date": greeting["send_date"], "extra": {}}
    _calls(chat, script, ("setChatMessages", [[{"message_id": 0, "swipe_id": 0}]]))
    again = _calls(chat, script, ("getChatMessages", [0]))
    (shown,) = json.loads(again["answers"][0]["json"])
    assert shown["message"] == "PG02向你行礼：“师父早！”"
    assert again["world"]["chat"][0]["extra"] == {"send_date": again["world"]["chat"][0]["send_date"], "extra": {}}
    exported = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").splitlines()]
    assert exported[1]["extra"] == again["world"]["chat"][0]["extra"]  # the SillyTavern file says the same


def _send(chat: ChatSession, fake: FakeOpenAIServer, text: str, reply: str) -> None:
    fake.script([text_reply(reply)])
    for _ in chat.play("send", text).events():
        pass


def test_a_sent_message_and_its_reply_carry_the_extra_sillytavern_stores(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    # Case 10: the typed message's extra ({isSmallSys, reasoning}), the reply's (the API and the model
    # asked, the reasoning fields) and no is_system on the reply; no chat variables until one is set.
    chat, script = _chat(tmp_path, fake, "10-event-message-received")
    _send(chat, fake, "小梨，唱一段。", "小梨清了清嗓子：“咿——呀——”")
    answer = _calls(chat, script, ("getChatMessages", ["0-{{lastMessageId}}"]))
    sent, reply = answer["world"]["chat"][1:]
    assert sent["extra"] == {"isSmallSys": False, "reasoning": ""}
    assert reply["extra"] == {"api": "custom", "model": "gpt-3.5-turbo", "reasoning": "",
                              "reasoning_duration": None, "reasoning_signature": None}  # fmt: skip
    assert "is_system" not in reply and sent["is_system"] is False
    assert "variables" not in answer["world"]["chat_metadata"]
    exported = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").splitlines()]
    assert exported[3]["extra"] == reply["extra"]  # the model asked (the fake names itself "fake-model")
    assert exported[2]["extra"] == sent["extra"]


def test_a_sends_events_come_in_sillytaverns_order_with_the_chat_as_it_was_then(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    # Case 16's recording lists the send's events SillyTavern 1.18 emitted (the ones its script listens
    # to); the page's are made from the beat's own record, each with the chat a listener read then.
    chat, _ = _chat(tmp_path, fake, "16-event-order-send")
    _send(chat, fake, "触发事件", "小梨应声而来。")
    events = action_events(chat, "send")["events"]
    recorded = json.loads((CASES / "16-event-order-send" / "expected.json").read_text(encoding="utf-8"))
    heard = recorded["script_output"]["sequence"] + recorded["script_output"]["trailing"]
    listened = {name: key for key, name in TAVERN_EVENTS.items() if key in {e["event"] for e in heard}}
    ours = [(listened[kind], view["length"] if view else 3) for kind, _, view in events if kind in listened]
    assert ours == [(e["event"], e["chat_length"]) for e in heard if e["args"][1:] != ["first_message"]]
    by_kind = {kind: (args, view) for kind, args, view in reversed(events)}  # each kind's first
    sent = fake.chat_requests[-1].body["messages"]
    assert by_kind["chat_completion_prompt_ready"][0][0]["chat"] == sent  # the request the beat sent
    received = by_kind["message_received"][1]["last"]
    assert received["mes"] == "小梨应声而来。" and "swipe_info" not in received  # not drawn yet
    assert [entry["world"] for entry in by_kind["world_info_activated"][0][0]] == ["th16_book"]


def test_a_swipe_keeps_the_chat_variables_written_before_it(tmp_path: Path, fake: FakeOpenAIServer) -> None:
    # Case 13: a listener of the first reply counted it in a chat variable; the swipe (a new branch from
    # the user's message here) still reads that count, as SillyTavern's one chat_metadata gives it.
    chat, script = _chat(tmp_path, fake, "13-event-swipe-message-vars")
    _send(chat, fake, "第一句", "回复甲")
    _calls(chat, script, ("insertOrAssignVariables", [{"次数": 1}, {"type": "chat"}]))
    fake.script([text_reply("回复乙，换一个说法")])
    for _ in chat.play("swipe", step=1).events():
        pass
    answer = _calls(chat, script, ("getVariables", [{"type": "chat"}]),
                    ("getChatMessages", [-1, {"include_swipes": True}]))  # fmt: skip
    assert json.loads(answer["answers"][0]["json"]) == {"次数": 1}
    (reply,) = json.loads(answer["answers"][1]["json"])
    assert reply["swipes"] == ["回复甲", "回复乙，换一个说法"] and reply["swipe_id"] == 1
    first = reply["swipes_info"][0]  # as drawing a received reply leaves it
    assert sorted(first) == ["extra", "gen_finished", "gen_started", "send_date"]
    assert first["extra"]["model"] == "gpt-3.5-turbo"
    events = [kind for kind, _, _ in action_events(chat, "swipe")["events"]]
    assert events[:2] == ["message_swiped", "generation_started"] and "message_sent" not in events


def test_messages_a_script_appends_then_inserts_before_are_one_chat_not_swipes(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    # Case 08: createChatMessages at the end, then one with insert_before: 1 — the inserted narrator's
    # message is one message (its swipe info a copy of its extra), the chat reads in SillyTavern's order.
    chat, script = _chat(tmp_path, fake, "08-create-delete-messages")
    _calls(
        chat,
        script,
        ("createChatMessages", [[{"role": "user", "message": "师父"}, {"role": "assistant", "message": "在"}]]),
    )
    inserted = [{"role": "system", "message": "（旁白插入）", "name": "旁白"}]
    _calls(chat, script, ("createChatMessages", [inserted, {"insert_before": 1}]))
    answer = _calls(chat, script, ("getChatMessages", ["0-{{lastMessageId}}"]))
    shown = json.loads(answer["answers"][0]["json"])
    assert [m["message"] for m in shown][1:] == ["（旁白插入）", "师父", "在"]
    assert shown[1]["swipes"] == ["（旁白插入）"] and shown[1]["role"] == "system"
    assert shown[1]["extra"] == {"extra": {"type": "narrator"}}
    assert [m["swipes"] for m in shown[3:]] == [["在"]]


def test_a_hidden_narrators_message_after_a_reply_is_a_message_of_its_own(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    # Case 07's chat: a reply, then a hidden narrator's message.  It was counted as a round of the reply
    # in SillyTavern's numbering (the export, the variables), so every later message's variables were
    # one off: setChatMessages on the user's message 4 wrote message 3's (and its is_hidden was lost).
    chat, script = _chat(tmp_path, fake, "07-set-chat-messages")
    made = [{"role": "user", "message": "师父"}, {"role": "assistant", "message": "在"},
            {"role": "system", "message": "（夜深了）", "is_hidden": True}, {"role": "user", "message": "唱一段"},
            {"role": "assistant", "message": "好", "data": {"段": 1}}]  # fmt: skip
    _calls(chat, script, ("createChatMessages", [made]))
    world = _calls(chat, script, ("setChatMessages", [[{"message_id": 4, "is_hidden": True, "data": {"注": "d"}}]]))[
        "world"
    ]
    assert [m.get("variables") for m in world["chat"][3:]] == [None, [{"注": "d"}], [{"段": 1}]]
    assert world["chat"][4]["is_system"] is True
    exported = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").splitlines()][1:]
    assert [line["mes"] for line in exported] == [
        "PG07向你行礼：“师父早！”",
        "师父",
        "在",
        "（夜深了）",
        "唱一段",
        "好",
    ]


def test_swipes_a_script_sets_on_an_earlier_message_keep_the_messages_after_it(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    # Case 07: setChatMessages gives a reply in the middle of the chat three swipes, shows another, and
    # shows the greeting's second swipe: SillyTavern keeps every later message (here they were other
    # branches, or refused); the chat, the next host and the SillyTavern export show the same.
    chat, script = _chat(tmp_path, fake, "07-set-chat-messages")
    made = [{"role": "user", "message": "师父"}, {"role": "assistant", "message": "在"},
            {"role": "user", "message": "唱一段"}, {"role": "assistant", "message": "好"}]  # fmt: skip
    _calls(chat, script, ("createChatMessages", [made]))
    _calls(chat, script, ("setChatMessages", [[{"message_id": 2, "swipes": ["甲", "乙", "丙"], "swipe_id": 1}]]),
           ("setChatMessages", [[{"message_id": 2, "swipe_id": 2}]]),
           ("setChatMessages", [[{"message_id": 0, "swipe_id": 1}]]))  # fmt: skip
    again = _calls(chat, script, ("getChatMessages", ["0-{{lastMessageId}}", {"include_swipes": True}]))
    shown = json.loads(again["answers"][0]["json"])
    assert [m["swipes"][m["swipe_id"]] for m in shown] == ["（第二个开场）梨园后台。", "师父", "丙", "唱一段", "好"]
    assert shown[2]["swipes"] == ["甲", "乙", "丙"] and shown[2]["swipes_data"] == [{}, {}, {}]
    exported = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").splitlines()][1:]
    assert [line["mes"] for line in exported] == ["（第二个开场）梨园后台。", "师父", "丙", "唱一段", "好"]
    assert exported[2]["swipes"] == ["甲", "乙", "丙"] and exported[2]["swipe_id"] == 2
    assert chat.context()[2].content == "丙"  # what the model reads next
