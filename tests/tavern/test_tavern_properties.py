"""Hypothesis properties of the budgeted assembly."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tavern_builders import StateFactory, chat_message

from kit.examples import examples
from peargarden.tavern.assemble import generate

SNIPPETS = ["雨停了就走吧。", "Shall we go? ", "龙井", "西湖的断桥", "*她笑了笑*", "\n", "好。"]

texts = st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=12).map("".join)
chats = st.lists(texts, min_size=1, max_size=25).map(
    lambda items: [chat_message(t, user=i % 2 == 1) for i, t in enumerate(items)]
)
PROPS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _history_numbers(result: Any) -> list[int]:
    return [int(row.slot.split("-")[1].split("(")[0]) for row in result.ledger if row.slot.startswith("chatHistory-")]


@PROPS
@given(chat=chats, context=st.integers(min_value=380, max_value=1500), pin=st.booleans())
def test_budget_is_never_exceeded(
    make_state: StateFactory, chat: list[dict[str, Any]], context: int, pin: bool
) -> None:
    state = make_state(
        chat, oai={"openai_max_context": context, "openai_max_tokens": 120}, power_user={"pin_examples": pin}
    )
    result = generate(state)
    assert not any("超出" in w for w in result.warnings)
    assert result.used <= context - 120
    assert sum(row.tokens for row in result.ledger) + 3 == result.used


@PROPS
@given(chat=chats, context=st.integers(min_value=380, max_value=1500))
def test_history_is_a_contiguous_newest_suffix(
    make_state: StateFactory, chat: list[dict[str, Any]], context: int
) -> None:
    result = generate(make_state(chat, oai={"openai_max_context": context, "openai_max_tokens": 120}))
    numbers = _history_numbers(result)
    assert numbers == list(range(len(chat) - len(numbers) + 1, len(chat) + 1))
    kept = [m["content"] for m in result.messages if m["role"] in ("user", "assistant")]
    assert kept == [m["mes"] for m in chat[len(chat) - len(kept) :]]


@PROPS
@given(
    chat=chats, context=st.integers(min_value=380, max_value=4095), gen=st.sampled_from(["normal", "continue", "swipe"])
)
def test_assembling_twice_gives_the_same_bytes(
    make_state: StateFactory, chat: list[dict[str, Any]], context: int, gen: str
) -> None:
    def build() -> Any:
        return make_state(chat, oai={"openai_max_context": context}, metadata={"note_prompt": "[作者注：{{char}}]"})

    first = generate(build(), gen)
    second = generate(build(), gen)
    assert json.dumps(first.messages, ensure_ascii=False) == json.dumps(second.messages, ensure_ascii=False)
