"""The live mode of a chat follows the branch: rewinding, branching, going to another entry or
swiping back before a recorded mode change gives the mode recorded on the new branch — the same
mode reopening the chat would give."""

from __future__ import annotations

from pathlib import Path

import pytest

from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.providers.base import ToolCall
from peargarden.providers.scripted import ScriptedProvider, text_turn, tool_turn
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(home_dir: Path) -> Home:
    h = Home(home_dir)
    seed_home(h)
    return h


def _app(home: Home, provider: ScriptedProvider) -> PearApp:
    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "off")

    return PearApp(home, provider_factory=factory)


def test_goto_and_branch_before_a_set_mode_go_back_to_the_old_mode(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("青梧点头：“客官请坐。”"), text_turn("（酒馆里）她斟了一杯茶。"))
    app = _app(home, provider)
    chat = app.new_chat()
    assert chat.mode == "stage"
    list(chat.send("掌柜的，来壶茶。"))
    before_switch = chat.chat.tree.leaf
    assert before_switch is not None
    chat.set_mode("tavern")
    list(chat.send("再来一碟点心。"))
    tavern_leaf = chat.chat.tree.leaf
    assert chat.mode == "tavern" and tavern_leaf is not None

    chat.goto(before_switch)  # the leaf sits before the `mode` entry now
    assert chat.mode == "stage" == app.open_chat(None, chat.chat_id).mode
    # Back on the tavern branch: its recorded mode is live again.
    chat.goto(tavern_leaf)
    assert chat.mode == "tavern" == app.open_chat(None, chat.chat_id).mode
    chat.branch(1)  # from the first user message: before the switch
    assert chat.mode == "stage" == app.open_chat(None, chat.chat_id).mode


def test_regenerating_the_reply_that_switched_into_work_mode_starts_on_stage(home: Home) -> None:
    provider = ScriptedProvider().add(
        tool_turn(ToolCall("c1", "conversation_mode", '{"mode": "authoring"}')),
        text_turn("卡已经展开了，想改哪里？"),
        text_turn("青梧笑道：“客官说笑了。”"),
    )
    app = _app(home, provider)
    chat = app.new_chat()
    list(chat.send("我想改改这张卡的开场白。"))
    assert chat.mode == "work"
    # The regenerated reply is asked on stage again: the switch was part of the reply rewound.
    list(chat.regenerate())
    assert chat.mode == "stage" == app.open_chat(None, chat.chat_id).mode
    assert "conversation_mode" in [tool.name for tool in provider.requests[-1].tools]
    assert provider.requests[-1].messages[0] == provider.requests[0].messages[0]
    # Swiping back to the work-mode reply brings its mode back.
    assert chat.swipe(-1) is None
    assert chat.mode == "work" == app.open_chat(None, chat.chat_id).mode
