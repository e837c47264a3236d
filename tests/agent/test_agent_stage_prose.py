"""The per-chat memo of beat prose (modes.stage.prose) gives exactly what story_turns gives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from peargarden.modes.stage import prose as stage_prose
from peargarden.modes.stage.prose import StoryProse, message_view
from peargarden.sessions.context import ContextMessage
from peargarden.stage.history import story_turns


def _call(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": json.dumps(args, ensure_ascii=False)}


def _story() -> list[ContextMessage]:
    """Beats of every kind: plain text, a draft written then edited, a refused draft call, a fork
    question, a beat with no prose, a system note in the middle."""
    return [
        ContextMessage("assistant", "青梧抬眼：“客官来得早。”", "e0", tags=["greeting"]),
        ContextMessage("user", "掌柜可还记得怀瑾公子？", "e1"),
        ContextMessage(
            "assistant",
            "",
            "e2",
            tool_calls=[
                _call("c1", "draft_write", content="青梧放下茶盏，望向镇北渡口。"),
                _call("c2", "draft_edit", old_text="镇北渡口", new_text="窗外的河"),
                _call("c3", "draft_append", content="“记得，他欠我一壶雨前龙井。”"),
            ],
        ),
        ContextMessage("tool", "已写入", "e3", tool_call_id="c1"),
        ContextMessage("tool", "已改", "e4", tool_call_id="c2"),
        ContextMessage("tool", "追加失败", "e5", tool_call_id="c3", is_error=True),
        ContextMessage("assistant", "", "e6", tool_calls=[_call("c4", "draft_seal")]),
        ContextMessage("tool", "已封稿", "e7", tool_call_id="c4"),
        ContextMessage("system", "（旁注）", "e8"),
        ContextMessage("user", "那他后来去了哪里？", "e9"),
        ContextMessage(
            "assistant",
            "青梧摇头。",
            "e10",
            tool_calls=[_call("c5", "ask", question="要不要追问？", options=["追问", "作罢"])],
        ),
        ContextMessage("tool", "已交给用户", "e11", tool_call_id="c5"),
        ContextMessage("user", "追问", "e12"),
        ContextMessage("assistant", "   ", "e13"),
        ContextMessage("user", "……", "e14"),
    ]


def _expected(messages: list[ContextMessage]) -> list[Any]:
    return story_turns([message_view(m) for m in messages])


def test_same_turns_as_story_turns_on_first_and_later_calls() -> None:
    messages = _story()
    prose = StoryProse()
    first = prose.story_turns(messages)
    assert first == _expected(messages)
    assert "青梧放下茶盏，望向窗外的河。" in first[2].text and "雨前龙井" not in first[2].text
    assert "【岔口】要不要追问？（追问／作罢）" in first[4].text
    assert prose.story_turns(messages) == first


def test_a_known_beat_is_not_derived_again(monkeypatch: pytest.MonkeyPatch) -> None:
    derived: list[int] = []
    real = stage_prose.beat_turn

    def counting(beat: Any) -> Any:
        derived.append(len(beat))
        return real(beat)

    monkeypatch.setattr(stage_prose, "beat_turn", counting)
    messages = _story()
    prose = StoryProse()
    prose.story_turns(messages)
    beats = len(derived)
    more = [*messages, ContextMessage("assistant", "青梧笑而不答。", "e15")]
    assert prose.story_turns(more) == _expected(more)
    # Only the last beat (which gained a message) was derived again.
    assert len(derived) == beats + 1


def test_new_branch_swipe_and_edit_change_the_replay() -> None:
    messages = _story()
    prose = StoryProse()
    prose.story_turns(messages)
    # A swipe: the reply to "追问" replaced by a sibling entry.
    swiped = [*messages[:13], ContextMessage("assistant", "青梧叹气：“他去了南边。”", "s13"), messages[14]]
    assert prose.story_turns(swiped) == _expected(swiped)
    assert "他去了南边" in prose.story_turns(swiped)[-2].text
    # A branch cut off after the first beat, then a new message on it.
    branch = [*messages[:8], ContextMessage("user", "换个话题吧。", "b1")]
    assert prose.story_turns(branch) == _expected(branch)
    assert prose.story_turns(branch)[-1].text == "换个话题吧。"
    # Same entry id, other text (a view that rewrites a message): not mistaken for the cached one.
    rewritten = [*messages[:13], ContextMessage("assistant", "【写卡维护】改了卡面。", "e13")]
    assert prose.story_turns(rewritten)[-1].text == "【写卡维护】改了卡面。"


def test_messages_without_entry_ids_are_derived_every_time() -> None:
    prose = StoryProse()
    loose = [ContextMessage("user", "今天有什么茶？"), ContextMessage("assistant", "新到的明前龙井。")]
    assert prose.story_turns(loose) == _expected(loose)
    assert len(prose) == 0
    changed = [loose[0], ContextMessage("assistant", "只剩陈年普洱了。")]
    assert prose.story_turns(changed)[-1].text == "只剩陈年普洱了。"


def test_the_memo_drops_beats_no_branch_uses_any_more() -> None:
    prose = StoryProse()
    for n in range(200):
        prose.story_turns([ContextMessage("user", "问", "u"), ContextMessage("assistant", f"答{n}", f"a{n}")])
    assert len(prose) <= 2 * 1 + 64 + 1
