"""A budgeted stage beat derives the story from its newest messages only: the request (messages and
the cut warning with its count) equals the one the whole story gives, on long Chinese chats, beat
after beat, across branches, at every budget."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from kit.examples import examples
from peargarden.agent.loop import BeatInput
from peargarden.modes.stage.materials import StageMaterials, load_stage_materials
from peargarden.modes.stage.prose import StoryProse, message_view
from peargarden.modes.stage.request import split_rounds, stage_builder
from peargarden.sessions.context import ContextMessage
from peargarden.stage import assemble_beat
from peargarden.stage.history import story_turns
from peargarden.stage.memory.view import StoryView, budget_messages
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

LINES = [
    "掌柜可还记得镇北渡口的怀瑾公子？",
    "青梧放下茶盏，望向窗外的河，半晌才道：“记得。”",
    "",  # a beat that left no prose
    "雨下大了，听雨轩的灯一盏盏亮起来。" * 6,
    "他走的那天，渡口的柳树才抽芽。",
]


@pytest.fixture(scope="module")
def materials(tmp_path_factory: pytest.TempPathFactory) -> StageMaterials:
    home = Home(tmp_path_factory.mktemp("home") / "home")
    seed_home(home)
    return load_stage_materials(home, "青梧")


def chat(picks: list[int], *, start: int = 0) -> list[ContextMessage]:
    """A story: a user line, then one or two assistant rounds per beat (Chinese text, some empty)."""
    out: list[ContextMessage] = []
    for n, pick in enumerate(picks, start=start):
        out.append(ContextMessage("user", f"{LINES[pick % 2 * 4]}（{n}）", f"u{n:07x}"))
        out.append(ContextMessage("assistant", LINES[pick] and f"{LINES[pick]}（{n}）", f"a{n:07x}"))
        if pick == 3:
            out.append(ContextMessage("assistant", f"又及：{n}", f"b{n:07x}"))
        if pick == 4:
            out.append(ContextMessage("system", "（旁白）", f"s{n:07x}"))
    return out


def whole_story(materials: StageMaterials, history: list[ContextMessage], view: StoryView) -> tuple[list, list]:
    """The request as the whole story gives it (the algorithm before the window), every part held to
    the request's budget as a budgeted beat holds it."""
    earlier, words, _rounds = split_rounds(history)
    turns = story_turns([message_view(m) for m in earlier])
    staged = assemble_beat(
        materials.files,
        materials.card,
        replace(materials.stage, budget_tokens=view.context_tokens - view.reserve_tokens, count=view.count),
        materials.corpus,
        turns,
        words,
        thinking="off",
        tool_names=[],
        summary=view.preface,
        world_state=view.world_state,
        roster=view.roster,
    )
    messages, warning = budget_messages(view, staged.system, staged.history, staged.words, staged.injection)
    system = [{"role": "system", "content": staged.system}]
    return system + messages, [*staged.warnings, *((warning,) if warning else ()), *materials.warnings]


def windowed(
    materials: StageMaterials, history: list[ContextMessage], view: StoryView, prose: StoryProse
) -> tuple[list, list]:
    build = stage_builder(materials, story=lambda: view, prose=prose)
    built = build(BeatInput(history, history[-1].content, "off", [], 0, "stage", "send"))
    return built.request.messages, built.warnings


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    picks=st.lists(st.integers(0, 4), min_size=1, max_size=400),
    budget=st.integers(0, 20_000),
    grow=st.lists(st.integers(0, 4), max_size=12),
    branch=st.integers(0, 400),
)
def test_the_window_gives_the_whole_story_request(
    materials: StageMaterials, picks: list[int], budget: int, grow: list[int], branch: int
) -> None:
    view = StoryView(context_tokens=budget + 4096, count=len)
    prose = StoryProse()  # kept between the beats, as the app keeps it per chat
    history = [*chat(picks), ContextMessage("user", "掌柜，今天有什么茶？", "ffffffff")]
    assert windowed(materials, history, view, prose) == whole_story(materials, history, view)
    # The chat grows by a few beats (the memo's count goes on from where it was) ...
    longer = history + chat(grow, start=len(picks)) + [ContextMessage("user", "再来一壶。", "fffffffe")]
    assert windowed(materials, longer, view, prose) == whole_story(materials, longer, view)
    # ... then a branch from an earlier message: other objects, counted afresh.
    cut = min(branch, len(history) - 1)
    forked = chat(picks)[:cut] + chat(grow, start=10_000) + [ContextMessage("user", "换个话题。", "fffffffd")]
    assert windowed(materials, forked, view, prose) == whole_story(materials, forked, view)


def test_a_long_chat_is_cut_with_the_whole_story_count(materials: StageMaterials) -> None:
    history = [*chat([n % 5 for n in range(10000)]), ContextMessage("user", "掌柜，今天有什么茶？", "ffffffff")]
    view = StoryView(context_tokens=24_000, count=len)
    prose = StoryProse()
    for _beat in range(3):
        got = windowed(materials, history, view, prose)
        assert got == whole_story(materials, history, view)
        assert any("最早的" in warning for warning in got[1])
        assert 0 < prose.window < len(history)  # the window was enough; the whole story was not derived
        history = history[:-1] + chat([1], start=20_000 + _beat) + [history[-1]]


def test_after_the_first_beat_the_window_is_fitted_to_what_the_budget_keeps(materials: StageMaterials) -> None:
    derived: list[int] = []

    class Counting(StoryProse):
        def story_turns(self, messages):  # type: ignore[no-untyped-def]
            derived.append(len(messages))
            return super().story_turns(messages)

    history = [*chat([n % 5 for n in range(10000)]), ContextMessage("user", "掌柜，今天有什么茶？", "ffffffff")]
    view = StoryView(context_tokens=24_000, count=len)
    prose = Counting()
    got = windowed(materials, history, view, prose)
    assert got == whole_story(materials, history, view)
    grown = derived[-1]  # the first beat grew its window ×4 until the budget filled inside it
    assert len(derived) > 1 and prose.window < grown
    for beat in range(4):
        history = history[:-1] + chat([beat % 5], start=20_000 + beat) + [history[-1]]
        derived.clear()
        assert windowed(materials, history, view, prose) == whole_story(materials, history, view)
        assert len(derived) == 1 and derived[0] < grown  # one derivation, of the fitted window
    # Short messages: the budget now keeps more than the fitted window holds; the window grows again.
    history = history[:-1] + chat([2] * 400, start=30_000) + [history[-1]]
    assert windowed(materials, history, view, prose) == whole_story(materials, history, view)
