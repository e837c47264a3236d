from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from kit.cli import pear_in_process
from peargarden.agent.approvals import ApprovalAnswer, default_judge
from peargarden.agent.tools import FunctionTool
from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.errors import BadInput, ProviderError
from peargarden.modes.base import BeatEnv, PlayMode
from peargarden.modes.plain import plain_builder, plain_setup
from peargarden.modes.table import MODES
from peargarden.providers.base import ToolCall
from peargarden.providers.scripted import ScriptedProvider, ScriptedTurn, text_turn, tool_turn
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.chats import SESSION_FILE, ChatFile
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(home_dir: Path) -> Home:
    h = Home(home_dir)
    seed_home(h)
    return h


def _app(home: Home, provider: ScriptedProvider, modes: Mapping[str, PlayMode] = MODES) -> PearApp:
    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "medium")

    return PearApp(home, provider_factory=factory, modes=modes)


def _texts(chat: Any) -> list[str]:
    return [m.content for m in chat.messages()]


def test_a_chat_starts_with_the_greeting_and_survives_reopening(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("青梧", "放下茶壶：“记得。”"))
    app = _app(home, provider)
    chat = app.new_chat()
    assert chat.messages()[0].role == "assistant" and "greeting" in chat.messages()[0].tags
    events = list(chat.send("掌柜可还记得怀瑾公子？"))
    assert events[-1].type == "done" and events[-1].to_json()["stop_reason"] == "stop"
    assert _texts(chat)[1:] == ["掌柜可还记得怀瑾公子？", "青梧放下茶壶：“记得。”"]
    # Stage mode: the layered system prompt, the greeting, then the beat's data blocks before the words.
    sent = provider.requests[0].messages
    assert sent[0]["role"] == "system" and sent[1]["role"] == "assistant"
    assert sent[-1]["content"].endswith("掌柜可还记得怀瑾公子？")
    assert "【相关设定】" in sent[-1]["content"] and "怀瑾" in sent[-1]["content"]
    assert "lorebook_search" in [tool.name for tool in provider.requests[0].tools]
    reopened = app.open_chat(None, chat.chat_id)
    assert _texts(reopened) == _texts(chat)
    assert reopened.messages()[-1].role == "assistant"


def test_a_failing_model_keeps_the_users_message(home: Home) -> None:
    provider = ScriptedProvider().add(ScriptedTurn(raise_error=ProviderError("连接被拒绝")))
    app = _app(home, provider)
    chat = app.new_chat()
    events = list(chat.send("今天有什么茶？"))
    assert [e.type for e in events] == ["error", "done"]
    assert "连接被拒绝" in events[0].to_json()["message"]
    assert _texts(app.open_chat(None, chat.chat_id))[-1] == "今天有什么茶？"


def test_regenerate_swipe_continue_edit_delete_branch(home: Home) -> None:
    provider = ScriptedProvider().add(
        text_turn("甲回复"), text_turn("乙回复"), text_turn("，续写"), text_turn("分支回复")
    )
    app = _app(home, provider)
    chat = app.new_chat()
    list(chat.send("问一"))
    list(chat.regenerate())
    assert chat.swipe_position() == (2, 2) and _texts(chat)[-1] == "乙回复"
    assert chat.swipe(-1) is None
    assert _texts(chat)[-1] == "甲回复" and chat.swipe_position() == (1, 2)
    list(chat.continue_())
    assert _texts(chat)[-1] == "甲回复，续写"
    chat.edit(1, "问一（改）")
    assert _texts(chat)[1:] == ["问一（改）", "甲回复，续写"]
    chat.delete(2)
    assert _texts(chat)[1:] == ["问一（改）"]
    chat.branch(0)
    list(chat.send("另起一问"))
    assert _texts(chat)[1:] == ["另起一问", "分支回复"]
    # Everything is on disk: reopening shows the same branch, and the old versions are still in the tree.
    reopened = app.open_chat(None, chat.chat_id)
    assert _texts(reopened) == _texts(chat)
    assert len(reopened.tree_rows()) == len(chat.tree_rows())


def test_impersonate_is_not_saved(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("旅人拱手道：“掌柜好。”"))
    chat = _app(home, provider).new_chat()
    before = len(chat.chat.tree)
    text = "".join(e.to_json().get("text", "") for e in chat.impersonate() if e.type == "text_delta")
    assert text == "旅人拱手道：“掌柜好。”" and len(chat.chat.tree) == before
    assert provider.requests[0].tools == []
    assert "旅人的部分" in provider.requests[0].messages[-1]["content"]  # stage: told to write the user's line


def test_session_grant_follows_the_branch(home: Home) -> None:
    bash = FunctionTool("bash", "运行", {"type": "object"}, lambda a, c: "ok", access="exec")

    def setup(env: BeatEnv) -> Any:
        return plain_builder({"name": "青梧"}, env.user_name), [bash]

    provider = ScriptedProvider().add(tool_turn(ToolCall("c1", "bash", "{}")), text_turn("好了"), text_turn("重答"))
    app = _app(home, provider, {"stage": PlayMode(setup)})
    app.judge = default_judge  # exec asks; the sandbox's own verdicts are tested in its package
    chat = app.new_chat()
    list(chat.send("列个目录", approver=lambda _r: ApprovalAnswer("session")))
    assert len(chat.chat.tree.customs("sandbox_grant")) == 1
    list(chat.regenerate())  # back to the user message: the grant was made after it
    assert chat.chat.tree.customs("sandbox_grant") == []


def test_a_crash_in_the_middle_of_an_append_leaves_a_readable_chat(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("答一"), text_turn("答二"))
    app = _app(home, provider)
    chat = app.new_chat()
    list(chat.send("问一"))
    path = chat.chat.path
    assert path.name == SESSION_FILE
    good = path.read_bytes()
    torn = '{"id":"deadbeef","parentId":null,"type":"message","timestamp":"x","message":{"role":"user","content":"半句'
    path.write_bytes(good + torn.encode("utf-8")[:-2])  # cut inside a multi-byte character too
    reopened = app.open_chat(None, chat.chat_id)
    assert _texts(reopened)[1:] == ["问一", "答一"]
    list(reopened.send("问二"))
    again = ChatFile.open(path.parent.parent, chat.chat_id)
    assert [m.message["content"] for m in again.tree.messages()][1:] == ["问一", "答一", "问二", "答二"]


def test_sillytavern_chat_round_trip(home: Home) -> None:
    st = (
        '{"user_name":"旅人","character_name":"青梧","create_date":"2026-11-30@00h00m00s","chat_metadata":{}}\n'
        '{"name":"青梧","is_user":false,"is_system":false,"send_date":"x","mes":"客官里边请。","extra":{}}\n'
        '{"name":"旅人","is_user":true,"is_system":false,"send_date":"x","mes":"掌柜好。","extra":{}}\n'
        '{"name":"青梧","is_user":false,"is_system":false,"send_date":"x","mes":"乙","extra":{},'
        '"swipe_id":1,"swipes":["甲","乙"],"swipe_info":[{"extra":{}},{"extra":{}}]}'
    )
    app = _app(home, ScriptedProvider())
    chat = app.import_chat(None, st.encode("utf-8"), "旧对话.jsonl")
    assert _texts(chat) == ["客官里边请。", "掌柜好。", "乙"]
    assert chat.swipe_position() == (2, 2)
    exported = chat.export_sillytavern().decode("utf-8").splitlines()
    import json

    last = json.loads(exported[-1])
    assert last["swipes"] == ["甲", "乙"] and last["swipe_id"] == 1 and last["mes"] == "乙"
    assert json.loads(exported[0])["character_name"] == "青梧"


def test_persona_from_the_library_is_used_and_kept_with_the_chat(home: Home) -> None:
    from peargarden.app.play.service import ChatOptions

    home.personas_dir.mkdir(parents=True, exist_ok=True)
    (home.personas_dir / "沈砚.json").write_text(
        '{"name": "沈砚", "description": "北地来的书生，背一只旧书箧。"}', encoding="utf-8"
    )
    provider = ScriptedProvider().add(text_turn("沈公子请。"), text_turn("再请。"))
    app = _app(home, provider)
    chat = app.new_chat(None, ChatOptions(persona="沈砚"))
    list(chat.send("掌柜，借宿一晚。"))
    system = provider.requests[0].messages[0]["content"]
    assert "沈砚" in system and "旧书箧" in system
    assert chat.messages()[-2].name == "沈砚"
    reopened = app.open_chat(None, chat.chat_id)
    list(reopened.send("多谢。"))
    assert "旧书箧" in provider.requests[1].messages[0]["content"]


def test_a_tool_switches_into_work_mode_mid_beat(home: Home) -> None:
    from peargarden.agent.loop import MODE_SWITCH_KEY
    from peargarden.agent.tools import ToolResult

    def switch(args: dict[str, Any], ctx: Any) -> ToolResult:
        ctx.beat_state[MODE_SWITCH_KEY] = "work"
        return ToolResult("已进入写卡维护")

    to_work = FunctionTool("enter_work_mode", "进入写卡维护", {"type": "object"}, switch)
    edit = FunctionTool("edit_slot", "改卡", {"type": "object"}, lambda a, c: "改好了")

    modes = {
        "stage": PlayMode(lambda env: (plain_builder({"name": "青梧"}, env.user_name), [to_work])),
        "work": PlayMode(lambda env: (plain_builder({"name": "写卡"}, env.user_name), [edit]), "work", ("work",)),
    }
    provider = ScriptedProvider().add(
        tool_turn(ToolCall("c1", "enter_work_mode", "{}")), text_turn("卡面已按你的意思改好。")
    )
    app = _app(home, provider, modes)
    chat = app.new_chat()
    list(chat.send("把开场白改短一点"))
    assert [t.name for t in provider.requests[0].tools] == ["enter_work_mode"]
    assert [t.name for t in provider.requests[1].tools] == ["edit_slot"]
    last = chat.messages()[-1]
    assert last.content == "卡面已按你的意思改好。" and last.tags == ["work"]
    assert chat.mode == "work" and app.open_chat(None, chat.chat_id).mode == "work"


def test_a_chat_from_pear_import_is_a_session_at_once(
    home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from peargarden.cli import main

    st = tmp_path / "旧对话 一.jsonl"
    st.write_text(
        '{"user_name":"旅人","character_name":"青梧","create_date":"2026-11-30@00h00m00s","chat_metadata":{}}\n'
        '{"name":"青梧","is_user":false,"is_system":false,"send_date":"x","mes":"客官里边请。","extra":{}}\n'
        '{"name":"旅人","is_user":true,"is_system":false,"send_date":"x","mes":"掌柜好。","extra":{}}\n'
        '{"name":"青梧","is_user":false,"is_system":false,"send_date":"x","mes":"乙","extra":{},'
        '"swipe_id":1,"swipes":["甲","乙"],"swipe_info":[{"extra":{}},{"extra":{}}]}',
        encoding="utf-8",
    )
    main(["import", str(st), "--card", "青梧"])
    capsys.readouterr()
    app = _app(home, ScriptedProvider().add(text_turn("丙")))
    [listed] = app.list_chats()
    assert [p.name for p in listed.path.parent.iterdir()] == ["session.jsonl"]  # converted on import
    chat = app.open_chat(None, listed.chat_id)
    assert _texts(chat) == ["客官里边请。", "掌柜好。", "乙"] and chat.swipe_position() == (2, 2)
    list(chat.send("再来一壶。"))
    reopened = app.open_chat(None, listed.chat_id)
    assert _texts(reopened) == ["客官里边请。", "掌柜好。", "乙", "再来一壶。", "丙"]
    exported = reopened.export_sillytavern().decode("utf-8").splitlines()
    assert json.loads(exported[0])["create_date"] == "2026-11-30@00h00m00s"


def test_tavern_mode_sends_what_pear_tavern_assemble_prints(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    from peargarden.app.play.service import ChatOptions
    from peargarden.cli import main

    provider = ScriptedProvider().add(text_turn("客官里边请。"))
    chat = _app(home, provider).new_chat(None, ChatOptions(mode="tavern"))
    events = list(chat.send("掌柜，可还记得镇北渡口？"))
    assert events[-1].to_json()["stop_reason"] == "stop"
    capsys.readouterr()
    main(["tavern", "assemble", "--card", "青梧", "--message", "掌柜，可还记得镇北渡口？"])
    expected = json.loads(capsys.readouterr().out)
    sent = provider.requests[0]
    assert sent.messages == expected["messages"]
    assert sent.tools == []
    assert sent.sampler["temperature"] == expected["temperature"]


def test_one_beat_at_a_time_per_chat(home: Home) -> None:
    from peargarden.errors import ConflictError

    provider = ScriptedProvider().add(text_turn("一"), text_turn("二"))
    chat = _app(home, provider).new_chat()
    events = chat.send("第一句")
    next(events)  # the first beat is under way
    with pytest.raises(ConflictError):
        chat.send("第二句")
    with pytest.raises(ConflictError):
        chat.edit(0, "改")
    list(events)
    assert _texts(chat)[-2:] == ["第一句", "一"]
    list(chat.send("第二句"))
    # A beat that is dropped without being read does not keep the chat locked.
    unread = chat.regenerate()
    del unread
    import gc

    gc.collect()
    chat.branch(0)


def test_latest_chat_is_the_last_one_written(home: Home) -> None:
    import os

    provider = ScriptedProvider().add(text_turn("旧"), text_turn("新"))
    app = _app(home, provider)
    first, second = app.new_chat(), app.new_chat()
    list(second.send("先说"))
    list(first.send("后说"))
    os.utime(second.chat.path, (1, 1))  # the second chat's file is older
    latest = app.latest_chat()
    assert latest is not None and latest.chat_id == first.chat_id


def test_message_rows_carry_sibling_positions(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("甲"), text_turn("乙"))
    chat = _app(home, provider).new_chat()
    list(chat.send("问"))
    list(chat.regenerate())
    rows = chat.view().rows
    assert [(r.role, r.content, r.sibling) for r in rows[1:]] == [("user", "问", (1, 1)), ("assistant", "乙", (2, 2))]
    assert rows[2].stop_reason == "stop" and rows[0].tags == ["greeting"]


def test_the_mode_table_is_the_one_the_app_was_given(home: Home) -> None:
    app = _app(home, ScriptedProvider(), {"stage": PlayMode(plain_setup)})
    with pytest.raises(BadInput, match="work") as refused:
        app.new_chat(options=ChatOptions(mode="work"))
    assert "可用：stage）" in str(refused.value)
    assert list(_app(home, ScriptedProvider()).modes) == ["stage", "tavern", "work"]
    with pytest.raises(TypeError):
        MODES["mine"] = PlayMode(plain_setup)  # type: ignore[index]  # the standard table is read-only


def test_view_is_what_a_front_draws(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("雨小了。"), text_turn("雨停了。"))
    chat = _app(home, provider).new_chat("青梧")
    list(chat.send("雨停了吗？"))
    list(chat.regenerate())
    view = chat.view()
    assert (view.card, view.char_name, view.chat_id, view.mode) == ("青梧", "青梧", chat.chat_id, "stage")
    assert view.modes == ["stage", "tavern", "work"] and view.model == "scripted" and view.persona == "旅人"
    assert [row.content for row in view.rows][-2:] == ["雨停了吗？", "雨停了。"]
    assert (view.swipe.position, view.swipe.count) == (2, 2) and view.leaf == view.rows[-1].id
    assert {row.entry.id for row in view.tree} >= {row.id for row in view.rows}
    assert view.total == len(view.rows) == 3 and view.first == 0
    # Who speaks, and the page's own figures for each row.
    assert [row.speaker for row in view.rows] == ["青梧", "旅人", "青梧"]
    assert view.rows[-1].tokens > 0 and view.rows[-1].seconds is not None and view.rows[1].seconds is None
    assert view.context.source == "story" and view.context.tokens > 0
    # A window: the last two messages, then the one before them.
    window = chat.view(last=2)
    assert [row.index for row in window.rows] == [1, 2] and window.first == 1 and window.total == 3
    assert [row.index for row in chat.view(last=2, before=1).rows] == [0]


def test_continue_extends_the_current_swipe_in_place_and_undo_brings_its_text_back(home: Home) -> None:
    """SillyTavern's continue: the reply shown grows (no new swipe, no copy in the tree); the session
    file only grows (an amend record); undo gives the swipe its text before the continue."""
    provider = ScriptedProvider().add(text_turn("甲回复"), text_turn("乙回复"), text_turn("，雨停了。"))
    app = _app(home, provider)
    chat = app.new_chat()
    list(chat.send("问一"))
    list(chat.regenerate())
    assert chat.swipe(-1) is None  # back to the first of two swipes
    reply = chat.chat.tree.messages()[-1]
    entries, swipes = len(chat.chat.tree), chat.swipe_position()
    before = chat.chat.path.read_bytes()
    beat = chat.play("continue")
    list(beat)
    assert _texts(chat)[-1] == "甲回复，雨停了。"
    assert chat.chat.tree.messages()[-1].id == reply.id and len(chat.chat.tree) == entries
    assert chat.swipe_position() == swipes == (1, 2)  # the same swipe, still one of two
    assert beat.result is not None and beat.result.entries == [reply.id]  # its time is the continue's
    after = chat.chat.path.read_bytes()
    assert after.startswith(before) and b'"type":"amend"' in after[len(before) :]
    # The model saw the reply it continued; what it wrote went onto it.
    assert any(m.get("content") == "甲回复" for m in provider.requests[-1].messages)
    reopened = app.open_chat(None, chat.chat_id)
    assert _texts(reopened)[-1] == "甲回复，雨停了。" and len(reopened.chat.tree) == entries
    reopened.undo(len(reopened.messages()) - 1)
    assert _texts(reopened)[-1] == "甲回复"
    assert _texts(app.open_chat(None, chat.chat_id)) == _texts(reopened)
    with pytest.raises(BadInput):
        reopened.undo(len(reopened.messages()) - 1)  # back to the text it was written with: no more
    with pytest.raises(BadInput):
        reopened.undo(1)  # the user's message never changed in place


def test_a_continue_that_brings_nothing_changes_nothing(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("甲回复"), text_turn(""))
    chat = _app(home, provider).new_chat()
    list(chat.send("问一"))
    before = chat.chat.path.read_bytes()
    list(chat.continue_())
    assert _texts(chat)[-1] == "甲回复" and chat.chat.path.read_bytes() == before


def test_continue_and_undo_in_pear_chat(home_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/continue`` writes onto the reply shown, ``/undo`` gives it back its text before."""
    with FakeOpenAIServer() as server:
        # Each beat's reply, then the scene notes the stage keeps after it.
        server.script([text_reply("雨小了。"), text_reply("{}"), text_reply("街上没人。"), text_reply("{}")])
        lines = ["雨停了吗？", "/continue", "/show", "/undo", "/show", "/quit"]
        monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
        done = pear_in_process(home_dir, "chat", "--base-url", server.base_url, "--model", "m", "--thinking", "off")
    assert done.returncode == 0, done.stderr
    shown = [line for line in done.stdout.splitlines() if line.startswith("[2] ")]
    assert shown == ["[2] 雨小了。街上没人。", "[2] 雨小了。"]  # one reply, grown, then back
    assert "第 2 条回到了上次修改之前：雨小了。" in done.stderr
