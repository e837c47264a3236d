"""A stage beat over real HTTP against the fake OpenAI-compatible server: look up, then write."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stage_fixtures import QUESTION

from peargarden.agent.events import AgentEvent, DoneEvent, ToolEndEvent
from peargarden.agent.loop import BeatSettings, run_beat
from peargarden.agent.tools import ToolContext, ToolRegistry
from peargarden.modes.stage.materials import load_stage_materials
from peargarden.modes.stage.request import stage_builder
from peargarden.modes.stage.tools import StageToolEnv, stage_tools
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.sessions.context import ContextMessage
from peargarden.stage.history import story_turns
from peargarden.testing.fake_openai import FakeOpenAIServer, chunk, sse, text_reply, tool_call_delta, usage_chunk
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import SUPPLEMENT_BOOK_FILE, Home
from peargarden.workspace.seed import seed_home


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def fake(server: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    server.requests.clear()
    yield server
    assert server.pending == 0, "a scripted reply was not used"


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


def calls_reply(*calls: tuple[str, str, dict[str, Any]]) -> Any:
    """One streamed reply making tool calls; arguments arrive in two fragments (CJK split across them)."""
    items: list[Any] = [chunk(role="assistant", content="")]
    for index, (call_id, name, args) in enumerate(calls):
        text = json.dumps(args, ensure_ascii=False)
        items.append(chunk(tool_calls=[tool_call_delta(index, id=call_id, name=name, arguments="")]))
        items.append(chunk(tool_calls=[tool_call_delta(index, arguments=text[:7])]))
        items.append(chunk(tool_calls=[tool_call_delta(index, arguments=text[7:])]))
    items += [chunk(finish_reason="tool_calls"), usage_chunk(30, 10)]
    return sse(*items)


def beat(
    home: Home, fake: FakeOpenAIServer, words: str, history: list[ContextMessage]
) -> tuple[list[AgentEvent], list[dict[str, Any]]]:
    folder = CardFolder(home, "青梧")
    materials = load_stage_materials(home, "青梧")
    recorded: list[dict[str, Any]] = []

    def record(message: dict[str, Any]) -> str:
        recorded.append(message)
        return f"e{len(recorded)}"

    settings = BeatSettings(
        provider=OpenAICompatProvider(fake.base_url, "fake-model", "k", sleep=lambda _s: None),
        builder=stage_builder(materials),
        tools=ToolRegistry(stage_tools(StageToolEnv(home, folder))),
        thinking="medium",
        record=record,
        context=ToolContext(home=home.root, card_dir=folder.path, user_text=words),
    )
    full = [*history, ContextMessage("user", words)]
    return list(run_beat(full, settings)), recorded


def greeting(home: Home) -> list[ContextMessage]:
    materials = load_stage_materials(home, "青梧")
    return [ContextMessage("assistant", materials.card.first_mes)]


def test_model_searches_then_writes_the_prose(home: Home, fake: FakeOpenAIServer) -> None:
    prose = "青梧的手在算盘上停了一停。“怀瑾公子……”她望向柜台后那把旧伞，“那年秋天，他是从镇北渡口走的。”"
    fake.script(
        [
            calls_reply(("c1", "lorebook_search", {"query": "怀瑾 镇北渡口"})),
            calls_reply(("c2", "draft_write", {"content": prose}), ("c3", "draft_seal", {})),
        ]
    )
    events, recorded = beat(home, fake, QUESTION, greeting(home))
    assert isinstance(events[-1], DoneEvent) and events[-1].stop_reason == "ended_by_tool"

    first, second = (r.body for r in fake.chat_requests)
    # Stage request: layered system, greeting, the injection before the user's words, the tools.
    assert first["messages"][0]["role"] == "system" and "# 用户扮演：旅人" in first["messages"][0]["content"]
    assert first["messages"][1]["role"] == "assistant" and "听雨轩" in first["messages"][1]["content"]
    last_user = first["messages"][-1]["content"]
    assert last_user.startswith("【相关设定】本拍命中 3 条：") and last_user.endswith(QUESTION)
    assert {t["function"]["name"] for t in first["tools"]} >= {"lorebook_search", "draft_seal", "ask"}
    # The second call sees the search result (bodies fetched by the model itself).
    tool_result = next(m for m in second["messages"] if m["role"] == "tool")
    assert tool_result["content"].startswith("### ") and "沈怀瑾" in tool_result["content"]
    assert second["messages"][0] == first["messages"][0]  # byte-stable system within the beat

    ends = [e for e in events if isinstance(e, ToolEndEvent)]
    assert [e.name for e in ends] == ["lorebook_search", "draft_write", "draft_seal"]
    assert ends[-1].details is not None and ends[-1].details["prose"] == prose
    # The story history keeps the sealed prose, not the tool traces.
    turns = story_turns([{"role": "user", "content": QUESTION}, *recorded])
    assert [t.role for t in turns] == ["user", "assistant"] and turns[1].text == prose


def test_model_searches_then_writes_the_lore_the_user_asked_for(home: Home, fake: FakeOpenAIServer) -> None:
    words = "周伯的外甥叫阿满，在渡口帮工。把这个记下来。"
    entry = {"title": "阿满", "keys": ["阿满"], "content": "阿满是周伯的外甥，十五岁，在镇北渡口帮工。"}
    fake.script(
        [
            calls_reply(("c1", "lorebook_search", {"query": "阿满"})),
            calls_reply(("c2", "lorebook_write", entry)),
            text_reply("青梧提笔在簿子边上添了一行小字：阿满，周伯的外甥。"),
        ]
    )
    events, _recorded = beat(home, fake, words, greeting(home))
    ends = [e for e in events if isinstance(e, ToolEndEvent)]
    assert ends[0].text.startswith("设定集里没有写到这一点")
    assert not ends[1].is_error and "补充设定集" in ends[1].text
    book = json.loads((home.card_dir("青梧") / SUPPLEMENT_BOOK_FILE).read_text(encoding="utf-8"))
    assert book["entries"]["9000"]["content"] == entry["content"]
    # The next beat finds the new entry by keyword.
    fake.script([text_reply("好。")])
    beat(home, fake, "阿满今天来过吗？", greeting(home))
    assert "阿满" in fake.chat_requests[-1].body["messages"][-1]["content"].split("\n\n")[0]


def test_gate_blocks_a_write_the_user_did_not_ask_for(home: Home, fake: FakeOpenAIServer) -> None:
    entry = {"title": "怀瑾的信", "keys": ["信"], "content": "怀瑾走后寄回过一封信。"}
    fake.script([calls_reply(("c1", "lorebook_write", entry)), text_reply("青梧没有作声。")])
    events, _ = beat(home, fake, QUESTION, greeting(home))
    end = next(e for e in events if isinstance(e, ToolEndEvent))
    assert end.is_error and "不要写入" in end.text and "是否写入" in end.text
    assert not (home.card_dir("青梧") / SUPPLEMENT_BOOK_FILE).exists()
