"""``ChatSession.play``: one beat object whatever front plays it — its result (stop reason, replies,
entries, requests with their purposes, warnings), the app's request hooks, the after-beat step of
the chat's mode (``reply_end`` before it, ``done`` after it), a beat that cannot start."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from peargarden.agent.result import BeatResult, SentRequest
from peargarden.app.play import beat_log
from peargarden.app.play.beat import ApprovalPrompt, Beat
from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.errors import BadInput, ConflictError
from peargarden.modes.base import BranchView, PlayMode, SideCall
from peargarden.modes.plain import plain_setup
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


def _scripted(home: Home, provider: ScriptedProvider, modes: dict[str, PlayMode] | None = None) -> PearApp:
    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "off")

    if modes is None:
        return PearApp(home, provider_factory=factory, story_memory=False)
    return PearApp(home, provider_factory=factory, story_memory=False, modes=modes)


def _types(beat: Beat) -> list[str]:
    return [item.type for item in beat if not isinstance(item, ApprovalPrompt)]


def test_a_beat_is_iterated_and_then_read_as_its_result(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("雨", "小了。"))
    chat = _scripted(home, provider).new_chat("青梧")
    entries_before = len(chat.chat.tree)
    beat = chat.play("send", "雨停了吗？")
    assert beat.running and beat.result is None  # the user's message is written, the model not called yet
    assert [m.content for m in chat.messages()][-1] == "雨停了吗？"
    assert _types(beat) == ["text_delta", "text_delta", "done"]
    result = beat.result
    assert isinstance(result, BeatResult) and not beat.running
    assert result.action == "send" and result.stop_reason == "stop" and result.error is None
    assert result.text == "雨小了。" and [r.speaker for r in result.replies] == ["青梧"]
    ids = [row.id for row in chat.view().rows]
    assert result.entries == ids[-2:] and len(chat.chat.tree) == entries_before + 2  # the user's message and the reply
    assert result.replies[0].entries == ids[-1:]
    assert [(sent.purpose, sent.model) for sent in result.requests] == [("beat", "scripted")]
    assert result.requests[0].request == provider.requests[0]  # the request as the provider received it
    # Every front's beat is logged beside the session file.
    logged = beat_log.load(chat.chat.path)
    assert len(logged) == 1 and logged[0].entries == result.entries
    assert [r["purpose"] for r in logged[0].rounds] == ["beat"]


def test_the_apps_request_hooks_see_every_request(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("一"), text_turn("二"))
    app = _scripted(home, provider)
    seen: list[SentRequest] = []
    app.on_request.append(seen.append)
    chat = app.new_chat("青梧")
    list(chat.play("send", "第一句"))
    list(chat.play("regenerate"))
    assert [s.request for s in seen] == provider.requests and len(seen) == 2


def test_a_swipe_to_a_kept_reply_is_a_beat_that_generated_nothing(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("甲"), text_turn("乙"))
    chat = _scripted(home, provider).new_chat("青梧")
    list(chat.play("send", "问"))
    list(chat.play("regenerate"))
    beat = chat.play("swipe", step=-1)
    assert beat.result is not None and not beat.result.generated and list(beat) == []
    assert chat.messages()[-1].content == "甲" and not chat.busy
    past_the_last = chat.play("swipe", step=1)
    assert past_the_last.result is not None and not past_the_last.result.generated  # back to 乙
    generating = chat.play("swipe", step=1)  # past the last kept reply: a new one
    list(generating)
    assert generating.result is not None and generating.result.generated and generating.result.action == "swipe"


def test_a_beat_that_cannot_start_raises_and_a_front_can_show_it_as_a_failed_beat(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("一"))
    chat = _scripted(home, provider).new_chat("青梧")
    with pytest.raises(BadInput):
        chat.play("send", "   ")
    with pytest.raises(BadInput, match="未知的动作"):
        chat.play("dance")
    running = chat.play("send", "第一句")
    with pytest.raises(ConflictError):
        chat.play("send", "第二句")
    failed = Beat.failed("send", ConflictError("忙"))
    assert [item.to_json() for item in failed] == [  # type: ignore[union-attr]
        {"type": "error", "message": "忙", "hint": "", "fix": ""},
        {"type": "done", "stop_reason": "error", "rounds": 0, "entry_id": None, "usage": {}},
    ]
    assert failed.result is not None and isinstance(failed.result.error, ConflictError)
    list(running)


def _noting_mode(calls: list[tuple[str, str]]) -> PlayMode:
    """A mode whose after-beat step asks the side model once and keeps its answer on the branch."""

    def after_beat(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
        if result.action == "impersonate":
            return None

        def work() -> Iterator[str]:
            answer = side("记下这一拍", result.text, 64, purpose="scene_notes")
            view.append_custom("note", {"text": answer})
            calls.append((result.stop_reason, answer))
            yield f"记下了：{answer}"

        return work()

    return PlayMode(plain_setup, after_beat=after_beat)


def test_the_modes_after_beat_step_runs_once_the_reply_is_complete(home: Home) -> None:
    with FakeOpenAIServer() as server:
        server.script([text_reply("周伯迎了出来。"), text_reply("已记")])
        calls: list[tuple[str, str]] = []
        app = PearApp(home, modes={"stage": _noting_mode(calls)}, story_memory=True)
        home.config_file.write_text(
            f'[model]\nprovider = "m"\nmodel = "fake"\n[providers.m]\nbase_url = "{server.base_url}"\n',
            encoding="utf-8",
        )
        chat = app.new_chat("青梧")
        beat = chat.play("send", "推门进了听雨轩。")
        events = [item.to_json() for item in beat]  # type: ignore[union-attr]
        bodies = [request.body for request in server.chat_requests]
    assert [e["type"] for e in events] == ["text_delta", "reply_end", "warning", "done"]
    assert events[1]["stop_reason"] == "stop" and events[-1]["stop_reason"] == "stop"
    assert calls == [("stop", "已记")] and events[2]["message"] == "记下了：已记"
    result = beat.result
    assert result is not None
    assert [sent.purpose for sent in result.requests] == ["beat", "scene_notes"]
    assert json.dumps(bodies[1]["messages"][1], ensure_ascii=False).count("周伯迎了出来。") == 1
    assert result.warnings == ["记下了：已记"]
    # The note is on the branch, and among what the beat wrote.
    notes = [e for e in chat.view().tree if e.entry.type == "custom"]
    assert [row.entry.body.get("customType") for row in notes] == ["note"]
    assert notes[0].entry.id in result.entries


def test_no_reply_end_when_the_mode_has_nothing_to_do(home: Home) -> None:
    calls: list[tuple[str, str]] = []
    provider = ScriptedProvider().add(text_turn("阿远说：我来了。"))
    chat = _scripted(home, provider, {"stage": _noting_mode(calls)}).new_chat("青梧")
    assert _types(chat.play("impersonate")) == ["text_delta", "done"]
    assert calls == []


def test_a_beat_asked_for_during_the_after_beat_step_waits_for_it(home: Home) -> None:
    """The reply is complete (``reply_end``): the composer is free and the next beat may be asked for
    at once; it waits for the scene notes instead of failing, and starts on the chat they left."""
    gate = threading.Event()
    order: list[str] = []  # the notes, as written

    def after_beat(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
        def work() -> Iterator[str]:
            gate.wait(10)
            view.append_custom("note", {"text": result.text})
            order.append(f"note:{result.text}")
            yield from ()

        return work()

    provider = ScriptedProvider().add(text_turn("周伯迎了出来。")).add(text_turn("周伯斟茶。"))
    chat = _scripted(home, provider, {"stage": PlayMode(plain_setup, after_beat=after_beat)}).new_chat("青梧")
    chat.story_memory = True
    first = chat.play("send", "推门进了听雨轩。")
    while (item := first.next_item()) is not None and item.type != "reply_end":  # type: ignore[union-attr]
        pass
    assert chat.tidying
    second: list[Beat] = []
    asking = threading.Thread(target=lambda: second.append(chat.play("send", "坐下喝茶。")))
    asking.start()
    asking.join(0.3)
    assert asking.is_alive() and not second  # waiting for the scene notes, not refused
    gate.set()
    assert [i.type for i in iter(first.next_item, None)] == ["done"]  # type: ignore[union-attr]
    asking.join(10)
    assert second and _types(second[0]) == ["text_delta", "reply_end", "done"]
    assert order == ["note:周伯迎了出来。", "note:周伯斟茶。"] and not chat.tidying
    # The second beat's user message follows the first beat's note on the branch.
    path = chat.chat.tree.path()
    kinds = [e.body.get("customType") or e.role for e in path][-5:]
    assert kinds == ["assistant", "note", "user", "assistant", "note"]
