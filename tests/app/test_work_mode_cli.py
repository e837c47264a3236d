"""`pear chat --mode work --once --json`: the authoring system prompt, the work tools, and a bash call
that is asked about (and, with nobody to ask, denied) with a note on what approving bash means."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kit.cli import pear_in_process
from peargarden.testing.fake_openai import FakeOpenAIServer, chunk, sse, text_reply, tool_call_delta


def test_chat_once_in_work_mode(home_dir: Path) -> None:
    bash = sse(
        chunk(role="assistant", content=""),
        chunk(tool_calls=[tool_call_delta(0, id="b1", name="bash", arguments='{"command": "rm 创作/旧稿.txt"}')]),
        chunk(finish_reason="tool_calls"),
    )
    with FakeOpenAIServer() as server:
        server.script([bash, text_reply("没有获准删除，旧稿还在。")])
        args = ["chat", "--once", "把旧稿删了", "--json", "--mode", "work", "--base-url", server.base_url]
        done = pear_in_process(home_dir, *args, "--model", "fake-model")
        assert done.returncode == 0, done.stderr
        events = [json.loads(line) for line in done.stdout.splitlines()]
        asked = next(e for e in events if e["type"] == "approval_needed")
        assert asked["name"] == "bash" and "bubblewrap" in asked["reason"]
        ended = next(e for e in events if e["type"] == "tool_end")
        assert ended["is_error"] and "非交互模式" in ended["text"]
        first = server.chat_requests[0].body
        assert first["messages"][0]["content"].startswith("# 工作模式：维护角色卡")
        assert "工作目录：" in first["messages"][0]["content"]
        names = {t["function"]["name"] for t in first["tools"]}
        assert {"card_project", "bash", "edit", "conversation_mode"} <= names and "draft_write" not in names
        assert len(server.chat_requests) == 2  # no scene notes after a work beat
    session = next((home_dir / "cards" / "青梧" / "chats").rglob("*.jsonl"))
    lines = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    said = [e["message"] for e in lines if e.get("type") == "message" and e["message"]["role"] != "assistant"]
    assert all("work" in m.get("tags", []) for m in said if m["content"] != "")


def test_interactive_chat_follows_the_models_switch_and_mode_work(home_dir: Path) -> None:
    switch = sse(
        chunk(role="assistant", content=""),
        chunk(tool_calls=[tool_call_delta(0, id="m1", name="conversation_mode", arguments='{"mode": "authoring"}')]),
        chunk(finish_reason="tool_calls"),
    )
    with FakeOpenAIServer() as server:
        server.script([switch, text_reply("开场白在 创作/ 里，要我展开吗？"), text_reply("好的。")])
        env = dict(os.environ, PEARGARDEN_HOME=str(home_dir), PYTHONIOENCODING="utf-8")
        args = ["chat", "--mode", "stage", "--base-url", server.base_url, "--model", "fake-model"]
        done = subprocess.run(
            [sys.executable, "-m", "peargarden", *args],
            input="帮我改改开场白\n先不改了\n/mode\n/quit\n", capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "（对话方式：stage → work）" in done.stderr and "对话方式：work" in done.stderr
        # The second line was sent in work mode: the authoring system prompt.
        assert server.chat_requests[-1].body["messages"][0]["content"].startswith("# 工作模式")
