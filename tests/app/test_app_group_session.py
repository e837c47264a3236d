"""A group chat's beat: one user message, several speakers — events that name each speaker, one
reply each in ``BeatResult.replies``, stop between speakers, regenerate re-running the round,
swipe / continue on the last speaker, impersonate as a member, ``/trigger``, muted members, the
beat log, and the group chat exported as SillyTavern's (tavern mode, a scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.apps import scripted_app, seeded_home
from kit.groups import tea_house
from peargarden.agent.events import AgentEvent
from peargarden.app.library.groups import create_group, set_muted
from peargarden.app.play import beat_log
from peargarden.app.play.beat import Beat
from peargarden.app.play.group_session import GroupSession, new_group_chat, open_group_chat
from peargarden.app.play.service import ChatOptions
from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.workspace.home import Home


@pytest.fixture
def home(home_dir: Path) -> Home:
    return tea_house(seeded_home(home_dir))


def _chat(home: Home, *replies: str, strategy: str = "list", members: tuple[str, ...] = ("林月", "周明")
          ) -> tuple[GroupSession, ScriptedProvider]:  # fmt: skip
    create_group(home, "茶馆", list(members), strategy=strategy)
    provider = ScriptedProvider()
    for reply in replies:
        provider.add(text_turn(reply))
    return new_group_chat(scripted_app(home, provider), "茶馆", ChatOptions(mode="tavern")), provider


def _events(beat: Beat) -> list[AgentEvent]:
    return list(beat.events())


def _said(chat: GroupSession) -> list[tuple[str | None, str]]:
    return [(m.name, m.content) for m in chat.messages()]


def test_one_message_is_one_beat_with_a_reply_per_speaker(home: Home) -> None:
    chat, provider = _chat(home, "龙井马上就好。", "雨落西湖。")
    assert _said(chat) == [("林月", "欢迎光临，旅人。"), ("周明", "雨天正好作诗。")]  # every member greets
    beat = chat.play("send", "今天喝什么茶？")
    events = _events(beat)
    assert [e.type for e in events if e.type != "text_delta"] == ["speaker", "speaker", "done"]
    assert [e.to_json() for e in events if e.type == "speaker"] == [
        {"type": "speaker", "name": "林月", "card": "林月"},
        {"type": "speaker", "name": "周明", "card": "周明"},
    ]
    result = beat.result
    assert result is not None and result.stop_reason == "stop"
    assert [(r.speaker, r.text, r.stop_reason) for r in result.replies] == [
        ("林月", "龙井马上就好。", "stop"),
        ("周明", "雨落西湖。", "stop"),
    ]
    ids = [row.id for row in chat.view().rows]
    assert [r.entries for r in result.replies] == [[ids[-2]], [ids[-1]]]
    # The user's message and both replies among what it wrote (tavern mode also keeps ST's metadata).
    assert [i for i in result.entries if i in ids] == ids[-3:]
    assert _said(chat)[-3:] == [("旅人", "今天喝什么茶？"), ("林月", "龙井马上就好。"), ("周明", "雨落西湖。")]
    assert len(provider.requests) == 2 and len(result.requests) == 2
    # The second speaker sees the first one's reply.
    assert {"role": "assistant", "content": "林月: 龙井马上就好。"} in provider.requests[1].messages
    logged = beat_log.load(chat.chat.path)
    assert len(logged) == 1 and len(logged[0].rounds) == 2 and logged[0].entries == result.entries


def test_the_replies_of_a_round_share_its_id_and_say_who_spoke(home: Home) -> None:
    chat, _ = _chat(home, "一", "二")
    _events(chat.play("send", "你们好"))
    rows = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").splitlines()]
    assert rows[0] == {"chat_metadata": {}, "user_name": "unused", "character_name": "unused"}
    bots = [row for row in rows[1:] if not row["is_user"]]
    assert [(r["name"], r["mes"], r["original_avatar"], r["force_avatar"]) for r in bots] == [
        ("林月", "欢迎光临，旅人。", "林月.png", "/thumbnail?type=avatar&file=%E6%9E%97%E6%9C%88.png"),
        ("周明", "雨天正好作诗。", "周明.png", "/thumbnail?type=avatar&file=%E5%91%A8%E6%98%8E.png"),
        ("林月", "一", "林月.png", "/thumbnail?type=avatar&file=%E6%9E%97%E6%9C%88.png"),
        ("周明", "二", "周明.png", "/thumbnail?type=avatar&file=%E5%91%A8%E6%98%8E.png"),
    ]
    rounds = [r["extra"]["gen_id"] for r in bots]
    assert rounds[2] == rounds[3] and len({rounds[0], rounds[1], rounds[2]}) == 3
    assert rounds[2] > 1_700_000_000_000  # the clock in milliseconds, past every id of the chat


def test_stopping_after_the_first_speaker_keeps_its_reply_and_asks_nobody_else(home: Home) -> None:
    chat, provider = _chat(home, "龙井", "不会被问到")
    beat = chat.play("send", "今天喝什么茶？")
    kinds = []
    for event in beat.events():
        kinds.append(event.type)
        if event.type == "text_delta":
            beat.stop()
    assert kinds == ["speaker", "text_delta", "done"]
    assert beat.result is not None and beat.result.stop_reason == "aborted"
    assert [(r.speaker, r.text) for r in beat.result.replies] == [("林月", "龙井")]
    assert len(provider.requests) == 1
    assert _said(chat)[-2:] == [("旅人", "今天喝什么茶？"), ("林月", "龙井")]
    assert not chat.busy  # the chat is given back


def test_regenerate_runs_the_whole_round_again_and_keeps_the_old_one(home: Home) -> None:
    chat, provider = _chat(home, "一", "二", "三", "四")
    _events(chat.play("send", "你们好"))
    beat = chat.play("regenerate")
    _events(beat)
    assert beat.result is not None and [(r.speaker, r.text) for r in beat.result.replies] == [
        ("林月", "三"),
        ("周明", "四"),
    ]
    assert _said(chat)[-3:] == [("旅人", "你们好"), ("林月", "三"), ("周明", "四")]
    assert [m.content for m in chat.messages()].count("你们好") == 1
    assert provider.requests[2].messages == provider.requests[0].messages  # the round as it was first asked
    contents = [str(row.entry.message.get("content")) for row in chat.tree_rows() if row.entry.type == "message"]
    assert "一" in contents and "二" in contents  # the old round is a branch, not gone


def test_swipe_and_continue_act_on_the_last_speaker(home: Home) -> None:
    chat, provider = _chat(home, "一", "二", "二号", "接着")
    _events(chat.play("send", "你们好"))
    beat = chat.play("swipe")
    events = _events(beat)
    assert [e.to_json()["name"] for e in events if e.type == "speaker"] == ["周明"]
    assert _said(chat)[-2:] == [("林月", "一"), ("周明", "二号")]
    assert chat.swipe_position() == (2, 2)
    assert provider.requests[2].messages == provider.requests[1].messages
    back = chat.play("swipe", step=-1)
    assert back.result is not None and not back.result.generated and len(provider.requests) == 3
    assert _said(chat)[-1] == ("周明", "二") and chat.swipe_position() == (1, 2)
    cont = chat.play("continue")
    assert [e.to_json()["name"] for e in _events(cont) if e.type == "speaker"] == ["周明"]
    assert _said(chat)[-1] == ("周明", "二接着")
    assert chat.view().swipe.count == 2  # SillyTavern's continue: the same version of the reply, grown


def test_impersonate_writes_the_users_line_as_a_member_sees_it_and_keeps_nothing(home: Home) -> None:
    chat, provider = _chat(home, "我想喝龙井。")
    before = _said(chat)
    chat.random = lambda: 0.6  # the member is drawn: the second of two
    beat = chat.play("impersonate")
    events = _events(beat)
    assert [e.to_json()["name"] for e in events if e.type == "speaker"] == ["周明"]
    assert beat.result is not None and beat.result.text == "我想喝龙井。"
    assert _said(chat) == before
    assert "[Write the next reply only as" not in json.dumps(provider.requests[0].messages, ensure_ascii=False)


def test_trigger_makes_a_muted_member_answer_and_manual_groups_wait_for_it(home: Home) -> None:
    chat, provider = _chat(home, "小桃来了！", strategy="manual", members=("林月", "周明", "小桃"))
    set_muted(home, "茶馆", "小桃")
    quiet = chat.play("send", "有人吗？")
    assert [e.type for e in _events(quiet)] == ["done"]  # MANUAL: the message is only posted
    assert quiet.result is not None and quiet.result.replies[0].text == ""
    assert not provider.requests and _said(chat)[-1] == ("旅人", "有人吗？")
    beat = chat.play("send", "/trigger 小桃")
    assert [e.to_json()["name"] for e in _events(beat) if e.type == "speaker"] == ["小桃"]
    assert _said(chat)[-2:] == [("旅人", "有人吗？"), ("小桃", "小桃来了！")]  # /trigger posts no message
    with pytest.raises(NotFound, match="没有成员「老王」"):
        chat.play("send", "/trigger 老王")
    with pytest.raises(BadInput, match="需要成员名"):
        chat.play("send", "/trigger")


def test_muting_from_elsewhere_applies_to_the_next_round(home: Home) -> None:
    chat, provider = _chat(home, "只有我", members=("林月", "周明"))
    set_muted(home, "茶馆", "周明")  # the web's member strip, another process
    beat = chat.play("send", "你们好")
    _events(beat)
    assert beat.result is not None and [r.speaker for r in beat.result.replies] == ["林月"]
    assert len(provider.requests) == 1


def test_a_reply_that_goes_on_as_another_member_is_cut_there(home: Home) -> None:
    chat, _ = _chat(home, "好茶。\n周明: 我也要一杯。", "嗯。")
    _events(chat.play("send", "尝尝"))
    assert _said(chat)[-2:] == [("林月", "好茶。"), ("周明", "嗯。")]


def test_a_group_chat_reopens_where_it_was(home: Home) -> None:
    chat, _ = _chat(home, "一", "二")
    _events(chat.play("send", "你们好"))
    app = scripted_app(home, ScriptedProvider())
    again = open_group_chat(app, "茶馆", chat.chat_id)
    assert _said(again) == _said(chat) and again.mode == "tavern"
    assert [(m.name, m.card, m.muted) for m in again.roster()] == [("林月", "林月", False), ("周明", "周明", False)]
    group = again.view().extra["group"]
    assert group["name"] == "茶馆" and [m["name"] for m in group["members"]] == ["林月", "周明"]
    rows = again.view().rows
    assert [group["row_cards"].get(row.id) for row in rows] == ["林月", "周明", None, "林月", "周明"]


def test_a_second_round_while_one_runs_is_refused_and_changes_nothing(home: Home) -> None:
    chat, provider = _chat(home, "一", "二")
    beat = chat.play("send", "你们好")  # held until it has run
    with pytest.raises(ConflictError):
        chat.play("send", "/trigger 周明")
    _events(beat)
    assert beat.result is not None and [r.speaker for r in beat.result.replies] == ["林月", "周明"]
    assert len(provider.requests) == 2 and not chat.busy
