"""Temp files of vault writes a kill cut short (issue 32, point 8): a snapshot killed while it stored a
large file left its temp object behind for an hour (56 MB after 15 kills); it now names its writer, so
the next command that opens the vault removes it at once, and `pear vault` says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from kit.cli import pear_in_process as pear
from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault

# Stores what arrives on stdin as one object, as a snapshot stores a file too large to read whole.
STORE = (
    "import sys; from pathlib import Path; from peargarden.workspace.vault._store import ObjectStore; "
    "ObjectStore(Path(sys.argv[1]))._stream(sys.stdin.buffer, set())"
)


def _killed_store(objects: Path) -> tuple[Path, int]:
    """A child storing an object, killed (SIGKILL) in the middle of it: its temp file and pid."""
    child = subprocess.Popen([sys.executable, "-c", STORE, str(objects)], stdin=subprocess.PIPE)
    assert child.stdin is not None
    child.stdin.write(b"\x00" * 3 * 1024 * 1024)  # three blocks of the store's reads; then it waits
    child.stdin.flush()
    deadline = time.monotonic() + 60
    while True:
        temps = [p for p in objects.glob("*.tmp") if p.stat().st_size >= 3 * 1024 * 1024]
        if temps:
            break
        assert child.poll() is None and time.monotonic() < deadline, "the child never wrote its temp file"
        time.sleep(0.02)
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdin.close()
    return temps[0], child.pid


def test_a_killed_snapshot_write_goes_at_the_next_pear_vault(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    temp, pid = _killed_store(home / "vault" / "objects")
    assert f".{pid}-" in temp.name  # it names its writer
    done = pear(home, "vault", "list", check=True)
    assert not temp.exists()
    assert "清理了 1 个崩溃留下的临时文件，共 3.0 MB" in done.stderr


def test_any_command_that_opens_the_vault_clears_them(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    temp, _ = _killed_store(home / "vault" / "objects")
    live = home / "vault" / "objects" / f".object.{os.getpid()}-abcd1234.tmp"  # a write going on now
    live.write_bytes(b"\x00")
    Vault(Home(home))  # e.g. deleting a lorebook, which snapshots first
    assert not temp.exists() and live.exists()
