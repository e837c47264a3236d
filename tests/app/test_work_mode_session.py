"""Work mode end to end over real HTTP (the fake OpenAI server): the model switches itself into work
mode, edits two slots of the card project, applies, switches back — and the story never hears of it
except through the two 【写卡维护】 lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from peargarden.agent.approvals import ApprovalAnswer, ApprovalRequest
from peargarden.agent.events import AgentEvent, ToolEndEvent
from peargarden.app.play.service import ChatSession, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.authoring.segments import REPLY_PREFIX, USER_PREFIX, story_branch
from peargarden.formats import read_card
from peargarden.modes.work.project import slots_of
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.testing.fake_openai import (
    FakeOpenAIServer,
    StreamReply,
    chunk,
    sse,
    text_reply,
    tool_call_delta,
    usage_chunk,
)
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

ASK = "掌柜先歇歇——我想改改这张卡：描述里加一句她左手有旧伤，开场白改成雨夜。"
DONE = "改好了：描述添了左手旧伤，默认开场换成了雨夜。"
STORY = "我推门进来，抖了抖伞上的雨。"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def fake(server: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    server.requests.clear()
    yield server
    assert server.pending == 0, "a scripted reply was not used"


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


def make_app(home: Home, fake: FakeOpenAIServer) -> PearApp:
    def factory(settings: Settings, connection: Connection | None) -> ResolvedProvider:
        provider = OpenAICompatProvider(fake.base_url, "fake-model", "k", sleep=lambda _s: None)
        return ResolvedProvider(provider, "fake-model", False, "off")

    return PearApp(home, provider_factory=factory)


def calls(*made: tuple[str, str, dict[str, Any]], text: str = "") -> StreamReply:
    """One streamed reply (optional text first) making tool calls, arguments split in two fragments."""
    items: list[Any] = [chunk(role="assistant", content=text)]
    for index, (call_id, name, args) in enumerate(made):
        raw = json.dumps(args, ensure_ascii=False)
        items.append(chunk(tool_calls=[tool_call_delta(index, id=call_id, name=name, arguments=raw[:5])]))
        items.append(chunk(tool_calls=[tool_call_delta(index, arguments=raw[5:])]))
    items += [chunk(finish_reason="tool_calls"), usage_chunk(20, 10)]
    return sse(*items)


def card_data(home: Home) -> dict[str, Any]:
    path = CardFolder(home, "青梧").card_file()
    assert path is not None
    return read_card(path.read_bytes(), str(path)).data


def slot_file(home: Home, label: str) -> str:
    slot = next(s for s in slots_of(CardFolder(home, "青梧")) if s.label == label)
    return f"创作/sources/{slot.file_name}"


def play(events: Iterator[AgentEvent]) -> list[AgentEvent]:
    return list(events)


def all_text(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"], ensure_ascii=False)


def test_the_model_switches_into_work_mode_edits_two_slots_applies_and_switches_back(
    home: Home, fake: FakeOpenAIServer
) -> None:
    before = card_data(home)
    description_file, greeting_file = slot_file(home, "描述"), slot_file(home, "默认开场")
    rainy = "夜雨敲窗，听雨轩只剩一盏灯。青梧抬眼：“这么晚了，客官是来避雨的？”"
    fake.script(
        [
            calls(("m1", "conversation_mode", {"mode": "authoring"}), text="好，我先切到工作模式。"),
            calls(("p1", "card_project", {"action": "expand"})),
            calls(("r1", "read", {"path": description_file})),
            calls(
                ("e1", "edit", {"path": description_file, "oldText": "青梧", "newText": "青梧（左手有旧伤）"}),
                ("w1", "write", {"path": greeting_file, "content": rainy}),
            ),
            calls(("p2", "card_project", {"action": "check"}), ("p3", "card_project", {"action": "apply"})),
            calls(("m2", "conversation_mode", {"mode": "roleplay"}), text=DONE),
        ]
    )
    app = make_app(home, fake)
    chat = app.new_chat()
    events = play(chat.send(ASK))
    assert events[-1].to_json()["stop_reason"] == "ended_by_tool"
    ends = {e.call_id: e for e in events if isinstance(e, ToolEndEvent)}
    assert not any(e.is_error for e in ends.values()), [e.text for e in ends.values() if e.is_error]
    assert "描述、默认开场" in ends["p3"].text or "默认开场、描述" in ends["p3"].text

    # Only the two slots changed in the card file; everything else is as it was.
    after = card_data(home)
    assert after["first_mes"] == rainy
    assert after["description"] != before["description"] and "青梧（左手有旧伤）" in after["description"]
    changed = {key for key in set(before) | set(after) if before.get(key) != after.get(key)}
    assert changed == {"description", "first_mes"}

    requests = [r.body for r in fake.chat_requests]
    stage_tools = {t["function"]["name"] for t in requests[0]["tools"]}
    work_tools = {t["function"]["name"] for t in requests[1]["tools"]}
    assert "conversation_mode" in stage_tools and "draft_write" in stage_tools
    assert {"read", "write", "edit", "ls", "grep", "find", "bash", "card_project", "conversation_mode"} == work_tools
    # The next request of the same beat is the authoring one: AUTHORING.md + where the work happens.
    system = requests[1]["messages"][0]["content"]
    assert system.startswith("# 工作模式：维护角色卡") and f"工作目录：{home.card_dir('青梧')}" in system
    assert "当前角色卡：" in system and "青梧.png" in system
    assert requests[1]["messages"][-3]["content"] == ASK  # the words that caused the switch, as they were
    assert chat.mode == "stage" and app.open_chat(None, chat.chat_id).mode == "stage"

    # The story goes on: the role-play request sees the two 【写卡维护】 lines and nothing else of it.
    fake.script([text_reply("青梧把伞接过去，挂在门边。")])
    play(chat.send(STORY))
    story_request = fake.chat_requests[-1].body
    texts = [m.get("content") or "" for m in story_request["messages"][1:]]
    assert USER_PREFIX + ASK in texts and REPLY_PREFIX + DONE in texts
    assert all(m["role"] in ("user", "assistant") and not m.get("tool_calls") for m in story_request["messages"][1:])
    shown = json.dumps(story_request["messages"][1:], ensure_ascii=False)
    for trace in ("创作/", "card_project", "conversation_mode", "左手有旧伤）", "好，我先切到工作模式"):
        assert trace not in shown
    assert story_request["messages"][-1]["content"].endswith(STORY)

    # The story function (scene notes, summaries, memory read this): no trace at all.
    session_messages = [entry.message for entry in chat.chat.tree.messages()]
    story = story_branch(session_messages)
    assert [m["content"] for m in story if m["role"] == "user"] == [STORY]
    assert not any("写卡" in json.dumps(m, ensure_ascii=False) for m in story)
    assert all(m.get("role") != "tool" for m in story)
    # …while the session keeps every work message, tagged.
    work = [m for m in session_messages if "work" in (m.get("tags") or [])]
    assert len(work) >= 10


def test_the_user_switches_by_hand_and_work_words_are_tagged(home: Home, fake: FakeOpenAIServer) -> None:
    fake.script([text_reply("这张卡的开场白在 创作/sources 里。"), text_reply("雨还在下。")])
    app = make_app(home, fake)
    chat = app.new_chat()
    chat.set_mode("work")
    play(chat.send("开场白在哪个文件？"))
    assert [m.tags for m in chat.messages()[-2:]] == [["work"], ["work"]]
    assert fake.chat_requests[0].body["messages"][0]["content"].startswith("# 工作模式")
    chat.set_mode("stage")
    play(chat.send(STORY))
    shown = all_text(fake.chat_requests[-1].body)
    assert USER_PREFIX + "开场白在哪个文件？" in shown and "创作/sources" in shown  # the answer's words only
    assert story_branch([e.message for e in chat.chat.tree.messages()])[-2]["content"] == STORY


# -- approvals inside a real beat ----------------------------------------------------------------


def outside_file(tmp_path: Path) -> Path:
    path = tmp_path / "别处" / "笔记.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("旧笔记：青梧怕打雷。", encoding="utf-8")
    return path


def work_chat(home: Home, fake: FakeOpenAIServer) -> tuple[PearApp, ChatSession]:
    app = make_app(home, fake)
    chat = app.new_chat()
    chat.set_mode("work")
    return app, chat


def read_beat(fake: FakeOpenAIServer, path: Path, call_id: str) -> None:
    fake.script([calls((call_id, "read", {"path": str(path)})), text_reply("读完了。")])


def answering(*answers: ApprovalAnswer | None) -> tuple[list[ApprovalRequest], Any]:
    asked: list[ApprovalRequest] = []
    queue = list(answers)

    def approver(request: ApprovalRequest) -> ApprovalAnswer | None:
        asked.append(request)
        return queue.pop(0)

    return asked, approver


def read_result(events: list[AgentEvent]) -> ToolEndEvent:
    return next(e for e in events if isinstance(e, ToolEndEvent) and e.name == "read")


def test_allow_once_runs_the_call_and_remembers_nothing(home: Home, fake: FakeOpenAIServer, tmp_path: Path) -> None:
    note = outside_file(tmp_path)
    _app, chat = work_chat(home, fake)
    asked, approver = answering(ApprovalAnswer("once"), ApprovalAnswer("deny"))
    read_beat(fake, note, "a1")
    first = play(chat.send("看看那份笔记", approver=approver))
    assert "青梧怕打雷" in read_result(first).text and asked[0].unit == str(note.parent)
    assert chat.chat.tree.customs("sandbox_grant") == []
    read_beat(fake, note, "a2")
    second = play(chat.send("再看一遍", approver=approver))
    assert len(asked) == 2 and read_result(second).is_error


def test_allow_for_the_session_follows_the_branch(home: Home, fake: FakeOpenAIServer, tmp_path: Path) -> None:
    note = outside_file(tmp_path)
    app, chat = work_chat(home, fake)
    asked, approver = answering(ApprovalAnswer("session"), None)
    read_beat(fake, note, "s1")
    play(chat.send("看看那份笔记", approver=approver))
    assert len(chat.chat.tree.customs("sandbox_grant")) == 1
    read_beat(fake, note, "s2")
    later = play(chat.send("再看一遍", approver=approver))
    assert "青梧怕打雷" in read_result(later).text and len(asked) == 1  # not asked again
    # Reopening keeps the grant (it is on the branch) …
    reopened = app.open_chat(None, chat.chat_id)
    assert len(reopened.chat.tree.customs("sandbox_grant")) == 1
    # … rewinding to before it (regenerate the first beat) drops it: asked again; no answer stops.
    reopened.branch(next(i for i, m in enumerate(reopened.messages()) if m.content == "看看那份笔记"))
    assert reopened.chat.tree.customs("sandbox_grant") == []
    fake.script([calls(("s3", "read", {"path": str(note)}))])
    stopped = play(reopened.regenerate(approver=approver))
    assert len(asked) == 2 and stopped[-1].to_json()["stop_reason"] == "aborted"


def test_allow_for_the_card_goes_to_card_settings(home: Home, fake: FakeOpenAIServer, tmp_path: Path) -> None:
    note = outside_file(tmp_path)
    app, chat = work_chat(home, fake)
    asked, approver = answering(ApprovalAnswer("card"))
    read_beat(fake, note, "k1")
    play(chat.send("看看那份笔记", approver=approver))
    settings = json.loads((home.card_dir("青梧") / "卡.json").read_text(encoding="utf-8"))
    assert str(note.parent) in settings["sandboxAllow"]
    # A new chat of the same card is not asked.
    other = app.new_chat()
    other.set_mode("work")
    read_beat(fake, note, "k2")
    events = play(other.send("再看一遍", approver=approver))
    assert "青梧怕打雷" in read_result(events).text and len(asked) == 1


def test_deny_and_free_text_reach_the_model(home: Home, fake: FakeOpenAIServer, tmp_path: Path) -> None:
    note = outside_file(tmp_path)
    _app, chat = work_chat(home, fake)
    asked, approver = answering(ApprovalAnswer("deny"), ApprovalAnswer("deny", "别翻我的笔记"))
    read_beat(fake, note, "d1")
    denied = play(chat.send("看看那份笔记", approver=approver))
    assert read_result(denied).is_error and "青梧怕打雷" not in read_result(denied).text
    read_beat(fake, note, "d2")
    play(chat.send("再试试", approver=approver))
    tool_messages = [m for m in fake.chat_requests[-1].body["messages"] if m["role"] == "tool"]
    assert "别翻我的笔记" in tool_messages[-1]["content"] and len(asked) == 2


def test_bash_approval_says_what_approving_bash_means(home: Home, fake: FakeOpenAIServer) -> None:
    from peargarden.modes.work.bash_tool import isolation_note

    _app, chat = work_chat(home, fake)
    asked, approver = answering(ApprovalAnswer("once"))
    fake.script([calls(("b1", "bash", {"command": "python3 -c 'print(6*7)'"})), text_reply("算好了。")])
    events = play(chat.send("算一下六乘七", approver=approver))
    assert isolation_note() in asked[0].reason
    result = next(e for e in events if isinstance(e, ToolEndEvent) and e.name == "bash")
    assert result.text.strip() == "42"


def test_writes_after_switching_back_in_the_same_batch_are_blocked(home: Home, fake: FakeOpenAIServer) -> None:
    _app, chat = work_chat(home, fake)
    late = home.card_dir("青梧") / "创作" / "迟到的.txt"
    fake.script(
        [
            calls(
                ("m1", "conversation_mode", {"mode": "roleplay"}),
                ("w1", "write", {"path": "创作/迟到的.txt", "content": "不该写进来"}),
                text="改完了。",
            )
        ]
    )
    events = play(chat.send("好了，回去吧。"))
    ends = {e.call_id: e for e in events if isinstance(e, ToolEndEvent)}
    assert not ends["m1"].is_error and ends["w1"].is_error and "切回扮演" in ends["w1"].text
    assert not late.exists() and chat.mode == "stage"
    assert events[-1].to_json()["stop_reason"] == "ended_by_tool" and len(fake.chat_requests) == 1


def test_tavern_mode_sees_work_beats_as_maintenance_lines_too(home: Home, fake: FakeOpenAIServer) -> None:
    from peargarden.app.play.service import ChatOptions

    fake.script(
        [
            calls(("r1", "card_project", {"action": "list"}), text="我先看看。"),
            text_reply("还没展开，卡一共十一个槽位。"),
            text_reply("青梧接过伞。"),
        ]
    )
    chat = make_app(home, fake).new_chat(None, ChatOptions(mode="tavern"))
    chat.set_mode("work")
    play(chat.send("这张卡有几个槽位？"))
    chat.set_mode("tavern")
    play(chat.send(STORY))
    sent = fake.chat_requests[-1].body
    shown = all_text(sent)
    assert USER_PREFIX + "这张卡有几个槽位？" in shown and REPLY_PREFIX + "还没展开，卡一共十一个槽位。" in shown
    assert "我先看看" not in shown and "card_project" not in shown and sent.get("tools") in (None, [])
