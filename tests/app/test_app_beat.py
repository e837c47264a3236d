"""A beat iterated on its worker thread (``ChatSession.play``): a stop keeps the partial reply;
approvals cross threads."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from peargarden.agent.approvals import ApprovalAnswer, Judgement
from peargarden.agent.tools import FunctionTool
from peargarden.app.play.beat import ApprovalPrompt
from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.modes.base import PlayMode
from peargarden.modes.plain import plain_builder
from peargarden.modes.table import MODES
from peargarden.providers.base import ToolCall
from peargarden.providers.scripted import ScriptedProvider, text_turn, tool_turn
from peargarden.testing.fake_openai import FakeOpenAIServer, Pause, chunk, sse
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def _app(home_dir: Path, provider: ScriptedProvider, modes: Mapping[str, PlayMode] = MODES) -> PearApp:
    home = Home(home_dir)
    seed_home(home)

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "off")

    judge = lambda tool, args, ctx: Judgement("ask", "bash", "运行程序")  # noqa: E731
    return PearApp(home, provider_factory=factory, judge=judge, modes=modes)


def test_stop_keeps_the_partial_reply(home_dir: Path) -> None:
    provider = ScriptedProvider().add(text_turn("青梧", "抬眼，", "没说话。"))
    chat = _app(home_dir, provider).new_chat()
    beat = chat.play("send", "掌柜？")
    # A slow model: after the first piece the stream waits until the front stops the beat.
    provider.on_event = lambda event: beat.cancel.wait(5) if event.type == "text" else None
    seen: list[str] = []
    for item in beat:
        assert not isinstance(item, ApprovalPrompt)
        seen.append(item.type)
        if item.type == "text_delta":
            beat.stop()
    assert seen[-1] == "done"
    assert beat.result is not None and beat.result.stop_reason == "aborted" and beat.result.text == "青梧"
    last = chat.messages()[-1]
    assert last.role == "assistant" and last.content == "青梧"


def test_approval_is_answered_from_the_consuming_thread(home_dir: Path) -> None:
    ran: list[str] = []
    bash = FunctionTool("bash", "运行", {"type": "object"}, lambda a, c: ran.append("ls") or "ok", access="exec")
    modes = {"stage": PlayMode(lambda env: (plain_builder({"name": "青梧"}, env.user_name), [bash]))}
    provider = ScriptedProvider().add(tool_turn(ToolCall("c1", "bash", "{}")), text_turn("好了。"))
    chat = _app(home_dir, provider, modes).new_chat()
    beat = chat.play("send", "列目录")
    prompts: list[ApprovalPrompt] = []
    for item in beat:
        if isinstance(item, ApprovalPrompt):
            prompts.append(item)
            item.answer(ApprovalAnswer("once"))
    assert len(prompts) == 1 and prompts[0].request.tool_name == "bash"
    assert ran == ["ls"] and chat.messages()[-1].content == "好了。"


def test_ctrl_c_stops_pear_chat_once_and_keeps_the_partial_reply(home_dir: Path) -> None:
    slow = sse(chunk(role="assistant", content=""), chunk(content="青梧推开窗，"), Pause(30), chunk(content="晚了"))
    with FakeOpenAIServer() as server:
        server.script([slow])
        env = dict(os.environ, PEARGARDEN_HOME=str(home_dir), PYTHONIOENCODING="utf-8")
        args = ["chat", "--once", "掌柜？", "--json", "--base-url", server.base_url, "--model", "m"]
        process = subprocess.Popen(
            [sys.executable, "-m", "peargarden", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert process.stdout is not None
        events: list[dict[str, Any]] = []
        for raw in process.stdout:
            events.append(json.loads(raw))
            if events[-1]["type"] == "text_delta":
                process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    assert process.returncode == 130
    assert events[-1]["type"] == "done" and events[-1]["stop_reason"] == "aborted"
    [chat_dir] = (home_dir / "cards" / "青梧" / "chats").iterdir()
    lines = [json.loads(line) for line in (chat_dir / "session.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[-1]["message"]["content"] == "青梧推开窗，" and lines[-1]["message"]["stop_reason"] == "aborted"


def test_a_long_reply_is_kept_as_its_pieces_until_it_is_read(home_dir: Path) -> None:
    """A reply of thousands of deltas is not copied whole at each one (``text += piece`` did: a 20 MB
    reply cost 48 s of CPU): the record keeps the pieces, and the first read joins them once."""
    pieces = [f"第{n}句，窗外的雨还没有停。" for n in range(3000)]
    provider = ScriptedProvider().add(text_turn(*pieces))
    chat = _app(home_dir, provider).new_chat()
    beat = chat.play("send", "讲个很长的故事")
    seen_parts: list[int] = []
    for event in beat.events():  # on this thread: the record is read as each delta passes
        if event.type == "text_delta":
            seen_parts.append(len(beat.record.replies[-1].text_parts))
    assert seen_parts == list(range(1, 3001))  # one more piece each time, none joined while it streamed
    (reply,) = beat.record.replies
    text = "".join(pieces)
    assert reply.text == text and reply.text_parts == [text]  # joined once, on the first read
    assert reply.text is reply.text
    assert chat.messages()[-1].content == text
