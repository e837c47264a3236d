"""An MVU card played as a member of a group, on the fake OpenAI server: every speaker's reply is its
own message whose update commands apply to the variables the message before it left, whoever wrote
it; MVU's seed lands where MVU writes it in a group (the latest message when the MVU member's turn
starts); swipes of either speaker's reply keep a record per swipe; the group chat's SillyTavern file
keeps ``variables`` exactly through export and import; on the stage every member changes the
variables through ``variables_update`` and no update block is ever shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit.apps import seeded_home
from kit.groups import connect, tea_house
from peargarden.app.library.groups import create_group
from peargarden.app.library.imports import import_files
from peargarden.app.play.chat_variables import ChatVariables
from peargarden.app.play.group_session import GroupSession, import_group_chat, new_group_chat
from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, StreamReply, chunk, text_reply, tool_call_delta
from peargarden.variables.message import STATUS_PLACEHOLDER
from peargarden.workspace.home import Home

CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"

# 小梨 (the MVU card of the recorded case) speaks first, 林月 (a plain card) second.
XIAOLI = (
    "小梨笑着接过茶。\n<UpdateVariable>\n_.set('世界.地点', '后台');//去后台\n"
    "_.add('金钱', -20);//买茶叶\n</UpdateVariable>"
)
LINYUE = (
    "林月收下茶钱。\n<UpdateVariable>\n_.add('金钱', -5);//茶钱\n"
    "_.set('小梨.心情', '开心');//喝到好茶\n</UpdateVariable>"
)


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = tea_house(seeded_home(home_dir))
    import_files(seeded, [CASE / "card.json"], book="mount", card=None)
    import_files(seeded, [CASE / "小梨变量书.json"], book="mount", card="小梨")
    return seeded


def _money(variables: ChatVariables) -> list[list[Any]]:
    """Per message, per swipe: 金钱 in that swipe's record (None: the swipe has no record)."""
    return [[(r["stat_data"]["金钱"] if r else None) for r in m.swipes] for m in variables.messages]


def _events(chat: GroupSession, action: str, text: str = "") -> list[dict[str, Any]]:
    return [event.to_json() for event in chat.play(action, text).events()]


def _round(home: Home, fake: FakeOpenAIServer, *replies: StreamReply, mode: str = "tavern") -> GroupSession:
    create_group(home, "戏班", ["小梨", "林月"], strategy="list", mode=mode)
    connect(home, fake.base_url)
    fake.script(list(replies))
    chat = new_group_chat(PearApp(home, story_memory=False), "戏班", ChatOptions(thinking="medium"))
    events = _events(chat, "send", "师父来了，大家早。")
    assert [e["name"] for e in events if e["type"] == "speaker"] == ["小梨", "林月"]
    assert not [e for e in events if e["type"] in ("warning", "error")]
    return chat


def test_each_reply_applies_its_commands_to_the_variables_the_message_before_left(home: Home) -> None:
    with FakeOpenAIServer() as fake:
        chat = _round(home, fake, text_reply(XIAOLI), text_reply(LINYUE))
        bodies = [json.dumps(request.body, ensure_ascii=False) for request in fake.chat_requests]
    variables = chat.variables()
    assert variables.mvu and [m.role for m in variables.messages] == ["assistant", "assistant", "user", "assistant",
                                                                      "assistant"]  # fmt: skip
    # Greetings 小梨, 林月; the seed goes where MVU writes it once a chat has more than one message:
    # the latest message when 小梨's turn starts (林月's greeting); the user's message gets its copy.
    assert _money(variables) == [[None], [100], [100], [80], [75]]
    last = variables.messages[-1].current
    assert last is not None and last["stat_data"]["世界"]["地点"] == "后台"
    assert last["stat_data"]["小梨"]["心情"] == "开心"
    assert last["delta_data"]["金钱"] == "80->75 (茶钱)"  # 林月's reply started from 小梨's
    assert list(last["initialized_lorebooks"]) == ["小梨变量书"]  # 林月 has no book: nothing more was read
    # 小梨's request shows the seed through the card's macro; 林月's has no 小梨 book (the speaker's own only).
    assert "金钱: 100" in bodies[0] and "{{format_message_variable" not in bodies[0]
    assert "金钱: 100" not in bodies[1] and "金钱: 80" not in bodies[1]
    # Each reply shows MVU's status placeholder; the next speaker reads 小梨's reply without it (MVU's
    # prompt filter takes "\n<StatusPlaceHolderImpl/>" out of every message it sends).
    rows = chat.view().rows
    assert [row.content.endswith(STATUS_PLACEHOLDER) for row in rows[-2:]] == [True, True]
    assert rows[-1].variables == last and "StatusPlaceHolderImpl" not in bodies[1]
    assert json.dumps(f"小梨: {XIAOLI}\n", ensure_ascii=False)[1:-1] in bodies[1]
    status = chat.status_line()
    assert status is not None and "金钱=75*" in status and "小梨.心情=开心*" in status and "世界.地点=后台" in status


def test_swipes_of_either_speaker_keep_a_record_per_swipe(home: Home) -> None:
    again = "林月摆摆手：“今天不收钱。”\n<UpdateVariable>\n_.add('金钱', -1);//小费\n</UpdateVariable>"
    sorry = "小梨摇头：“我不渴。”\n<UpdateVariable>\n_.add('金钱', -50);//赔罪\n</UpdateVariable>"
    with FakeOpenAIServer() as fake:
        chat = _round(home, fake, text_reply(XIAOLI), text_reply(LINYUE), text_reply(again), text_reply(sorry))
        # The last speaker's swipe: a new version of 林月's reply, from 小梨's record.
        assert [e["name"] for e in _events(chat, "swipe") if e["type"] == "speaker"] == ["林月"]
        assert _money(chat.variables()) == [[None], [100], [100], [80], [75, 79]]
        assert chat.variables().messages[-1].swipe_id == 1
        # The first speaker's: as in SillyTavern, 林月's reply is deleted so 小梨's is the last one.
        chat.delete(len(chat.messages()) - 1)
        assert _money(chat.variables()) == [[None], [100], [100], [80]]
        assert [e["name"] for e in _events(chat, "swipe") if e["type"] == "speaker"] == ["小梨"]
    variables = chat.variables()
    assert _money(variables) == [[None], [100], [100], [80, 50]]  # from the user's record, not from 80
    assert variables.messages[-1].current is not None
    assert variables.messages[-1].current["delta_data"]["金钱"] == "100->50 (赔罪)"
    # Back to 小梨's first version: its branch, 林月's replies and their records included, as it was.
    list(chat.play("swipe", step=-1).events())
    assert _money(chat.variables()) == [[None], [100], [100], [80, 50], [75, 79]]
    status = chat.status_line()
    assert status is not None and "金钱=79*" in status


def test_the_group_chat_file_keeps_variables_exactly_through_export_and_import(home: Home) -> None:
    again = "林月摆摆手。\n<UpdateVariable>\n_.add('金钱', -1);//小费\n</UpdateVariable>"
    with FakeOpenAIServer() as fake:
        chat = _round(home, fake, text_reply(XIAOLI), text_reply(LINYUE), text_reply(again))
        list(chat.play("swipe").events())
    data = chat.export_sillytavern()
    lines = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    records = [line.get("variables") for line in lines[1:]]
    assert [len(r) if r else 0 for r in records] == [0, 1, 1, 1, 2]  # the last reply: one record per swipe
    assert records[1:] == [[m.current] if len(m.swipes) == 1 else m.swipes for m in chat.variables().messages[1:]]
    assert lines[-1]["swipes"][1].endswith(STATUS_PLACEHOLDER) and lines[-1]["swipe_id"] == 1
    imported = import_group_chat(PearApp(home, story_memory=False), "戏班", data, "戏班 - 导出.jsonl")
    assert imported.export_sillytavern() == data
    assert _money(imported.variables()) == _money(chat.variables()) == [[None], [100], [100], [80], [75, 79]]


def test_a_second_mvu_member_seeds_its_own_book_at_its_first_turn(home: Home, tmp_path: Path) -> None:
    book = tmp_path / "林月的账本.json"
    seed = "林月:\n  茶叶: 3\n金钱: 999\n"
    entry = {"uid": 0, "comment": "[initvar]林月", "content": seed, "disable": True, "key": []}
    book.write_text(json.dumps({"entries": {"0": entry}}, ensure_ascii=False), encoding="utf-8")
    import_files(home, [book], book="mount", card="林月")
    linyue = "林月泡了一壶。\n<UpdateVariable>\n_.add('林月.茶叶', -1);//泡茶\n_.add('金钱', -5);//茶钱\n"
    linyue += "</UpdateVariable>"
    with FakeOpenAIServer() as fake:
        chat = _round(home, fake, text_reply(XIAOLI), text_reply(linyue))
    messages = chat.variables().messages
    seeded, reply = messages[3].current, messages[4].current
    assert seeded is not None and reply is not None
    # 林月's book is read when her turn starts: merged under what the chat carries (金钱 stays 80),
    # written onto the latest message then (小梨's reply), and her reply applies on top of it.
    assert seeded["stat_data"]["林月"] == {"茶叶": 3} and seeded["stat_data"]["金钱"] == 80
    assert list(seeded["initialized_lorebooks"]) == ["小梨变量书", "林月的账本"]
    assert seeded["schema"]["properties"]["林月"]["properties"]["茶叶"]["type"] == "number"
    assert reply["stat_data"]["林月"] == {"茶叶": 2} and reply["stat_data"]["金钱"] == 75
    assert messages[1].current is not None and "林月" not in messages[1].current["stat_data"]


def _tool_then_text(call_id: str, patch: list[dict[str, Any]], text: str) -> list[StreamReply]:
    arguments = json.dumps({"patch": patch, "reason": "买茶"}, ensure_ascii=False)
    call = StreamReply(items=[chunk(role="assistant"),
                              chunk(tool_calls=[tool_call_delta(0, id=call_id, name="variables_update",
                                                                arguments=arguments)]),
                              chunk(finish_reason="tool_calls")])  # fmt: skip
    return [call, text_reply(text)]


def test_on_the_stage_every_member_updates_through_the_tool_and_no_block_is_shown(home: Home) -> None:
    first = _tool_then_text("c1", [{"op": "delta", "path": "/金钱", "value": -20}], "小梨捧着茶碗，笑得眯起了眼。")
    block = "\n\n<UpdateVariable>\n_.add('金钱', -5);//点心\n</UpdateVariable>"
    second = _tool_then_text("c2", [{"op": "replace", "path": "/小梨/心情", "value": "开心"}], f"林月递过点心。{block}")
    with FakeOpenAIServer() as fake:
        create_group(home, "戏班", ["小梨", "林月"], strategy="list", mode="stage")
        connect(home, fake.base_url)
        fake.script([*first, *second])
        chat = new_group_chat(PearApp(home, story_memory=False), "戏班", ChatOptions(thinking="medium"))
        events = _events(chat, "send", "师父来了，大家早。")
        bodies = [request.body for request in fake.chat_requests]
    assert [e["name"] for e in events if e["type"] == "speaker"] == ["小梨", "林月"]
    tools = [[t["function"]["name"] for t in body.get("tools") or []] for body in bodies]
    assert "variables_update" in tools[0] and "variables_update" in tools[2]  # 林月 too: the variables are the scene's
    assert "金钱: 80" in json.dumps(bodies[2]["messages"], ensure_ascii=False)  # 林月 reads what 小梨's tool left
    streamed = "".join(e["text"] for e in events if e["type"] == "text_delta")
    assert "UpdateVariable" not in streamed and "林月递过点心。" in streamed
    rows = chat.view().rows
    assert all("UpdateVariable" not in row.content for row in rows)
    assert rows[-1].content == f"林月递过点心。\n\n{STATUS_PLACEHOLDER}"
    variables = chat.variables()
    last = variables.messages[-1].current
    assert last is not None and last["stat_data"]["金钱"] == 75 and last["stat_data"]["小梨"]["心情"] == "开心"
    assert _money(variables)[-3:] == [[100], [80], [75]]
    assert "UpdateVariable" not in chat.export_sillytavern().decode("utf-8")


def test_with_thinking_off_the_side_model_updates_after_each_speaker(home: Home) -> None:
    def side(patch: str) -> StreamReply:
        return text_reply(f"<UpdateVariable><JSONPatch>{patch}</JSONPatch></UpdateVariable>")

    with FakeOpenAIServer() as fake:
        create_group(home, "戏班", ["小梨", "林月"], strategy="list", mode="stage")
        connect(home, fake.base_url)
        fake.script([text_reply("小梨红了脸。"), side('[{"op":"replace","path":"/小梨/心情","value":"害羞"}]'),
                     text_reply("林月掩嘴一笑。"), side('[{"op":"delta","path":"/金钱","value":-3}]')])  # fmt: skip
        chat = new_group_chat(PearApp(home, story_memory=False), "戏班", ChatOptions(thinking="off"))
        beat = chat.play("send", "小梨今天真好看。")
        list(beat.events())
        bodies = [request.body for request in fake.chat_requests]
    assert beat.result is not None
    assert [sent.purpose for sent in beat.result.requests] == ["beat", "variables", "beat", "variables"]
    assert all(not body.get("tools") or "variables_update" not in json.dumps(body["tools"]) for body in bodies)
    assert "心情: 害羞" in json.dumps(bodies[3]["messages"], ensure_ascii=False)  # 林月's side call sees 小梨's change
    messages = chat.variables().messages
    moods = [(m.current or {}).get("stat_data", {}).get("小梨", {}).get("心情") for m in messages[-2:]]
    assert moods == ["害羞", "害羞"]
    assert _money(chat.variables())[-2:] == [[100], [97]]
