"""Taking snapshots: what is captured, deduplication, unchanged trees, retention and garbage collection."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from vault_test_library import make_library, tree_bytes

from peargarden.workspace import atomic
from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault
from peargarden.workspace.vault._scan import FileSignature
from peargarden.workspace.vault._statcache import StatCache
from peargarden.workspace.vault._store import ObjectStore


def stepping_clock(start: datetime, step: timedelta = timedelta(minutes=1)) -> Callable[[], datetime]:
    """A clock that moves *step* forward every time it is read."""
    now = [start - step]

    def clock() -> datetime:
        now[0] += step
        return now[0]

    return clock


START = datetime(2026, 11, 30, 8, 0, 0, tzinfo=UTC)


@pytest.fixture
def vault(home_dir: Path) -> Vault:
    make_library(home_dir)
    return Vault(Home(home_dir), clock=stepping_clock(START))


def test_snapshot_captures_every_user_file_and_skips_caches(vault: Vault, home_dir: Path) -> None:
    info = vault.snapshot("启动")
    assert info is not None
    assert (info.id, info.time, info.reason) == ("20261130-080000", "2026-11-30T08:00:00+00:00", "启动")
    manifest = vault.manifest(info.id)
    assert set(manifest.files) == set(tree_bytes(home_dir))
    assert "cards/青梧/chats/20261130-010203-ab12/会话.jsonl" in manifest.files
    assert "library/presets/.cache/声明-默认预设.json" not in manifest.files
    assert not any(p.startswith("vault/") for p in manifest.files)
    for rel, data in tree_bytes(home_dir).items():
        assert vault.read_file(info.id, rel) == data


def test_temp_files_of_interrupted_writes_and_lock_files_are_not_snapshotted(vault: Vault, home_dir: Path) -> None:
    (home_dir / "library" / "lorebooks" / ".栖水镇.json.k2x9_a1b.tmp").write_text("{半截", encoding="utf-8")
    (home_dir / "cards" / "青梧" / "写入.lock").write_text("", encoding="utf-8")
    info = vault.snapshot()
    assert info is not None
    files = vault.manifest(info.id).files
    assert not any(p.endswith((".tmp", ".lock")) for p in files)


def test_unchanged_tree_adds_no_snapshot(vault: Vault, home_dir: Path) -> None:
    first = vault.snapshot()
    assert first is not None
    assert vault.snapshot() is None
    assert vault.snapshot("再来一次") is None
    assert [s.id for s in vault.snapshots()] == [first.id]
    # Touching a file without changing it is still no change.
    os.utime(home_dir / "SYSTEM.md")
    assert vault.snapshot() is None
    (home_dir / "SYSTEM.md").write_text("# 基础\n改过了。\n", encoding="utf-8")
    assert vault.snapshot() is not None


def test_identical_contents_are_stored_once(vault: Vault, home_dir: Path) -> None:
    same = json.dumps({"entries": {}}, ensure_ascii=False)
    for name in ("空书甲", "空书乙", "空书丙"):
        (home_dir / "library" / "lorebooks" / f"{name}.json").write_text(same, encoding="utf-8")
    info = vault.snapshot()
    assert info is not None
    files = vault.manifest(info.id).files
    hashes = {files[f"library/lorebooks/{n}.json"].sha256 for n in ("空书甲", "空书乙", "空书丙")}
    assert len(hashes) == 1
    objects = ObjectStore(home_dir / "vault" / "objects").names()
    assert len(objects) == len({e.sha256 for e in files.values()})
    # A second snapshot after one edit stores exactly one new object.
    (home_dir / "cards" / "青梧" / "AGENTS.md").write_text("# 青梧的世界\n书院在山上。\n", encoding="utf-8")
    assert vault.snapshot() is not None
    assert len(ObjectStore(home_dir / "vault" / "objects").names()) == len(objects) + 1


def _files_read(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files the vault reads from now on (each ``ObjectStore.add_file``), in order."""
    reads: list[Path] = []
    original = ObjectStore.add_file

    def counting(
        self: ObjectStore, source: Path, known: set[str], previous: tuple[str, int] | None = None
    ) -> tuple[str, int, os.stat_result]:
        reads.append(source)
        return original(self, source, known, previous)

    monkeypatch.setattr(ObjectStore, "add_file", counting)
    return reads


def test_unchanged_library_is_not_read_again(home_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_library(home_dir)
    vault = Vault(Home(home_dir), clock=stepping_clock(START), racy_window=0)
    assert vault.snapshot() is not None
    reads = _files_read(monkeypatch)
    assert vault.snapshot() is None
    assert reads == []
    # A changed file is read again even when its size stays the same (new inode via atomic write).
    book = home_dir / "library" / "lorebooks" / "栖水镇.json"
    atomic.write_bytes(book, book.read_bytes().replace("青石板".encode(), "白石板".encode()))
    assert vault.snapshot() is not None
    assert reads == [book]


def test_recently_changed_files_are_always_hashed_again(vault: Vault, home_dir: Path) -> None:
    """Same size, same mtime, same inode (an in-place rewrite within one timestamp tick) is still seen."""
    assert vault.snapshot() is not None
    book = home_dir / "library" / "personas" / "旅人.json"
    stat = book.stat()
    data = book.read_bytes()
    with open(book, "r+b") as handle:  # in place: the inode stays
        handle.write(data.replace(b"\xe8\xbf\x9c", b"\xe8\xbf\x91"))  # 远 → 近, same byte length
    os.utime(book, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = vault.snapshot()
    assert changed is not None
    assert "近行客" in vault.read_file(changed.id, "library/personas/旅人.json").decode("utf-8")


def test_retention_keeps_the_newest_fifty_and_collects_their_objects(vault: Vault, home_dir: Path) -> None:
    book = home_dir / "library" / "lorebooks" / "栖水镇.json"
    ids = []
    for round_ in range(55):
        book.write_text(json.dumps({"round": round_, "note": f"第{round_}次修改"}, ensure_ascii=False))
        info = vault.snapshot("write")
        assert info is not None
        ids.append(info.id)
    listed = [s.id for s in vault.snapshots()]
    assert listed == ids[5:]
    assert len(listed) == 50
    referenced = {e.sha256 for sid in listed for e in vault.manifest(sid).files.values()}
    assert ObjectStore(home_dir / "vault" / "objects").names() == referenced
    # The oldest snapshots' versions of the book are gone; the kept ones are readable.
    assert json.loads(vault.read_file(listed[0], "library/lorebooks/栖水镇.json"))["round"] == 5


def _snapshots_at(home_dir: Path, times: list[datetime], vault: Vault | None = None) -> tuple[Vault, list[str]]:
    """A snapshot at each of *times* (the clock says so), the note changed before each."""
    clock = iter(times)
    vault = vault or Vault(Home(home_dir), clock=lambda: next(clock))
    vault.clock = lambda: next(clock)
    note = home_dir / "cards" / "青梧" / "AGENTS.md"
    made = []
    for n, when in enumerate(times):
        note.write_text(f"{when.isoformat()} 的第 {n} 条笔记", encoding="utf-8")
        info = vault.snapshot()
        assert info is not None
        made.append(info.id)
    return vault, made


def test_ids_are_the_clock_and_the_order_is_the_order_taken(home_dir: Path) -> None:
    make_library(home_dir)
    vault, made = _snapshots_at(home_dir, [START, START, START - timedelta(hours=1)])
    assert made == ["20261130-080000", "20261130-080000-2", "20261130-070000"]
    assert [s.id for s in vault.snapshots()] == made  # as taken, not by name
    assert vault.latest() is not None and vault.latest().id == "20261130-070000"


def test_a_snapshot_taken_while_the_clock_was_ahead_does_not_stay_newest(home_dir: Path) -> None:
    """Issue 46, item 9: with ids sorted by name, one taken while the clock was a year ahead stayed
    "newest", and every later id had to follow it (``20271130-080000-57``)."""
    make_library(home_dir)
    ahead = START + timedelta(days=365)
    vault, made = _snapshots_at(home_dir, [START, ahead, START + timedelta(minutes=5), START + timedelta(minutes=6)])
    assert made == ["20261130-080000", "20271130-080000", "20261130-080500", "20261130-080600"]
    assert [s.id for s in vault.snapshots()] == made
    latest = vault.latest()
    assert latest is not None and latest.id == "20261130-080600"
    assert vault.diff("20261130-080500", "20261130-080600").changed == ["cards/青梧/AGENTS.md"]
    vault.keep = 2  # retention drops the oldest taken, the ahead one among them
    _snapshots_at(home_dir, [START + timedelta(minutes=7)], vault)
    assert [s.id for s in vault.snapshots()] == ["20261130-080600", "20261130-080700"]


def test_manifests_of_an_older_version_keep_their_order_before_the_new_ones(home_dir: Path) -> None:
    make_library(home_dir)
    vault, made = _snapshots_at(home_dir, [START + timedelta(days=365), START])
    for snapshot_id in made:  # as an older version wrote them: no "seq"
        path = vault.manifests.path(snapshot_id)
        data = json.loads(path.read_text(encoding="utf-8"))
        del data["seq"]
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    older = Vault(Home(home_dir))
    assert [s.id for s in older.snapshots()] == ["20261130-080000", "20271130-080000"]  # by id, as they were
    _, later = _snapshots_at(home_dir, [START + timedelta(minutes=1)], older)
    assert [s.id for s in older.snapshots()] == ["20261130-080000", "20271130-080000", *later]


def test_snapshot_of_a_missing_data_folder_creates_nothing(tmp_path: Path) -> None:
    from peargarden.errors import NotFound

    missing = tmp_path / "没有这个文件夹"
    with pytest.raises(NotFound):
        Vault(Home(missing)).snapshot()
    assert not missing.exists()


def test_big_files_are_streamed_into_the_store_and_restored_intact(
    vault: Vault, home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from peargarden.workspace.vault import _store as _vault_store

    monkeypatch.setattr(_vault_store, "_WHOLE_READ_LIMIT", 1024)  # everything bigger is streamed
    monkeypatch.setattr(_vault_store, "_CHUNK", 4096)
    png = home_dir / "cards" / "白露" / "白露.png"
    png.write_bytes(png.read_bytes() * 5)  # ~50 KB, several chunks
    twin = home_dir / "cards" / "白露" / "副本.png"
    twin.write_bytes(png.read_bytes())
    info = vault.snapshot()
    assert info is not None
    files = vault.manifest(info.id).files
    assert files["cards/白露/白露.png"].sha256 == files["cards/白露/副本.png"].sha256
    assert not [p for p in (home_dir / "vault" / "objects").iterdir() if p.name.endswith(".tmp")]
    original = png.read_bytes()
    png.unlink()
    vault.restore(info.id, "cards/白露/白露.png")
    assert png.read_bytes() == original


def test_a_snapshot_that_fails_midway_leaves_no_objects_and_no_manifest(
    vault: Vault, home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from peargarden.errors import BadInput

    assert vault.snapshot() is not None
    objects_before = ObjectStore(home_dir / "vault" / "objects").names()
    for n in range(30):
        (home_dir / "library" / "lorebooks" / f"新书{n:02d}.json").write_text(f'{{"n": {n}}}', encoding="utf-8")
    original = ObjectStore.add_file
    unreadable = home_dir / "library" / "lorebooks" / "新书20.json"

    def failing(
        self: ObjectStore, source: Path, known: set[str], previous: tuple[str, int] | None = None
    ) -> tuple[str, int, os.stat_result]:
        if source == unreadable:
            raise PermissionError(13, "Permission denied", str(source))
        return original(self, source, known, previous)

    monkeypatch.setattr(ObjectStore, "add_file", failing)
    with pytest.raises(BadInput, match="新书20"):
        vault.snapshot()
    assert len(vault.snapshots()) == 1
    assert ObjectStore(home_dir / "vault" / "objects").names() == objects_before


def test_a_data_folder_reached_through_a_symlink_is_snapshotted(home_dir: Path, tmp_path: Path) -> None:
    make_library(home_dir)
    link = tmp_path / "链接的数据"
    link.symlink_to(home_dir, target_is_directory=True)
    (home_dir / "library" / "lorebooks" / "指向别处.json").symlink_to(home_dir / "SYSTEM.md")
    vault = Vault(Home(link), clock=stepping_clock(START))
    info = vault.snapshot()
    assert info is not None
    files = vault.manifest(info.id).files
    assert set(files) == set(tree_bytes(home_dir)) - {"library/lorebooks/指向别处.json"}  # links inside: skipped


def test_stored_api_keys_are_never_snapshotted(vault: Vault, home_dir: Path) -> None:
    (home_dir / "keys").mkdir()
    (home_dir / "keys" / "deepseek.key").write_text("sk-secret", encoding="utf-8")
    (home_dir / "cards" / "青梧" / "keys").mkdir()
    (home_dir / "cards" / "青梧" / "keys" / "钥匙.txt").write_text("剧情里的钥匙", encoding="utf-8")
    info = vault.snapshot()
    assert info is not None
    files = vault.manifest(info.id).files
    assert not any(p.startswith("keys/") for p in files)
    assert "cards/青梧/keys/钥匙.txt" in files  # only the top-level keys/ is the program's


def test_a_file_read_a_tick_after_its_last_change_is_remembered_unless_its_times_are_whole_seconds(
    tmp_path: Path,
) -> None:
    """The racy rule waits one tick of the file system's clock, not two seconds, where times carry
    fractions of a second; times in whole seconds (FAT, ext3, a time set by hand) keep two seconds."""
    cache = StatCache(tmp_path / "statcache.json")
    changed = 1_764_700_000_123_456_789
    fine = FileSignature(size=10, mtime_ns=changed, ctime_ns=changed, inode=7, mode=0o644)
    cache.remember("剧情.jsonl", fine, "a" * 64, now_ns=changed + 10_000_000)  # within a tick
    assert cache.lookup("剧情.jsonl", fine) is None
    cache.remember("剧情.jsonl", fine, "a" * 64, now_ns=changed + 40_000_000)
    assert cache.lookup("剧情.jsonl", fine) == "a" * 64
    second = 1_764_700_000 * 10**9
    whole = FileSignature(size=10, mtime_ns=second, ctime_ns=second, inode=8, mode=0o644)
    cache.remember("卡.json", whole, "b" * 64, now_ns=whole.mtime_ns + 1_500_000_000)
    assert cache.lookup("卡.json", whole) is None
    cache.remember("卡.json", whole, "b" * 64, now_ns=whole.mtime_ns + 2_000_000_000)
    assert cache.lookup("卡.json", whole) == "b" * 64
    cache.save()
    assert StatCache(tmp_path / "statcache.json").lookup("剧情.jsonl", fine) == "a" * 64
    # A snapshot waits out the rest of a large file's tick before reading it; a small file, a file
    # changed a tick ago, or one with whole-second times is read at once.
    big = FileSignature(size=5 << 20, mtime_ns=changed, ctime_ns=changed, inode=9, mode=0o644)
    assert cache.settle_ns(big, changed + 10_000_000) == 15_000_000
    assert cache.settle_ns(big, changed + 30_000_000) == 0
    assert cache.settle_ns(fine, changed + 10_000_000) == 0
    assert cache.settle_ns(FileSignature(5 << 20, second, second, 10, 0o644), second + 10_000_000) == 0


def test_a_grown_chat_snapshotted_after_its_append_is_not_read_again_by_the_next_snapshot(
    home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a beat does: append to the chat, snapshot; the next command's first snapshot finds the
    chat as the last one left it without reading it (it used to hash the whole file again)."""
    make_library(home_dir)
    vault = Vault(Home(home_dir), clock=stepping_clock(START))
    chat = home_dir / "cards" / "青梧" / "chats" / "20261203-000000-聊天" / "session.jsonl"
    chat.parent.mkdir(parents=True)
    chat.write_text('{"type": "session"}\n' * 60_000, encoding="utf-8")  # 1.2 MB: worth waiting for
    time.sleep(0.05)  # the library's small files, written just now, are a tick old by then
    assert vault.snapshot() is not None
    with open(chat, "a", encoding="utf-8") as handle:
        handle.write('{"type": "message", "text": "掌柜，来壶茶。"}\n')
    assert vault.snapshot() is not None  # at once, as a beat's: it waits out the chat's tick
    reads = _files_read(monkeypatch)
    assert Vault(Home(home_dir), clock=stepping_clock(START)).snapshot() is None
    assert reads == []


def test_collecting_reads_every_manifest_the_way_load_does_and_keeps_at_least_as_much(
    vault: Vault, home_dir: Path
) -> None:
    """Garbage collection reads the manifests' references in C (retention runs it after every
    snapshot once there are fifty); what it keeps is what the manifests read whole refer to, a
    manifest in a shape only ``load`` reads still counts, a damaged one is skipped as before."""
    book = home_dir / "library" / "lorebooks" / "栖水镇.json"
    made = []
    for round_ in range(4):
        book.write_text(json.dumps({"round": round_, "note": f"第{round_}次"}, ensure_ascii=False))
        info = vault.snapshot("write")
        assert info is not None
        made.append(info.id)
    ids = vault.manifests.ids()
    whole = {e.sha256 for m in vault.manifests.load_all(ids) for e in m.files.values()}
    assert vault.manifests.references(ids) == whole
    own = [vault.manifest(sid).files["library/lorebooks/栖水镇.json"].sha256 for sid in made]
    # Snapshot 1 written with a size of `true` (JSON's true is no integer to msgspec, is one to load).
    first = vault.manifests.path(made[1])
    data = json.loads(first.read_text(encoding="utf-8"))
    for entry in data["files"].values():
        entry["size"] = True
    first.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    # Snapshot 2 torn: not JSON any more.
    torn = vault.manifests.path(made[2])
    torn.write_text(torn.read_text(encoding="utf-8")[:40], encoding="utf-8")
    vault.gc()
    left = ObjectStore(home_dir / "vault" / "objects").names()
    assert [sha in left for sha in own] == [True, True, False, True]  # the torn one's version went
    versions = [json.loads(vault.read_file(sid, "library/lorebooks/栖水镇.json"))["round"] for sid in made[:2]]
    assert versions == [0, 1]
