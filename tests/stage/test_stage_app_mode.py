"""The stage mode plugged into the app's chat service (a mode table whose ``stage`` is ``stage_setup``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from stage_fixtures import QUESTION

from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.modes.base import PlayMode
from peargarden.modes.stage.request import stage_setup
from peargarden.modes.table import MODES
from peargarden.providers.base import ChatRequest, Done, StreamEvent, TextDelta, ToolCall
from peargarden.providers.scripted import ScriptedProvider, text_turn, tool_turn
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


# The bare stage request (no declared preset, no work-mode view) in place of the standard stage.
STAGE_ONLY = {**MODES, "stage": PlayMode(stage_setup)}


class StageOnly:
    """Stage requests get the scripted turns; side calls of the app (scene notes, compaction) get an
    empty JSON answer, so they never eat a turn meant for the story."""

    name = "stage-only"

    def __init__(self, stage: ScriptedProvider) -> None:
        self.stage = stage
        self.side: list[ChatRequest] = []

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        first = request.messages[0] if request.messages else {}
        if first.get("role") == "system" and "# 消息流约定" in str(first.get("content")):
            yield from self.stage.stream(request, cancel)
            return
        self.side.append(request)
        yield TextDelta("{}")
        yield Done()

    def list_models(self) -> list[str]:
        return ["scripted"]


def app(home: Home, provider: ScriptedProvider, modes: Mapping[str, PlayMode] = MODES) -> PearApp:
    routed = StageOnly(provider)

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(routed, "scripted", False, "medium")

    return PearApp(home, provider_factory=factory, modes=modes)


def args(value: dict[str, object]) -> str:
    return json.dumps(value, ensure_ascii=False)


def test_two_beats_through_the_chat_service(home: Home) -> None:
    prose = "青梧的手在算盘上停了一停：“那年秋天，他是从镇北渡口走的。”"
    provider = ScriptedProvider().add(
        tool_turn(ToolCall("c1", "lorebook_search", args({"query": "怀瑾"}))),
        tool_turn(ToolCall("c2", "draft_write", args({"content": prose})), ToolCall("c3", "draft_seal", "{}")),
        text_turn("青梧摇摇头。"),
    )
    chat = app(home, provider, STAGE_ONLY).new_chat("青梧")
    events = list(chat.send(QUESTION))
    assert events[-1].to_json()["stop_reason"] == "ended_by_tool"
    first = provider.requests[0]
    assert "# 用户扮演：旅人" in first.messages[0]["content"]
    assert "【相关设定】本拍命中 3 条：" in first.messages[-1]["content"]
    assert "lorebook_search" in [tool.name for tool in first.tools]

    list(chat.send("那把伞呢？"))
    second_beat = provider.requests[2].messages
    # Earlier beats come back as prose only: the sealed draft, no tool calls or results.
    assert [m["role"] for m in second_beat] == ["system", "assistant", "user", "assistant", "user"]
    assert second_beat[3]["content"] == prose
    assert second_beat[-1]["content"].endswith("那把伞呢？")


def test_continue_keeps_its_own_tool_rounds_and_impersonate_offers_no_tools(home: Home) -> None:
    provider = ScriptedProvider().add(
        text_turn("青梧放下茶壶。"),
        tool_turn(ToolCall("c1", "lorebook_search", args({"query": "旧油纸伞"}))),
        text_turn("她望向柜台后那把旧伞。"),
        text_turn("旅人拱手道：“掌柜好。”"),
    )
    chat = app(home, provider, STAGE_ONLY).new_chat("青梧")
    list(chat.send("掌柜好。"))
    list(chat.continue_())
    round_one, round_two = provider.requests[1].messages, provider.requests[2].messages
    assert round_one[-1]["role"] == "user" and round_one[-1]["content"].endswith("不要重复已经写过的内容。）")
    # The second round of the continued beat sees its own tool call and result.
    assert [m["role"] for m in round_two[-2:]] == ["assistant", "tool"]
    assert round_two[-1]["content"].startswith("### 旧油纸伞")

    list(chat.impersonate())
    last = provider.requests[3]
    assert last.tools == []
    assert last.messages[-1]["content"].endswith("只写旅人的部分。）")
