"""The stage's stream without ``<UpdateVariable>`` blocks: however the deltas split the tags, what
streams is what the reply shows once its block is stripped (``modes.stage.variables.strip_updates``)."""

from __future__ import annotations

import random

import pytest

from peargarden.agent.events import AgentEvent, DoneEvent, TextDeltaEvent, ToolStartEvent
from peargarden.app.play.hidden_updates import without_update_blocks
from peargarden.modes.stage.variables import strip_updates

REPLIES = [
    "小梨点头。\n\n<UpdateVariable>\n_.add('金钱', -5);//茶钱\n</UpdateVariable>",
    "林月笑了。<updatevariable>_.set('心情', '开心');</UPDATEVARIABLE>\n她转身去泡茶。",
    "没有变量块，只有一个 < 号和 <Update 半个标签。",
    "末尾的块没有收尾\n<UpdateVariable>\n_.add('金钱', -1);",
]


def _streamed(pieces: list[str]) -> str:
    events: list[AgentEvent] = [TextDeltaEvent(text=piece) for piece in pieces]
    out = list(without_update_blocks([*events, DoneEvent(stop_reason="stop")]))
    assert isinstance(out[-1], DoneEvent)
    return "".join(e.text for e in out if isinstance(e, TextDeltaEvent))


@pytest.mark.parametrize("reply", REPLIES)
def test_what_streams_is_the_reply_as_shown(reply: str) -> None:
    rolls = random.Random(reply)
    for _ in range(200):
        pieces, at = [], 0
        while at < len(reply):
            size = rolls.randint(1, 7)
            pieces.append(reply[at : at + size])
            at += size
        assert _streamed(pieces) == strip_updates(reply)


def test_text_held_back_before_a_tool_call_is_let_out_then() -> None:
    events: list[AgentEvent] = [TextDeltaEvent(text="我查一下。\n\n<Upd"), ToolStartEvent(name="lorebook_search")]
    out = list(without_update_blocks(events))
    assert [type(e).__name__ for e in out] == ["TextDeltaEvent", "TextDeltaEvent", "ToolStartEvent"]
    assert "".join(e.text for e in out if isinstance(e, TextDeltaEvent)) == "我查一下。\n\n<Upd"
