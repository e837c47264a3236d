"""Cross-process locks: two writers doing read-modify-write never lose an update."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from peargarden.errors import ConflictError, NotFound
from peargarden.workspace import atomic
from peargarden.workspace.home import Home
from peargarden.workspace.locking import lock_file_for, locked

ROUNDS = 40

# Each round re-reads the book, adds one entry and writes it back: without the lock, two processes
# would read the same version and one of the two new entries would be lost.
CHILD = r"""
import json, sys
from pathlib import Path
from peargarden.workspace import atomic
from peargarden.workspace.home import Home
from peargarden.workspace.locking import locked_path

home = Home(Path(sys.argv[1]))
book = home.lorebooks_dir / "栖水镇.json"
for i in range(int(sys.argv[3])):
    with locked_path(home, book):
        data = json.loads(book.read_text(encoding="utf-8"))
        data["entries"][f"{sys.argv[2]}-{i}"] = {"content": f"第{i}条"}
        atomic.write_json(book, data)
"""


def test_two_processes_editing_one_lorebook_lose_nothing(home_dir: Path, tmp_path: Path) -> None:
    home = Home(home_dir)
    book = home.lorebooks_dir / "栖水镇.json"
    atomic.write_json(book, {"entries": {}})
    script = tmp_path / "editor.py"
    script.write_text(CHILD, encoding="utf-8")
    children = [
        subprocess.Popen([sys.executable, str(script), str(home_dir), name, str(ROUNDS)]) for name in ("甲", "乙")
    ]
    for child in children:
        assert child.wait(timeout=120) == 0
    entries = json.loads(book.read_text(encoding="utf-8"))["entries"]
    assert len(entries) == 2 * ROUNDS
    # The lock files live in the vault, not among the user's files.
    assert lock_file_for(home, "x").parent == home_dir / "vault" / "locks"


def test_threads_are_serialised_too(home_dir: Path) -> None:
    home = Home(home_dir)
    counter = home_dir / "计数.json"
    atomic.write_json(counter, {"n": 0})

    def bump() -> None:
        for _ in range(25):
            with locked(home, "计数"):
                n = json.loads(counter.read_text(encoding="utf-8"))["n"]
                atomic.write_json(counter, {"n": n + 1})

    threads = [threading.Thread(target=bump) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert json.loads(counter.read_text(encoding="utf-8"))["n"] == 75


def test_lock_is_reentrant_in_one_thread(home_dir: Path) -> None:
    home = Home(home_dir)
    with locked(home, "vault", timeout=1), locked(home, "vault", timeout=1):
        pass


def test_a_held_lock_times_out_with_a_readable_error(home_dir: Path, tmp_path: Path) -> None:
    home = Home(home_dir)
    ready = tmp_path / "ready"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path;"
            "from peargarden.workspace.home import Home; from peargarden.workspace.locking import locked\n"
            "with locked(Home(Path(sys.argv[1])), '青梧'):\n"
            "    Path(sys.argv[2]).touch(); sys.stdin.read()",
            str(home_dir),
            str(ready),
        ],
        stdin=subprocess.PIPE,
    )
    try:
        while not ready.exists():
            assert holder.poll() is None
            threading.Event().wait(0.01)
        with pytest.raises(ConflictError, match="青梧"), locked(home, "青梧", timeout=0.05):
            pass
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    with locked(home, "青梧", timeout=5):  # released when the holder ended
        pass


def test_locking_never_creates_the_data_folder(tmp_path: Path) -> None:
    missing = tmp_path / "没有"
    with pytest.raises(NotFound), locked(Home(missing), "vault"):
        pass
    assert not missing.exists()
