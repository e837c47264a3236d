"""Fault injection: a writer is SIGKILLed at random moments; nothing it reported as written is lost or damaged.

A child process writes cards, lorebooks and session lines through ``peargarden.workspace.atomic`` and
prints the sequence number of each write after the call returned.  The parent kills it with SIGKILL
after a random number of reports (plus a random sub-millisecond-to-millisecond delay, so the kill lands
inside a write), several times over the same data folder.  Afterwards every file parses, every
reported write is there, and the only debris is temp files that scanners skip.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from peargarden.workspace import atomic


def read_jsonl_lines(path: Path) -> tuple[list[Any], bool]:
    """The test's own reader of an appended log: the records that parse, and whether a line did not."""
    records: list[Any] = []
    torn = False
    for raw in path.read_bytes().split(b"\n"):
        if raw.strip():
            try:
                records.append(json.loads(raw.decode("utf-8")))
            except (UnicodeDecodeError, json.JSONDecodeError):
                torn = True
    return records, torn



pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")

WRITES_PER_RUN = 100
RUNS = 5

CHILD = r"""
import json, random, sys
from pathlib import Path
from typing import Any
from peargarden.workspace import atomic

home, start, seed = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
for seq in range(start, start + int(sys.argv[4])):
    kind = seq % 3
    filler = "字" * rng.randrange(1, 40_000)
    if kind == 0:
        atomic.write_json(home / "cards" / f"卡{seq % 4}" / "卡.json", {"seq": seq, "n": len(filler), "f": filler})
    elif kind == 1:
        book = {"seq": seq, "n": len(filler), "entries": {"0": {"content": filler}}}
        atomic.write_json(home / "library" / "lorebooks" / f"书{seq % 5}.json", book)
    else:
        line = json.dumps({"seq": seq, "n": len(filler), "f": filler}, ensure_ascii=False)
        atomic.append_line(home / "cards" / "卡0" / "chats" / "c1" / "会话.jsonl", line)
    print(seq, flush=True)
"""


def target_of(seq: int) -> str:
    kind = seq % 3
    if kind == 0:
        return f"cards/卡{seq % 4}/卡.json"
    if kind == 1:
        return f"library/lorebooks/书{seq % 5}.json"
    return "cards/卡0/chats/c1/会话.jsonl"


def run_and_kill(script: Path, home: Path, start: int, rng: random.Random) -> tuple[list[int], bool]:
    """Start a writer, kill it after a random number of reported writes; return (reported, killed)."""
    kill_after = rng.randrange(0, WRITES_PER_RUN)
    child = subprocess.Popen(
        [sys.executable, str(script), str(home), str(start), str(rng.randrange(1 << 30)), str(WRITES_PER_RUN)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    watchdog = threading.Timer(60, child.kill)  # a hung writer must not hang the suite
    watchdog.start()
    reported: list[int] = []
    killed = False
    try:
        for line in child.stdout:
            reported.append(int(line))
            if len(reported) > kill_after:
                time.sleep(rng.random() * 0.003)
                child.send_signal(signal.SIGKILL)
                killed = True
                break
        # Reports already in the pipe when the child died were also completed writes.
        reported.extend(int(line) for line in child.stdout.read().split())
        child.wait(timeout=30)
    finally:
        watchdog.cancel()
    return reported, killed


def test_sigkill_during_writes_loses_nothing_that_was_reported(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    home.mkdir()
    script = tmp_path / "writer.py"
    script.write_text(CHILD, encoding="utf-8")
    rng = random.Random(20261130)
    reported: list[int] = []
    cut_short: set[int] = set()  # per run, the write after the last report: it may or may not have happened
    kills = 0
    for run in range(RUNS):
        start = run * 1000
        got, killed = run_and_kill(script, home, start, rng)
        kills += killed
        assert got == list(range(start, start + len(got)))  # reports arrive in order, none skipped
        reported.extend(got)
        cut_short.add(start + len(got))
        check_folder(home, reported, cut_short)
    assert kills >= RUNS - 1  # the kill point is below the write count, so practically every run is cut


def check_folder(home: Path, reported: list[int], cut_short: set[int]) -> None:
    last_reported: dict[str, int] = {}
    for seq in reported:
        last_reported[target_of(seq)] = seq
    maybe_written = set(reported) | cut_short

    for path in sorted(home.rglob("*")):
        if path.is_dir():
            continue
        rel = path.relative_to(home).as_posix()
        if atomic.is_temp_name(path.name):
            continue  # debris of the killed write: never read as data, skipped by the vault
        if rel.endswith(".jsonl"):
            records, _torn = read_jsonl_lines(path)
            seqs = [r["seq"] for r in records]
            assert all(len(r["f"]) == r["n"] for r in records)
            assert seqs == sorted(seqs) and len(seqs) == len(set(seqs))
            wanted = {s for s in reported if target_of(s) == rel}
            assert wanted <= set(seqs), f"lost session lines: {sorted(wanted - set(seqs))[:5]}"
            assert set(seqs) <= maybe_written
            continue
        value = json.loads(path.read_text(encoding="utf-8"))  # every file parses
        seq = value["seq"]
        assert target_of(seq) == rel
        assert seq in maybe_written
        if rel in last_reported:
            assert seq >= last_reported[rel], f"{rel} went back to an older write"
        payload = value["f"] if "f" in value else value["entries"]["0"]["content"]
        assert len(payload) == value["n"]
    for rel in last_reported:
        assert (home / rel).exists()


def test_a_torn_session_line_is_skipped_and_later_appends_survive(tmp_path: Path) -> None:
    from peargarden.workspace.atomic import append_line

    session = tmp_path / "会话.jsonl"
    append_line(session, json.dumps({"seq": 1, "text": "第一句"}, ensure_ascii=False))
    with open(session, "ab") as handle:  # what a write cut short leaves behind
        handle.write('{"seq": 2, "text": "第二'.encode())
    records, torn = read_jsonl_lines(session)
    assert torn and [r["seq"] for r in records] == [1]

    append_line(session, json.dumps({"seq": 3, "text": "第三句"}, ensure_ascii=False))
    records, torn = read_jsonl_lines(session)
    assert torn  # the fragment is still there (never rewritten), and still skipped
    assert [r["seq"] for r in records] == [1, 3]
    assert os.path.getsize(session) == len(session.read_bytes())
