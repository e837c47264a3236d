"""Background snapshots: a burst of writes becomes one snapshot; periodic and start-up snapshots."""

from __future__ import annotations

import threading
from pathlib import Path

from vault_test_library import make_library

from peargarden.workspace.home import Home
from peargarden.workspace.vault import PeriodicSnapshots, SnapshotDebouncer, Vault, start_background_snapshots


class FakeMonotonic:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def reasons(vault: Vault) -> list[str]:
    return [s.reason for s in vault.snapshots()]


def test_a_burst_of_writes_becomes_one_snapshot_after_the_quiet_period(home_dir: Path) -> None:
    make_library(home_dir)
    vault = Vault(Home(home_dir))
    clock = FakeMonotonic()
    debouncer = SnapshotDebouncer(vault, quiet=2.0, max_delay=30.0, monotonic=clock)
    note = home_dir / "cards" / "青梧" / "AGENTS.md"
    for i in range(10):  # ten writes, 0.5 s apart
        note.write_text(f"第{i}稿", encoding="utf-8")
        debouncer.notify()
        clock.now += 0.5
        assert not debouncer.run_pending()
    assert vault.snapshots() == []
    clock.now += 2.0
    assert debouncer.run_pending()
    assert reasons(vault) == ["write"]
    assert vault.read_file(vault.snapshots()[0].id, "cards/青梧/AGENTS.md") == "第9稿".encode()
    assert not debouncer.run_pending()  # nothing pending any more
    assert not debouncer.pending


def test_writes_that_never_pause_are_still_snapshotted_after_max_delay(home_dir: Path) -> None:
    make_library(home_dir)
    vault = Vault(Home(home_dir))
    clock = FakeMonotonic()
    debouncer = SnapshotDebouncer(vault, quiet=2.0, max_delay=10.0, monotonic=clock)
    taken = 0
    for _ in range(25):  # 25 s of writes, one a second
        debouncer.notify()
        clock.now += 1.0
        taken += debouncer.run_pending()
    assert taken == 2  # at 10 s and 20 s after the burst began


def test_debouncer_thread_flushes_the_pending_burst_on_close(home_dir: Path) -> None:
    make_library(home_dir)
    vault = Vault(Home(home_dir))
    debouncer = SnapshotDebouncer(vault, quiet=60.0).start()
    for i in range(20):
        (home_dir / "library" / "lorebooks" / f"新书{i}.json").write_text("{}", encoding="utf-8")
        debouncer.notify()
    debouncer.close()  # quiet period not over: close takes the pending snapshot
    assert reasons(vault) == ["write"]
    assert debouncer.taken == 1
    assert "library/lorebooks/新书19.json" in vault.manifest(vault.snapshots()[0].id).files


def test_periodic_snapshots_run_until_stopped(home_dir: Path) -> None:
    make_library(home_dir)
    vault = Vault(Home(home_dir))
    periodic = PeriodicSnapshots(vault, interval=0.01).start()
    done = threading.Event()
    while periodic.rounds < 3 and not done.wait(0.01):
        pass
    periodic.stop()
    assert periodic.rounds >= 3
    assert reasons(vault) == ["interval"]  # later rounds found nothing new


def test_start_background_snapshots_takes_startup_and_write_snapshots(home_dir: Path) -> None:
    make_library(home_dir)
    background = start_background_snapshots(Home(home_dir), interval=3600, quiet=60)
    background.stop()  # waits for the start-up snapshot
    vault = Vault(Home(home_dir))
    assert reasons(vault) == ["startup"]

    background = start_background_snapshots(Home(home_dir), interval=3600, quiet=60)
    assert background.wait_for_startup(timeout=60)  # unchanged: no second start-up snapshot
    (home_dir / "cards" / "青梧" / "卡.json").write_text('{"userName": "书生"}', encoding="utf-8")
    background.notify_write()
    background.stop()
    assert reasons(vault) == ["startup", "write"]


def test_background_snapshots_without_a_data_folder_do_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "没有"
    background = start_background_snapshots(Home(missing), interval=3600)
    background.notify_write()
    background.stop()
    assert not missing.exists()


def test_writes_through_atomic_are_noticed_without_being_told(home_dir: Path, tmp_path: Path) -> None:
    from peargarden.workspace import atomic

    make_library(home_dir)
    background = start_background_snapshots(Home(home_dir), interval=3600, quiet=60)
    assert background.wait_for_startup(timeout=60)
    assert not background.debouncer.pending  # the vault's own writes do not count
    atomic.append_line(home_dir / "cards" / "青梧" / "chats" / "c1" / "会话.jsonl", '{"seq": 1}')
    atomic.write_text(tmp_path / "别处.txt", "不在数据文件夹里")
    assert not background.debouncer.pending  # a chat turn and a write elsewhere are not snapshot triggers
    atomic.write_json(home_dir / "library" / "lorebooks" / "栖水镇.json", {"entries": {}})
    assert background.debouncer.pending
    background.stop()
    vault = Vault(Home(home_dir))
    assert reasons(vault) == ["startup", "write"]
    atomic.write_json(home_dir / "library" / "lorebooks" / "青梧山.json", {"entries": {}})
    assert not background.debouncer.pending  # stopped: no longer listening
