"""The lazy chat gives exactly what eager conversion gives, and reads only the visible end."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.tavern.assemble import generate
from peargarden.tavern.injections import ExtensionTable, insert_newest_first
from peargarden.tavern.lazy_chat import HeadTail, LazyList
from peargarden.tavern.prompts import Prompt

ROLES = ("system", "user", "assistant")


def reference(depths: list[tuple[int, str]], history: list[str]) -> list[str]:
    """ST's algorithm on a plain list (all depths, full copy)."""
    out = list(history)
    inserted = 0
    for depth in sorted({d for d, _ in depths}):
        block = [f"{role}@{depth}" for role in ROLES if (depth, role) in depths]
        out[depth + inserted : depth + inserted] = block
        inserted += len(block)
    return out


@settings(max_examples=examples(200), deadline=None)
@given(
    depths=st.lists(st.tuples(st.integers(0, 12), st.sampled_from(ROLES)), max_size=6, unique=True),
    length=st.integers(0, 15),
)
def test_insertion_on_a_lazy_history_matches_the_eager_algorithm(depths: list[tuple[int, str]], length: int) -> None:
    history = [f"第{i}条" for i in range(length)]
    touched: set[int] = set()

    def make(i: int) -> str:
        touched.add(i)
        return history[i]

    prompts = [
        Prompt(f"p{i}", role, f"{role}@{d}", injection_position=1, injection_depth=d)
        for i, (d, role) in enumerate(depths)
    ]
    out = insert_newest_first(prompts, LazyList(length, make), ExtensionTable(), lambda s: s, lambda r, c: c)
    deepest = max((d for d, _ in depths), default=0)
    assert touched <= set(range(min(deepest, length)))  # nothing past the deepest injection was read
    assert list(out) == reference(depths, history)


def test_head_tail_and_lazy_list_behave_like_lists() -> None:
    lazy = LazyList(5, lambda i: i * 10)
    assert lazy[-1] == 40 and lazy[1:3] == [10, 20] and list(lazy) == [0, 10, 20, 30, 40]
    combined = HeadTail(["甲", "乙"], ["a", "b", "c", "d"], 2)
    assert list(combined) == ["甲", "乙", "c", "d"] and len(combined) == 4 and combined[-1] == "d"


def test_a_long_chat_only_converts_what_is_sent(make_state: object) -> None:
    from tavern_builders import alternating_chat

    chat = alternating_chat(5000)
    state = make_state(chat)  # type: ignore[operator]
    result = generate(state)
    sent = [m["content"] for m in result.messages if m["role"] in ("user", "assistant")]
    assert sent == [m["mes"] for m in chat[len(chat) - len(sent) :]]
    assert 0 < len(sent) < 400


def test_regex_with_side_effects_still_runs_over_the_whole_chat(make_state: object) -> None:
    from tavern_builders import alternating_chat

    script = {"findRegex": "/雨/", "replaceString": "雪{{incvar::次数}}", "placement": [1, 2], "promptOnly": True}
    state = make_state(alternating_chat(7), extension_settings={"regex": [script]})  # type: ignore[operator]
    generate(state)
    assert state.chat_metadata["variables"]["次数"] == 7  # once per message, as ST's eager pass does
