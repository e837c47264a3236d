"""The stage in a group chat, on the fake OpenAI server: one beat, several speakers, each with the
stage's layered prompt from its own card's files, the round's scene (the roster, who speaks) in
each request, the other members' replies under their names, and the speaker chosen by the model
through ``next_speaker`` or by the group's strategy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit.apps import seeded_home
from kit.groups import connect, tea_house
from peargarden.app.library.groups import create_group
from peargarden.app.play.group_session import GroupSession, new_group_chat
from peargarden.app.play.service import PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, StreamReply, chunk, text_reply, tool_call_delta
from peargarden.workspace.home import Home


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = tea_house(seeded_home(home_dir))
    # Each card's own prompt file: the speaker's request carries its own, not the other's.
    (seeded.card_dir("林月") / "APPEND_SYSTEM.md").write_text(
        "## 林月的口癖\n林月说话总带一个“呢”字。\n", encoding="utf-8"
    )
    (seeded.card_dir("周明") / "APPEND_SYSTEM.md").write_text("## 周明的口癖\n周明三句不离诗。\n", encoding="utf-8")
    return seeded


def _handing_on(text: str, name: str, call_id: str) -> StreamReply:
    """A reply that says *text*, then calls ``next_speaker`` with *name*."""
    arguments = json.dumps({"name": name}, ensure_ascii=False)
    return StreamReply(
        items=[
            chunk(role="assistant", content=text),
            chunk(tool_calls=[tool_call_delta(0, id=call_id, name="next_speaker", arguments=arguments)]),
            chunk(finish_reason="tool_calls"),
        ]
    )


def _play(home: Home, text: str) -> tuple[GroupSession, list[dict[str, Any]]]:
    """A new chat of the group (the real connection from config.toml), one beat: its events."""
    chat = new_group_chat(PearApp(home, story_memory=False), "茶馆")
    beat = chat.play("send", text)
    return chat, [event.to_json() for event in beat.events()]


def _system(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"])


def _tools(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def test_the_model_hands_the_turn_on_with_next_speaker(home: Home) -> None:
    create_group(home, "茶馆", ["林月", "周明"], strategy="list", mode="stage", speaker_choice="model")
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script(
            [
                _handing_on("龙井马上就好呢。", "周明", "c1"),
                _handing_on("雨落西湖，茶香满楼。", "user", "c2"),
            ]
        )
        chat, events = _play(home, "今天喝什么茶？")
        bodies = [request.body for request in fake.chat_requests]
    kinds = [e["type"] for e in events if e["type"] != "text_delta"]
    assert kinds == ["speaker", "tool_start", "tool_end", "speaker", "tool_start", "tool_end", "done"]
    assert [e["name"] for e in events if e["type"] == "speaker"] == ["林月", "周明"]
    assert events[-1]["stop_reason"] == "stop"
    assert len(bodies) == 2  # one request per speaker: handing on ends a speaker's turn
    first, second = bodies
    # Each speaker's layered prompt from its own card's files.
    assert "林月说话总带一个“呢”字" in _system(first) and "周明三句不离诗" not in _system(first)
    assert "周明三句不离诗" in _system(second) and "林月说话总带一个“呢”字" not in _system(second)
    # The round's scene: the roster, who speaks now, who has spoken.
    assert "# 群聊：茶馆" in _system(first)
    assert "- 林月（正在发言）：茶馆的老板娘，说话温和。" in _system(first)
    assert "- 林月（本轮已发言）" in _system(second) and "- 周明（正在发言）" in _system(second)
    assert "next_speaker" in _tools(first) and "next_speaker" in _tools(second)
    # The second speaker reads the first one's reply under her name, and its turn is cued.
    contents = [str(m.get("content")) for m in second["messages"]]
    assert "【林月】龙井马上就好呢。" in contents
    assert contents[-1].endswith("（轮到周明。）")
    said = [(m.name, m.content) for m in chat.messages() if m.role != "tool"]
    assert said[-3:] == [("旅人", "今天喝什么茶？"), ("林月", "龙井马上就好呢。"), ("周明", "雨落西湖，茶香满楼。")]


def test_a_name_that_is_no_member_is_an_error_the_model_can_fix(home: Home) -> None:
    create_group(home, "茶馆", ["林月", "周明"], strategy="list", mode="stage", speaker_choice="model")
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([_handing_on("你好呢。", "老王", "c1"), _handing_on("", "周明", "c2"), text_reply("好诗。")])
        _, events = _play(home, "都在吗？")
        count = len(fake.chat_requests)
    errors = [e for e in events if e["type"] == "tool_end" and e["is_error"]]
    assert len(errors) == 1 and "群里没有「老王」" in errors[0]["text"] and "周明" in errors[0]["text"]
    assert [e["name"] for e in events if e["type"] == "speaker"] == ["林月", "周明"]
    assert count == 3  # the model was asked again after the error, then 周明 answered without handing on


def test_with_the_strategy_choosing_every_member_speaks_in_turn_without_the_tool(home: Home) -> None:
    create_group(home, "茶馆", ["林月", "周明"], strategy="list", mode="stage")
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply("龙井呢。"), text_reply("好诗。")])
        _, events = _play(home, "今天喝什么茶？")
        bodies = [request.body for request in fake.chat_requests]
    assert [e["name"] for e in events if e["type"] == "speaker"] == ["林月", "周明"]
    assert len(bodies) == 2 and all("next_speaker" not in _tools(body) for body in bodies)
    assert "调用 next_speaker" not in _system(bodies[0])


def test_a_fork_handed_to_the_user_ends_the_round(home: Home) -> None:
    create_group(home, "茶馆", ["林月", "周明"], strategy="list", mode="stage")
    ask = json.dumps({"question": "去哪？", "options": ["后院", "楼上"]}, ensure_ascii=False)
    reply = StreamReply(
        items=[
            chunk(role="assistant", content="要去哪儿看看呢？"),
            chunk(tool_calls=[tool_call_delta(0, id="a1", name="ask", arguments=ask)]),
            chunk(finish_reason="tool_calls"),
        ]
    )
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([reply, text_reply("不该被问到。")])
        _, events = _play(home, "四处看看。")
        count = len(fake.chat_requests)
    assert [e["name"] for e in events if e["type"] == "speaker"] == ["林月"]
    assert events[-1]["stop_reason"] == "ended_by_tool" and count == 1
