"""`pear chat --once --json` end to end: a subprocess talking to the fake server over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.cli import pear_in_process, pear_process
from peargarden.testing.fake_openai import FakeOpenAIServer, chunk, sse, status, text_reply, tool_call_delta


def _run_cli(home: Path, *args: str) -> str:
    return pear_in_process(home, *args, check=True).stdout


def test_chat_once_json_streams_events_and_saves_the_chat(home_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Stage mode: the model looks 镇北渡口 up with lorebook_search, then answers."""
    search = sse(
        chunk(role="assistant", content=""),
        chunk(tool_calls=[tool_call_delta(0, id="call_1", name="lorebook_search", arguments="")]),
        chunk(tool_calls=[tool_call_delta(0, arguments='{"query": "镇北')]),
        chunk(tool_calls=[tool_call_delta(0, arguments='渡口"}')]),
        chunk(finish_reason="tool_calls"),
    )
    with FakeOpenAIServer() as server:
        # The last reply answers the scene-notes side call after the beat: nothing to record.
        server.script([search, text_reply("客官，", "听雨轩今日有新到的雨前龙井。"), text_reply('{"patch": {}}')])
        done = pear_in_process(
            home_dir,
            "chat",
            "--once",
            "掌柜，今天有什么茶？",
            "--json",
            "--mode",
            "stage",
            "--base-url",
            server.base_url,
            "--model",
            "fake-model",
            "--thinking",
            "medium",
        )
        assert done.returncode == 0, done.stderr
        events = [json.loads(line) for line in done.stdout.splitlines()]
        assert [e["type"] for e in events if e["type"].startswith("tool")] == ["tool_start", "tool_end"]
        assert events[0]["name"] == "lorebook_search" and events[0]["args"] == {"query": "镇北渡口"}
        assert not events[1]["is_error"] and "镇北渡口" in events[1]["text"]
        assert events[-1]["type"] == "done" and events[-1]["stop_reason"] == "stop" and events[-1]["rounds"] == 2
        assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "客官，听雨轩今日有新到的雨前龙井。"
        # A third request, after the beat, is the scene-notes side call (side model = main by default).
        first, second = (r.body for r in server.chat_requests[:2])
        assert first["model"] == "fake-model" and first["messages"][-1]["content"].endswith("掌柜，今天有什么茶？")
        assert "lorebook_search" in [t["function"]["name"] for t in first["tools"]]
        assert second["messages"][-1]["role"] == "tool" and second["messages"][-1]["tool_call_id"] == "call_1"

    # The sessions commands read what the beat wrote.
    rows = json.loads(_run_cli(home_dir, "sessions", "list", "--card", "青梧", "--json"))
    assert len(rows) == 1 and rows[0]["last"] == "客官，听雨轩今日有新到的雨前龙井。"
    shown = json.loads(_run_cli(home_dir, "sessions", "show", rows[0]["id"], "--json"))
    assert [m["role"] for m in shown["branch"]][-4:] == ["user", "assistant", "tool", "assistant"]
    exported = _run_cli(home_dir, "sessions", "export", rows[0]["id"])
    assert json.loads(exported.splitlines()[-1])["mes"] == "客官，听雨轩今日有新到的雨前龙井。"


def test_chat_once_fails_non_zero_and_keeps_the_message(home_dir: Path) -> None:
    with FakeOpenAIServer() as server:
        server.script([status(401)])
        # A real process: the exit code and stderr a shell sees.
        done = pear_process(
            home_dir,
            "chat",
            "--once",
            "掌柜在吗？",
            "--json",
            "--base-url",
            server.base_url,
            "--model",
            "fake-model",
            "--api-key-env",
            "PEAR_TEST_NO_SUCH_KEY",
        )
        assert done.returncode != 0
        events = [json.loads(line) for line in done.stdout.splitlines()]
        assert [e["type"] for e in events] == ["error", "done"]
        assert "Traceback" not in done.stderr
        chats = list((home_dir / "cards" / "青梧" / "chats").iterdir())
        lines = (chats[0] / "session.jsonl").read_text(encoding="utf-8")
        assert "掌柜在吗？" in lines
