"""The checkpoint of a streaming reply: bounded in how often it writes, appended (so a long reply
costs what it weighs, not its square), whole lines only, and read back by recovery."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from peargarden.app.play import checkpoints
from peargarden.app.play.checkpoints import StreamCheckpoint, read_checkpoint


def _written(path: Path) -> tuple[str, str, object]:
    header, text, reasoning = read_checkpoint(path.read_bytes())
    return text, reasoning, (header or {}).get("parentId")


def test_checkpoint_writes_are_bounded_and_dropped_once_recorded(tmp_path: Path) -> None:
    now = [100.0]
    path = tmp_path / "s.json"
    checkpoint = StreamCheckpoint(path, lambda: "abcd1234", clock=lambda: now[0])
    sizes: list[int] = []

    def size() -> int:
        return path.stat().st_size if path.exists() else 0

    for _ in range(200):  # the first delta is written, then nothing until 500 more characters
        checkpoint.add(text="雨")
        sizes.append(size())
    assert len(set(sizes)) == 1 and sizes[0] > 0
    assert _written(path) == ("雨", "", "abcd1234")
    checkpoint.add(text="声" * 499)  # 500 characters, but in the same instant: not yet
    assert _written(path) == ("雨", "", "abcd1234")
    now[0] += 2 * checkpoints.MIN_GAP
    checkpoint.add(text="声")  # 500 characters pending and the gap past
    assert _written(path) == ("雨" * 200 + "声" * 500, "", "abcd1234")
    before = size()
    checkpoint.add(text="")
    assert size() == before
    now[0] += 1.5
    checkpoint.add(reasoning="想")  # a second later, one more character is enough
    assert _written(path) == ("雨" * 200 + "声" * 500, "想", "abcd1234")
    checkpoint.recorded()
    assert not path.exists()
    now[0] += 1.5
    checkpoint.add(text="下一轮")  # the next round's reply starts a new checkpoint
    assert _written(path) == ("下一轮", "", "abcd1234")


def _bytes_written() -> int:
    """Bytes this process has handed to write calls so far (Linux's per-process I/O counter)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise AssertionError("no wchar in /proc/self/io")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux's /proc/self/io")
def test_a_long_reply_is_appended_not_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    now = [100.0]
    checkpoint = StreamCheckpoint(path, lambda: "abcd1234", clock=lambda: now[0])
    piece = "掌柜的把灯挑亮了些，窗外的雨还没有停了。" * 5  # 100 characters, 300 bytes of UTF-8
    start = _bytes_written()
    for _ in range(4000):  # 1.2 MB of text in 80 s: a checkpoint write every 500 characters
        now[0] += 0.02
        checkpoint.add(text=piece)
    written = _bytes_written() - start
    # Rewriting the whole text at every step would write it ~800 times over; appending, once.
    assert written < 2 * 4000 * 300, written
    saved = _written(path)[0]  # all but the last characters, fewer than a checkpoint step
    assert (piece * 4000).startswith(saved) and len(piece * 4000) - len(saved) < checkpoints.EVERY_CHARS


def test_a_fast_stream_is_written_at_most_twenty_times_a_second(tmp_path: Path) -> None:
    """A reply that comes as fast as the socket takes it (100 characters a millisecond): the
    checkpoint keeps up by time, not by every 500 characters (13,000 writes for 20 MB)."""
    path = tmp_path / "s.json"
    now = [100.0]
    checkpoint = StreamCheckpoint(path, lambda: "abcd1234", clock=lambda: now[0])
    piece = "客官楼上请，掌柜的把灯挑亮了些。" * 6 + "雨还没停"  # 100 characters
    for _ in range(4000):  # four seconds
        now[0] += 0.001
        checkpoint.add(text=piece)
    lines = path.read_bytes().splitlines()
    assert len(lines) - 1 <= 4 / checkpoints.MIN_GAP + 1, len(lines)  # the header, then one line a write
    saved = _written(path)[0]
    missing = len(piece) * 4000 - len(saved)
    assert (piece * 4000).startswith(saved) and missing <= len(piece) * checkpoints.MIN_GAP / 0.001


def test_a_write_cut_short_leaves_whole_lines_and_no_gap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    path = tmp_path / "s.json"
    checkpoint = StreamCheckpoint(path, lambda: None, clock=lambda: now[0])
    checkpoint.add(text="一" * 600)
    real_write = os.write
    full = [True]

    def disk_full(fd: int, data: bytes | memoryview) -> int:
        if full[0]:
            real_write(fd, bytes(data)[:7])  # part of the line reaches the disk, then ENOSPC
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(checkpoints.os, "write", disk_full)
    checkpoint.add(text="二" * 600)
    assert path.read_bytes().endswith(b"\n")  # the partial line was cut back off
    assert _written(path)[0] == "一" * 600
    full[0] = False
    checkpoint.add(text="三" * 600)  # within the second after the failure: not tried yet
    assert _written(path)[0] == "一" * 600
    now[0] += 1.5
    checkpoint.add(text="四")
    assert _written(path)[0] == "一" * 600 + "二" * 600 + "三" * 600 + "四"


def test_recovery_skips_a_torn_last_line_and_reads_the_old_format() -> None:
    lines = b'{"parentId":"a1","timestamp":"t"}\n{"text":"\xe9\x9b\xa8"}\n{"reasoning":"r"}\n{"text":"\xe5\xa3'
    assert read_checkpoint(lines) == ({"parentId": "a1", "timestamp": "t"}, "雨", "r")
    old = '{"parentId": "a1", "text": "旧的全文", "reasoning": "想", "timestamp": "t"}\n'.encode()
    header, text, reasoning = read_checkpoint(old)
    assert header is not None and header["parentId"] == "a1" and (text, reasoning) == ("旧的全文", "想")


@pytest.mark.parametrize(("text", "added"), [("雨还没停，", True), ("", False), ("\n", False)])
def test_recovery_brings_back_words_not_reasoning_alone(tmp_path: Path, text: str, added: bool) -> None:
    from peargarden.app.play.checkpoints import recover
    from peargarden.workspace.chats import ChatFile

    chat = ChatFile.create(tmp_path / "chats", card="青梧")
    user = chat.append_message({"role": "user", "content": "掌柜？"})
    path = tmp_path / "s.json"
    checkpoint = StreamCheckpoint(path, lambda: user.id, clock=lambda: 100.0)
    checkpoint.add(text=text, reasoning="客人在问什么……" * 100)
    assert recover(path, chat, "青梧") is added and not path.exists()
    last = chat.tree.messages()[-1]
    assert (last.role, last.message["content"]) == (("assistant", text) if added else ("user", "掌柜？"))


def test_text_taken_back_is_out_of_the_checkpoint_too(tmp_path: Path) -> None:
    """A small model's guard took back text it had streamed (issue 49): a crash after that does not
    bring it back.  What still waits is cut; what a write already holds gets a ``retract`` line."""
    now = [100.0]
    path = tmp_path / "s.json"
    checkpoint = StreamCheckpoint(path, lambda: "abcd1234", clock=lambda: now[0])
    checkpoint.add(text="有的。我是")  # written at once (the first piece)
    checkpoint.add(text="这里的掌柜，")  # waits
    checkpoint.take_back("这里的掌柜，")  # all of it still waiting: nothing to write
    now[0] += 1.5
    checkpoint.add(text="这里的掌柜，")
    assert _written(path)[0] == "有的。我是这里的掌柜，"
    checkpoint.add(text="也是")
    checkpoint.take_back("我是这里的掌柜，也是")  # spans what was written and what waits
    now[0] += 1.5
    checkpoint.add(text="热水在灶上。")
    assert _written(path)[0] == "有的。热水在灶上。"
