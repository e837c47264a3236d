"""One beat per chat across processes (issue 18, points 1–2): real `pear chat --once` subprocesses
against the fake OpenAI server, a slow reply keeping the first beat open while the second starts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.app.settings.connections import Connection
from peargarden.errors import ConflictError
from peargarden.testing.fake_openai import FakeOpenAIServer, Gate, chunk, sse, text_reply, usage_chunk
from peargarden.workspace.chat_lock import ChatLock, chat_lock_file
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.home import Home

CHATS = Path("cards") / "青梧" / "chats"


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, PEARGARDEN_HOME=str(home), PYTHONIOENCODING="utf-8")


def _pear_args(server: FakeOpenAIServer, chat_id: str, text: str) -> list[str]:
    return [
        sys.executable, "-m", "peargarden", "chat", "--once", text, "--chat", chat_id,
        "--base-url", server.base_url, "--model", "fake-model", "--thinking", "off",
    ]  # fmt: skip


def _run(home: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, env=_env(home), timeout=120)


def _held_reply(gate: threading.Event) -> object:
    """A reply that streams its first words, then waits until the test opens *gate*."""
    return sse(
        chunk(role="assistant", content="雨还没停，"),
        Gate(gate),
        chunk(content="客官里面请。"),
        chunk(finish_reason="stop"),
        usage_chunk(10, 5),
    )


def _wait_for_requests(server: FakeOpenAIServer, count: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while len(server.chat_requests) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the first beat never reached the server"
        time.sleep(0.05)


def _import_chat(home: Path, tmp_path: Path) -> str:
    from peargarden.cli import main

    main(["init"])
    source = tmp_path / "雨夜 - 2026-11-29.jsonl"
    lines = [
        {"user_name": "旅人", "character_name": "青梧", "create_date": "2026-11-29@22h38m27s", "chat_metadata": {}},
        {"name": "青梧", "is_user": False, "mes": "雨还在下。"},
        {"name": "旅人", "is_user": True, "mes": "掌柜，借个伞。"},
        {"name": "青梧", "is_user": False, "mes": "伞在门后。", "swipes": ["伞在门后。", "拿去吧。"], "swipe_id": 0},
    ]
    source.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    main(["import", str(source), "--card", "青梧"])
    (chat_id,) = [p.name for p in (home / CHATS).iterdir()]
    return chat_id


def _branch(home: Path, chat_id: str) -> list[tuple[str, str]]:
    chat = ChatFile.open(home / CHATS, chat_id)
    assert chat.warnings == []
    return [(e.role, str(e.message.get("content"))) for e in chat.tree.messages()]


def test_two_processes_on_an_imported_chat_one_busy_nothing_lost(home_dir: Path, tmp_path: Path) -> None:
    chat_id = _import_chat(home_dir, tmp_path)
    with FakeOpenAIServer() as server:
        gate = threading.Event()
        server.script([_held_reply(gate)])
        server.default_reply = text_reply('{"patch": {}}')  # later beats and the scene-notes side calls
        first = subprocess.Popen(
            _pear_args(server, chat_id, "第一位客人：有热茶吗？"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home_dir),
        )  # fmt: skip
        _wait_for_requests(server, 1, first)
        second = _run(home_dir, _pear_args(server, chat_id, "第二位客人：还有空房吗？"))
        gate.set()
        _out, err = first.communicate(timeout=120)
        assert first.returncode == 0, err
        # The loser: one line naming the chat and the holder, exit 3, its message not written.
        assert second.returncode == 3, second.stderr
        busy = [line for line in second.stderr.splitlines() if line.strip()]
        assert len(busy) == 1 and "chat busy" in busy[0] and str(first.pid) in busy[0] and chat_id in busy[0]
        branch = _branch(home_dir, chat_id)
        assert branch[:3] == [("assistant", "雨还在下。"), ("user", "掌柜，借个伞。"), ("assistant", "伞在门后。")]
        assert branch[3:] == [("user", "第一位客人：有热茶吗？"), ("assistant", "雨还没停，客官里面请。")]
        assert "第二位客人" not in (home_dir / CHATS / chat_id / "session.jsonl").read_text(encoding="utf-8")
        # Tried again once the first is done, it continues the same branch (no side branch).
        again = _run(home_dir, _pear_args(server, chat_id, "第二位客人：还有空房吗？"))
        assert again.returncode == 0, again.stderr
        branch = _branch(home_dir, chat_id)
        expected = ["第一位客人：有热茶吗？", "雨还没停，客官里面请。", "第二位客人：还有空房吗？"]
        assert [text for _, text in branch[3:6]] == expected
        # The swipe the import made is still a sibling of the reply, nothing else forked.
        tree = ChatFile.open(home_dir / CHATS, chat_id).tree
        forks = [e for e in tree if len(tree.children(e.id)) > 1]
        assert [len(tree.children(e.id)) for e in forks] == [2]


def test_open_session_and_a_cli_beat_share_the_chat(home_dir: Path) -> None:
    """The web app keeps a chat open while the CLI plays it: each sees the other's entries, and
    whichever comes second while a beat runs is told the chat is busy."""
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply('{"patch": {}}')
        options = ChatOptions(mode="stage", thinking="off", connection=Connection(server.base_url, "fake-model", ""))
        app = PearApp(Home.resolve(home_dir), story_memory=False)
        from peargarden.workspace.seed import seed_home

        seed_home(app.home)
        session = app.new_chat("青梧", options)
        list(session.send("掌柜，先上一壶茶。"))
        # The CLI plays the same chat in another process while the session stays open here.
        cli = _run(home_dir, _pear_args(server, session.chat_id, "再来一碟花生。"))
        assert cli.returncode == 0, cli.stderr
        list(session.send("结账。"))
        texts = [m.content for m in session.messages() if m.role == "user"]
        assert texts == ["掌柜，先上一壶茶。", "再来一碟花生。", "结账。"]
        reread = ChatFile.open(home_dir / CHATS, session.chat_id)
        assert reread.warnings == [] and [e.id for e in reread.tree.messages()] == [
            e.id for e in session.chat.tree.messages()
        ]
        # While this process is in the middle of a beat, the CLI is refused with exit 3.
        gate = threading.Event()
        server.script([_held_reply(gate)])
        events = session.send("再添一壶。")
        next(iter(events))
        refused = _run(home_dir, _pear_args(server, session.chat_id, "插一句话。"))
        gate.set()
        assert refused.returncode == 3 and "chat busy" in refused.stderr and str(os.getpid()) in refused.stderr
        list(events)
        # And the other way round: another session object on this chat (a second tab) is refused too.
        other = app.open_chat("青梧", session.chat_id, options)
        held = ChatLock(chat_lock_file(app.home, "青梧", session.chat_id), session.chat_id)
        held.acquire()
        try:
            with pytest.raises(ConflictError, match="chat busy"):
                other.send("我也说一句。")
        finally:
            held.release()
        assert "插一句话" not in (home_dir / CHATS / session.chat_id / "session.jsonl").read_text(encoding="utf-8")


def test_a_killed_holder_leaves_a_stale_lock_that_the_next_beat_takes(home_dir: Path, tmp_path: Path) -> None:
    chat_id = _import_chat(home_dir, tmp_path)
    with FakeOpenAIServer() as server:
        server.script([_held_reply(threading.Event())])  # never opened: the holder is killed
        server.default_reply = text_reply('{"patch": {}}')
        victim = subprocess.Popen(
            _pear_args(server, chat_id, "这句话发出去了。"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home_dir),
        )  # fmt: skip
        _wait_for_requests(server, 1, victim)
        lock_file = chat_lock_file(Home.resolve(home_dir), "青梧", chat_id)
        assert lock_file.read_text(encoding="ascii").strip() == str(victim.pid)
        victim.send_signal(signal.SIGKILL)
        victim.communicate(timeout=30)
        # The file still names the dead process; the next beat takes the lock anyway.
        assert lock_file.read_text(encoding="ascii").strip() == str(victim.pid)
        after = _run(home_dir, _pear_args(server, chat_id, "我又来了。"))
        assert after.returncode == 0, after.stderr
        users = [text for role, text in _branch(home_dir, chat_id) if role == "user"]
        assert users[-2:] == ["这句话发出去了。", "我又来了。"]
        assert lock_file.read_text(encoding="ascii") == ""  # released


def test_a_reply_killed_mid_stream_is_kept_as_incomplete(home_dir: Path, tmp_path: Path) -> None:
    """Point 7: what the user already saw stream in survives a kill -9, marked incomplete."""
    from peargarden.app.play.checkpoints import checkpoint_file

    chat_id = _import_chat(home_dir, tmp_path)
    home = Home.resolve(home_dir)
    words = "雨还没停，" * 150  # 750 characters: past the 500-character checkpoint step
    with FakeOpenAIServer() as server:
        server.script([sse(chunk(role="assistant", content=words), Gate(threading.Event()))])
        server.default_reply = text_reply('{"patch": {}}')
        victim = subprocess.Popen(
            _pear_args(server, chat_id, "说个长故事吧。"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home_dir),
        )  # fmt: skip
        checkpoint = checkpoint_file(home, "青梧", chat_id)
        # The reply is checkpointed just before it is printed: read what the user sees as it comes.
        shown: list[str] = []
        stdout = victim.stdout
        assert stdout is not None
        reader = threading.Thread(target=lambda: shown.extend(iter(lambda: stdout.read(1), "")))
        reader.start()
        deadline = time.monotonic() + 60
        while not (checkpoint.is_file() and words[:100] in "".join(shown)):
            assert victim.poll() is None, (victim.communicate(), "".join(shown))
            assert time.monotonic() < deadline, ("no checkpoint or no text", checkpoint.is_file(), "".join(shown))
            time.sleep(0.05)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=30)
        reader.join(timeout=30)
        assert words[:100] in "".join(shown)  # the user saw it
        assert "说个长故事吧。" in (home_dir / CHATS / chat_id / "session.jsonl").read_text(encoding="utf-8")
        session = PearApp(home, story_memory=False).open_chat("青梧", chat_id, ChatOptions(mode="stage"))
        last = session.chat.tree.messages()[-1]
        assert last.message["content"] == words and last.message["stop_reason"] == "incomplete"
        assert "incomplete" in last.message["tags"] and not checkpoint.exists()
        assert session.chat.tree.get(str(last.parent_id)).message["content"] == "说个长故事吧。"
        # Reopened again: recovered once, not twice.
        again = PearApp(home, story_memory=False).open_chat("青梧", chat_id, ChatOptions(mode="stage"))
        assert len(again.chat.tree) == len(session.chat.tree)


def test_a_silent_endpoint_says_still_waiting_and_ctrl_c_ends_the_wait(home_dir: Path, tmp_path: Path) -> None:
    """Point 5 through the CLI: the wait is announced with its elapsed time, Ctrl-C ends it at once
    (exit 130) and the user's message stays."""
    chat_id = _import_chat(home_dir, tmp_path)
    with FakeOpenAIServer() as server:
        server.script([sse(Gate(threading.Event()), delay=120.0)])  # not even a status line
        base_url = server.base_url
        args = [*_pear_args(server, chat_id, "有人吗？"), "--still-waiting", "1"]
        waiting = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home_dir)
        )  # fmt: skip
        _wait_for_requests(server, 1, waiting)
        # Ctrl-C once the first notice is out (it is due after 1 s of silence).
        lines: list[str] = []
        announced = threading.Event()

        def read_stderr() -> None:
            assert waiting.stderr is not None
            for line in waiting.stderr:
                lines.append(line)
                if line.startswith("（仍在等待"):
                    announced.set()

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        assert announced.wait(timeout=60), "".join(lines)
        waiting.send_signal(signal.SIGINT)
        started = time.monotonic()
        waiting.wait(timeout=60)
        assert time.monotonic() - started < 15
        reader.join(timeout=10)
        assert waiting.stdout is not None
        waiting.stdout.read()
    err = "".join(lines)
    assert waiting.returncode == 130, err
    notices = [line for line in err.splitlines() if line.startswith("（仍在等待")]
    assert notices and base_url in notices[0] and "秒" in notices[0]
    assert [text for role, text in _branch(home_dir, chat_id) if role == "user"][-1] == "有人吗？"


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (sse(chunk(role="assistant", content=""), chunk(finish_reason="stop")), "empty reply"),
        (sse(chunk(reasoning_content="客人问房间……"), chunk(finish_reason="stop")), "reasoning only"),
        (sse(chunk(content="<think>先想想</think>\n"), chunk(finish_reason="length")), "reasoning only"),
    ],
    ids=["empty", "reasoning-only", "think-tags-only"],
)
def test_an_empty_reply_is_an_error_with_its_own_line(
    home_dir: Path, tmp_path: Path, reply: object, words: str
) -> None:
    """Point 6 through the CLI: an empty reply exits non-zero with one line naming the endpoint; a
    reply that is only reasoning too (issue 32, point 4), and neither leaves a message in the chat."""
    chat_id = _import_chat(home_dir, tmp_path)
    before = _branch(home_dir, chat_id)
    with FakeOpenAIServer() as server:
        server.script([reply])  # type: ignore[list-item]
        done = _run(home_dir, _pear_args(server, chat_id, "掌柜？"))
        base_url = server.base_url
    assert done.returncode == 4
    errors = [line for line in done.stderr.splitlines() if line.startswith("pear:")]
    assert len(errors) == 1 and base_url in errors[0] and words in errors[0]
    assert _branch(home_dir, chat_id) == [*before, ("user", "掌柜？")]
