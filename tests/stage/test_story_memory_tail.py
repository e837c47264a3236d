"""Story memory reads a long branch from its end (stage/memory/story.py): the last beat, the story
after a summary's last covered item and the "over budget" check equal the passes over the whole
branch they replace, on generated Chinese branches with work beats, hidden and tagged messages,
tool rounds, mode switches, summaries' user turns and branches without a user message."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.stage.history import story_turns
from peargarden.stage.memory.story import (
    StoryItem,
    after,
    last_beat,
    story_items,
    story_since,
    tokens_over,
    user_indices,
)


@dataclass(frozen=True)
class Msg:
    """A message entry as the readers take it (``id`` and its ``message``)."""

    id: str
    message: dict[str, Any]


def _message(kind: str, n: int) -> dict[str, Any]:
    text = f"第{n}句：青梧说，雨还没停。"
    if kind == "user":
        return {"role": "user", "content": text}
    if kind == "assistant":
        return {"role": "assistant", "content": text * (1 + n % 3)}
    if kind == "empty":
        return {"role": "assistant", "content": ""}
    if kind == "hidden":
        return {"role": "user" if n % 2 else "assistant", "content": text, "tags": ["hidden"]}
    if kind == "work":
        return {"role": "assistant" if n % 2 else "user", "content": "改卡：" + text, "tags": ["work"]}
    if kind == "switch":
        call = {"id": f"c{n}", "name": "conversation_mode", "arguments": json.dumps({"mode": "authoring"})}
        return {"role": "assistant", "content": "", "tool_calls": [call]}
    if kind == "draft":
        call = {"id": f"d{n}", "name": "draft_write", "arguments": json.dumps({"content": "稿：" + text})}
        return {"role": "assistant", "content": "", "tool_calls": [call]}
    if kind == "tool":
        return {"role": "tool", "content": "好", "tool_call_id": f"d{n - 1}"}
    if kind == "compaction":
        return {"role": "user", "content": "摘要：" + text, "tags": ["compaction"]}
    return {"role": "system", "content": text}


KINDS = [
    "user",
    "assistant",
    "assistant",
    "user",
    "empty",
    "hidden",
    "work",
    "switch",
    "draft",
    "tool",
    "compaction",
    "system",
]
branches = st.lists(st.sampled_from(KINDS), max_size=160).map(
    lambda kinds: [Msg(f"e{n:04x}", _message(kind, n)) for n, kind in enumerate(kinds)]
)


def _whole(messages: list[Msg]) -> list[StoryItem]:
    return story_items([StoryItem(m.id, m.message) for m in messages])


def _count(text: str) -> int:
    return len(text) // 2 + 1


@settings(max_examples=examples(300), deadline=None)
@given(branches)
def test_the_last_beat_from_the_end_is_the_whole_storys(messages: list[Msg]) -> None:
    items = _whole(messages)
    users = user_indices(items)
    assert last_beat(messages) == (items[users[-1] :] if users else items)


@settings(max_examples=examples(300), deadline=None)
@given(branches, st.integers(min_value=-1, max_value=170))
def test_the_story_after_a_covered_item_is_the_whole_storys(messages: list[Msg], pick: int) -> None:
    # The covered item: any message of the branch (a story item or not), or one not on it.
    covers = messages[pick].id if 0 <= pick < len(messages) else ("e9999" if pick >= 0 else None)
    assert story_since(messages, covers) == after(_whole(messages), covers)


@settings(max_examples=examples(300), deadline=None)
@given(branches, st.integers(min_value=0, max_value=400))
def test_over_budget_counted_from_the_end_is_the_whole_count(messages: list[Msg], limit: int) -> None:
    items = _whole(messages)
    total = sum(3 + _count(turn.text) for turn in story_turns([item.message for item in items]))
    assert tokens_over(items, _count, limit) is (total > limit)


def test_a_long_branch_is_read_only_at_its_end() -> None:
    """The last beat of 20,000 messages decodes only the end (bodies are read on first use)."""
    read: list[str] = []

    class Lazy:
        def __init__(self, n: int) -> None:
            self.id = f"e{n}"
            self._n = n

        @property
        def message(self) -> dict[str, Any]:
            read.append(self.id)
            return _message("user" if self._n % 2 == 0 else "assistant", self._n)

    messages = [Lazy(n) for n in range(20_000)]
    beat = last_beat(messages)
    assert [item.entry_id for item in beat] == ["e19998", "e19999"]
    assert len(set(read)) < 100
