"""One runner for a mode's steps (``app.play.mode_steps``): ``prepare``, ``after_reply`` and
``after_beat`` that fail — when called or half-way through their work, with any exception — cost
the beat nothing: one warning names the step, the saved reply stays, the beat ends ``stop``, and
every step's time is in the beat's record and its log.  For a card's chat and a group's round."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kit.apps import seeded_home
from kit.groups import tea_house
from peargarden.agent.result import BeatResult
from peargarden.app.library.groups import create_group
from peargarden.app.play import beat_log
from peargarden.app.play.beat import Beat
from peargarden.app.play.group_session import new_group_chat
from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.modes.base import AfterBeat, BeatEnv, BranchView, PlayMode, SideCall, SideModel
from peargarden.modes.group.table import GROUP_MODES
from peargarden.modes.plain import plain_setup
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home


@pytest.fixture
def home(home_dir: Path) -> Home:
    return tea_house(seeded_home(home_dir))


def _app(home: Home, provider: ScriptedProvider, **tables: dict[str, PlayMode]) -> PearApp:
    """The service over *provider*, with a test's own mode table (``modes``) or group table."""

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "off")

    return PearApp(home, provider_factory=factory, story_memory=False, **tables)


def _warnings(beat: Beat) -> list[str]:
    events = list(beat.events())
    assert events[-1].type == "done"
    return [e.message for e in events if e.type == "warning"]


def _after_beat_raising_at_once(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
    raise KeyError("好感度")


def _after_beat_failing_half_way(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
    def work() -> Iterator[str]:
        view.append_custom("测试记录", {"写了": True})
        yield "记下了一条"
        raise ZeroDivisionError("除以零")

    return work()


@pytest.mark.parametrize(
    ("step", "said"),
    [(_after_beat_raising_at_once, []), (_after_beat_failing_half_way, ["记下了一条"])],
)
def test_a_failing_after_beat_step_is_one_warning_and_the_saved_beat_ends_stop(
    home: Home, step: AfterBeat, said: list[str]
) -> None:
    provider = ScriptedProvider().add(text_turn("茶", "凉了。"))
    chat = _app(home, provider, modes={"stage": PlayMode(plain_setup, after_beat=step)}).new_chat("青梧")
    beat = chat.play("send", "掌柜，茶呢？")
    warnings = _warnings(beat)
    assert warnings[: len(said)] == said
    assert len(warnings) == len(said) + 1 and warnings[-1].startswith("模式步骤 after_beat 出错")
    assert ("KeyError" in warnings[-1]) == (step is _after_beat_raising_at_once)
    result = beat.result
    assert result is not None and result.stop_reason == "stop" and result.error is None
    assert [m.content for m in chat.messages()][-2:] == ["掌柜，茶呢？", "茶凉了。"]
    # The step's time is in the record and in the log beside the session file.
    assert [(s.step, s.speaker) for s in result.steps] == [("after_beat", "青梧")]
    logged = beat_log.load(chat.chat.path)[-1]
    assert [s["step"] for s in logged.steps] == ["after_beat"] and logged.steps[0]["seconds"] >= 0
    # The chat is free again: the next beat plays.
    provider.add(text_turn("再来一壶。"))
    assert [e.type for e in chat.play("send", "再来").events()][-1] == "done"


def test_a_failing_prepare_step_is_a_warning_and_the_reply_still_comes(home: Home) -> None:
    def prepare(env: BeatEnv, side: SideModel) -> Iterator[str]:
        yield "预设重新声明了"
        raise RuntimeError("预设文件坏了")

    provider = ScriptedProvider().add(text_turn("好。"))
    chat = _app(home, provider, modes={"stage": PlayMode(plain_setup, prepare=prepare)}).new_chat("青梧")
    beat = chat.play("send", "你好")
    warnings = _warnings(beat)
    assert warnings[0] == "预设重新声明了"
    assert warnings[1].startswith("模式步骤 prepare 出错") and "RuntimeError: 预设文件坏了" in warnings[1]
    assert beat.result is not None and beat.result.stop_reason == "stop" and beat.result.text == "好。"
    assert [s.step for s in beat.result.steps] == ["prepare"]


def test_a_failing_after_reply_step_in_a_group_round_does_not_stop_the_next_speaker(home: Home) -> None:
    calls: list[str] = []

    def after_reply(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
        calls.append(view.char_name)
        if len(calls) == 1:
            raise ValueError("变量坏了")
        return iter(["变量更新了"])

    tavern = GROUP_MODES["tavern"]
    table = {"tavern": PlayMode(tavern.setup, tool_mode="tavern", after_reply=after_reply)}
    create_group(home, "茶馆", ["林月", "周明"], strategy="list")
    provider = ScriptedProvider().add(text_turn("龙井马上就好。")).add(text_turn("雨落西湖。"))
    chat = new_group_chat(_app(home, provider, group_modes=table), "茶馆", ChatOptions(mode="tavern"))
    beat = chat.play("send", "今天喝什么茶？")
    warnings = _warnings(beat)
    assert calls == ["林月", "周明"]
    assert len(warnings) == 2 and warnings[0].startswith("模式步骤 after_reply 出错") and "ValueError" in warnings[0]
    assert warnings[1] == "变量更新了"
    result = beat.result
    assert result is not None and result.stop_reason == "stop"
    assert [(r.speaker, r.text) for r in result.replies] == [("林月", "龙井马上就好。"), ("周明", "雨落西湖。")]
    assert [(s.step, s.speaker) for s in result.steps] == [("after_reply", "林月"), ("after_reply", "周明")]
