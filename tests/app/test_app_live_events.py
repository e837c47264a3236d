"""A card's scripts in the chat page hear a beat's events up to its request BEFORE it is sent, and what
their listeners change goes out with it (issue 45, ``app/play/live_events.py``): here the service's
beat with a fake page answering on the beat's stream, against the fake OpenAI server over real HTTP
(``tests/web/test_web_live_events.py`` plays it in Chromium).  And ``injectPrompts`` from the page's
calls reaching the next beat's request."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kit.th_cases import CASES, case_home
from peargarden.agent.events import WarningEvent
from peargarden.app.play.beat import Beat, PageItem
from peargarden.app.play.live_events import LiveBeats
from peargarden.app.play.page_events import action_events
from peargarden.app.play.page_scripts import run_calls
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

BEFORE_REQUEST = ["generation_started", "GENERATION_AFTER_COMMANDS", "message_sent", "user_message_rendered",
                  "world_info_activated", "generate_after_combine_prompts", "chat_completion_prompt_ready",
                  "generate_after_data", "chat_completion_settings_ready"]  # fmt: skip


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def _chat(tmp_path: Path, fake: FakeOpenAIServer, live: LiveBeats, case: str = "16-event-order-send") -> ChatSession:
    config = (
        'mode = "tavern"\ngreeting = true\n\n[story]\nscene_notes = false\n\n'
        '[model]\nprovider = "fake"\nmodel = "gpt-3.5-turbo"\nthinking = "off"\n\n'
        f'[providers.fake]\nbase_url = "{fake.base_url}"\napi_key = "sk-test"\n'
    )
    home, card = case_home(tmp_path / "梨园", CASES / case, config)
    app = PearApp(home)
    app.on_request.append(live.on_request)
    return app.new_chat(card, ChatOptions(mode="tavern"))


Page = Callable[[dict[str, Any]], dict[str, Any] | None]


def _play(live: LiveBeats, chat: ChatSession, action: str, text: str, page: Page | None) -> tuple[Beat, list[Any]]:
    """The beat as the web streams it; *page* answers each ``script_events`` item (``None``: never)."""
    beat = live.play(chat, action, text, 1, live=page is not None)
    items = []
    try:
        while (item := beat.next_item()) is not None:
            items.append(item)
            if isinstance(item, PageItem) and page is not None:
                said = page(json.loads(json.dumps(item.to_json())))  # as it crosses to the page
                if said is not None:
                    live.answer(chat, item.item["token"], said)
    finally:
        live.forget(beat)
    return beat, items


def _args(item: dict[str, Any], kind: str) -> Any:
    return next(args for name, args, _ in item["events"] if name == kind)


def test_the_events_come_before_the_request_and_a_listeners_prompt_edit_is_sent(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    live = LiveBeats()
    chat = _chat(tmp_path, fake, live)
    fake.script([text_reply("小梨应声而来。")])
    sent_before = len(fake.chat_requests)
    heard: list[dict[str, Any]] = []

    def page(item: dict[str, Any]) -> dict[str, Any]:
        heard.append(item)
        assert len(fake.chat_requests) == sent_before  # the beat waits: nothing was sent yet
        prompt = _args(item, "chat_completion_prompt_ready")[0]
        prompt["chat"].append({"role": "system", "content": "【脚本】小梨今天嗓子哑了。"})
        prompt["chat"][0]["content"] += "（脚本改过）"
        settings = _args(item, "chat_completion_settings_ready")[0]
        settings["messages"] = prompt["chat"]  # as the page hands it on (script_live.js)
        settings["temperature"] = 0.25
        return {"chat": prompt["chat"], "settings": settings}

    beat, _ = _play(live, chat, "send", "触发事件", page)
    (item,) = heard
    assert [name for name, _, _ in item["events"]] == BEFORE_REQUEST
    views = {name: view for name, _, view in item["events"]}
    assert views["generation_started"] == {"length": 1, "last": None}  # the user's message not sent yet
    assert views["message_sent"] is None and item["world"]["chat"][-1]["mes"] == "触发事件"
    body = fake.chat_requests[-1].body
    assert body["messages"][-1] == {"role": "system", "content": "【脚本】小梨今天嗓子哑了。"}
    assert body["messages"][0]["content"].endswith("（脚本改过）")
    assert body["temperature"] == 0.25
    recorded = beat.record.requests[-1].request.messages  # the beat's record: as sent
    assert recorded[-1]["content"] == "【脚本】小梨今天嗓子哑了。"
    assert not beat.record.warnings
    # After the reply the page hears only the rest (it heard the rest live).
    after = [name for name, _, _ in action_events(chat, "send", live=True)["events"]]
    assert after[:3] == ["message_received", "character_message_rendered", "generation_ended"]
    assert not set(after[:3]) & set(BEFORE_REQUEST)


def test_a_listener_that_leaves_the_request_alone_changes_nothing(tmp_path: Path, fake: FakeOpenAIServer) -> None:
    live = LiveBeats()
    chat = _chat(tmp_path, fake, live)
    fake.script([text_reply("甲")])
    _play(live, chat, "send", "第一句", None)  # no page: no item, no wait
    plain = fake.chat_requests[-1].body

    def echo(item: dict[str, Any]) -> dict[str, Any]:
        return {"chat": _args(item, "chat_completion_prompt_ready")[0]["chat"],
                "settings": _args(item, "chat_completion_settings_ready")[0]}  # fmt: skip

    fake.script([text_reply("乙")])
    beat, items = _play(live, chat, "regenerate", "", echo)
    assert [i for i in items if isinstance(i, PageItem)]
    assert fake.chat_requests[-1].body == plain  # what it would send without the page
    assert not beat.record.warnings


def test_a_page_that_never_answers_holds_the_beat_only_up_to_the_bound(tmp_path: Path, fake: FakeOpenAIServer) -> None:
    live = LiveBeats(wait=0.5)
    chat = _chat(tmp_path, fake, live)
    fake.script([text_reply("小梨应声而来。")])
    started = time.monotonic()
    beat, items = _play(live, chat, "send", "触发事件", lambda item: None)
    assert time.monotonic() - started >= 0.5
    warnings = [i for i in items if isinstance(i, WarningEvent)]
    assert len(warnings) == 1 and "0.5 秒" in warnings[0].message
    assert beat.record.warnings == [warnings[0].message]
    assert beat.record.text == "小梨应声而来。"  # the beat went on, its request unchanged
    (item,) = [i.item for i in items if isinstance(i, PageItem)]
    assert fake.chat_requests[-1].body["messages"] == _args(item, "chat_completion_prompt_ready")[0]["chat"]
    with pytest.raises(Exception, match="没有在等"):  # a late answer finds nothing waiting
        live.answer(chat, item["token"], {"chat": []})


def test_stopping_a_beat_that_waits_for_its_page_stops_it_at_once(tmp_path: Path, fake: FakeOpenAIServer) -> None:
    live = LiveBeats(wait=60.0)
    chat = _chat(tmp_path, fake, live)  # no reply scripted: none is asked for
    sent_before = len(fake.chat_requests)
    beats: list[Beat] = []
    stopped: list[float] = []

    def stop(item: dict[str, Any]) -> None:
        stopped.append(time.monotonic())
        beats[0].stop()  # the stop button while the listeners are heard

    beat = live.play(chat, "send", "触发事件", 1, live=True)
    beats.append(beat)
    while (item := beat.next_item()) is not None:
        if isinstance(item, PageItem):
            stop(item.to_json())
    live.forget(beat)
    assert time.monotonic() - stopped[0] < 20  # not the minute of the bound (room for a loaded machine)
    assert len(fake.chat_requests) == sent_before  # stopped before it was sent
    assert not beat.record.warnings


def test_a_page_that_gave_up_on_a_slow_listener_sends_the_request_unchanged(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    live = LiveBeats()
    chat = _chat(tmp_path, fake, live)
    fake.script([text_reply("好。")])
    late = {"chat": [{"role": "user", "content": "不该发出"}], "late": "chat_completion_prompt_ready"}
    beat, _ = _play(live, chat, "send", "触发事件", lambda item: late)
    assert "不该发出" not in json.dumps(fake.chat_requests[-1].body, ensure_ascii=False)
    assert not beat.record.warnings  # the page's script panel said which listener was slow


def test_what_a_listener_hands_back_is_checked(tmp_path: Path, fake: FakeOpenAIServer) -> None:
    live = LiveBeats()
    chat = _chat(tmp_path, fake, live)
    fake.script([text_reply("好。")])

    def bad(item: dict[str, Any]) -> dict[str, Any]:
        settings = _args(item, "chat_completion_settings_ready")[0]
        settings["messages"] = [{"role": "user", "content": {"图片": "不是文字"}}]
        settings["temperature"] = "很热"
        settings["max_tokens"] = 77
        return {"settings": settings}

    beat, _ = _play(live, chat, "send", "触发事件", bad)
    body = fake.chat_requests[-1].body
    assert body["max_tokens"] == 77  # the good change is taken
    assert all(isinstance(m["content"], str) for m in body["messages"]) and body["temperature"] != "很热"
    assert len(beat.record.warnings) == 2
    assert any("content 只能是文字" in w for w in beat.record.warnings)
    assert any("temperature" in w and "很热" in w for w in beat.record.warnings)


def test_a_swipes_events_show_the_reply_with_its_new_empty_swipe(tmp_path: Path, fake: FakeOpenAIServer) -> None:
    live = LiveBeats()
    chat = _chat(tmp_path, fake, live)
    fake.script([text_reply("回复甲")])
    _play(live, chat, "send", "第一句", None)
    heard: list[dict[str, Any]] = []
    fake.script([text_reply("回复乙")])
    _play(live, chat, "swipe", "", lambda item: heard.append(item) or None)  # type: ignore[func-returns-value]
    (item,) = heard
    names = [name for name, _, _ in item["events"]]
    assert names[:3] == ["message_swiped", "generation_started", "GENERATION_AFTER_COMMANDS"]
    swiped = item["world"]["chat"][-1]
    assert swiped["swipes"] == ["回复甲", ""] and swiped["swipe_id"] == 1 and swiped["mes"] == "回复甲"
    assert _args(item, "message_swiped") == [len(item["world"]["chat"]) - 1]


def _inject(chat: ChatSession, prompts: list[Any], options: dict[str, Any] | None = None) -> dict[str, Any]:
    script = "th-oracle-script-16"
    call = {"script": script, "name": "_injectPrompts", "args": [prompts, options or {}]}
    answer: dict[str, Any] = run_calls(chat, [call])
    return answer["answers"][0]


def test_injected_prompts_reach_the_next_beats_request_once_or_until_taken_out(
    tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    live = LiveBeats()
    chat = _chat(tmp_path, fake, live)
    event = {"id": "立即事件", "position": "in_chat", "depth": 0, "role": "system",
             "content": "【立即事件】戏台塌了一角。"}  # fmt: skip
    assert _inject(chat, [event], {"once": True}) == {"json": '["立即事件"]'}
    cheer = {"id": "常驻", "position": "in_chat", "depth": 1, "role": "user", "content": "（台下有人喝彩）"}
    hidden = {"id": "只扫描", "position": "none", "role": "system", "content": "暗线：班主欠债", "should_scan": True}
    assert _inject(chat, [cheer, hidden]) == {"json": '["常驻","只扫描"]'}
    bodies = []
    for text in ("开戏", "再来"):
        fake.script([text_reply("好。")])
        _play(live, chat, "send", text, None)
        bodies.append(fake.chat_requests[-1].body["messages"])
    first, second = bodies
    assert first[-1] == {"role": "system", "content": "【立即事件】戏台塌了一角。"}  # depth 0: after the chat
    assert first[-3:-1] == [{"role": "user", "content": "（台下有人喝彩）"}, {"role": "user", "content": "开戏"}]
    assert "【立即事件】" not in json.dumps(second, ensure_ascii=False)  # once: one generation
    assert second[-2:] == [{"role": "user", "content": "（台下有人喝彩）"}, {"role": "user", "content": "再来"}]
    assert "暗线" not in json.dumps(first + second, ensure_ascii=False)  # 'none': for the world-info scan only
    run_calls(chat, [{"script": "th-oracle-script-16", "name": "uninjectPrompts", "args": [["常驻"]]}])
    fake.script([text_reply("好。")])
    _play(live, chat, "send", "三来", None)
    assert "喝彩" not in json.dumps(fake.chat_requests[-1].body, ensure_ascii=False)


@pytest.mark.parametrize(
    ("prompts", "error"),
    [
        ([{"id": "图", "content": {"src": "x.png"}}], "content 要是文字"),
        ([{"id": "远", "content": "文字", "position": "before_prompt"}], "position 只能是 in_chat 或 none"),
        ([{"id": "深", "content": "文字", "depth": -1}], "depth"),
        ([{"id": "长", "content": "字" * 64_001}], "太长"),
        ([{"id": str(n), "content": "字"} for n in range(65)], "一次最多 64 个"),
        ("不是数组", "需要一个数组"),
    ],
)
def test_injected_prompts_are_checked_at_the_bridge(
    tmp_path: Path, fake: FakeOpenAIServer, prompts: Any, error: str
) -> None:
    chat = _chat(tmp_path, fake, LiveBeats())
    answer = _inject(chat, prompts)
    assert error in answer["error"]


def test_messages_a_listener_left_as_they_were_keep_what_the_listener_did_not_see() -> None:
    # A listener reads {role, content} (and a name); the request's own message is sent where it left
    # one as it was, even after a message put before it — only what it changed is made anew.
    from peargarden.app.play.live_changes import apply_changes, prompt_messages
    from peargarden.providers.base import ChatRequest

    request = ChatRequest(messages=[{"role": "system", "content": "梨园", "name": "example_user", "tags": ["x"]},
                                    {"role": "user", "content": "唱一段"}])  # fmt: skip
    sent = prompt_messages(request)
    given = [{"role": "system", "content": "【前】"}, *sent[:1], {"role": "user", "content": "唱两段"}]
    assert apply_changes(request, sent, {"model": "m"}, {"chat": given}) == []
    assert request.messages == [{"role": "system", "content": "【前】"},
                                {"role": "system", "content": "梨园", "name": "example_user", "tags": ["x"]},
                                {"role": "user", "content": "唱两段"}]  # fmt: skip
    assert apply_changes(request, prompt_messages(request), {"model": "m"},
                         {"settings": {"model": "m", "stream": "是", "stop": ["</唱>"]}}) == [
        "卡的脚本把请求的 stream 改成了 '是'，不是true/false，没有用上"]  # fmt: skip
    assert request.sampler == {"stop": ["</唱>"]} and request.stream is None
