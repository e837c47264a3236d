"""A file that only grew since its last snapshot (a chat's session file after a beat) is stored as the
bytes appended to an earlier object of it (a tail object, ``workspace/vault/_tails.py``): the vault
grows by what was appended, not by the file again; every snapshot still restores byte for byte,
diffs, and survives retention and garbage collection; vaults of whole objects keep working."""

from __future__ import annotations

import hashlib
import json
import math
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kit.cli import pear_in_process
from peargarden.errors import FormatError
from peargarden.sessions import entry_line, header_line, message_entry
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault
from peargarden.workspace.vault._store import ObjectStore
from peargarden.workspace.vault._tails import TAIL_SUFFIX

CHAT = "cards/青梧/chats/20261201-000000-雨夜/session.jsonl"
START = datetime(2026, 12, 1, 8, 0, 0, tzinfo=UTC)


def clock_from(start: datetime) -> object:
    now = [start]

    def clock() -> datetime:
        now[0] += timedelta(minutes=1)
        return now[0]

    return clock


def line(n: int) -> bytes:
    body = {
        "type": "message",
        "id": f"{n:08x}",
        "message": {"role": "assistant", "content": f"青梧放下茶盏（{n}）" * 6},
    }
    return (json.dumps(body, ensure_ascii=False) + "\n").encode("utf-8")


def object_bytes(vault: Vault) -> int:
    folder = vault.objects.folder
    return sum(path.stat().st_size for path in folder.iterdir())


def chain_depth(store: ObjectStore, sha: str) -> int:
    depth = 0
    while (header := store.header(sha)) is not None:
        depth, sha = depth + 1, header.base
    return depth


@pytest.fixture
def home(home_dir: Path) -> Home:
    chat = home_dir / CHAT
    chat.parent.mkdir(parents=True)
    chat.write_bytes(b"".join(line(n) for n in range(1500)))  # ~0.4 MB
    (home_dir / "config.toml").write_text('card = "青梧"\n', encoding="utf-8")
    return Home(home_dir)


def grow(path: Path, first: int, count: int) -> bytes:
    added = b"".join(line(n) for n in range(first, first + count))
    with open(path, "ab") as handle:
        handle.write(added)
    return added


def test_each_growth_adds_about_what_was_appended_and_every_version_restores(home: Home) -> None:
    vault = Vault(home, clock=clock_from(START))  # type: ignore[arg-type]
    chat = home.root / CHAT
    first = vault.snapshot("start")
    assert first is not None
    versions = {first.id: chat.read_bytes()}
    appended_total = 0
    growths = 20
    for beat in range(growths):
        before = object_bytes(vault)
        added = grow(chat, 10_000 + beat * 3, 2 + beat % 3)
        appended_total += len(added)
        info = vault.snapshot("beat")
        assert info is not None
        grown = object_bytes(vault) - before
        # Never the file again: at most the bytes since the chain's base, and a header line.
        assert grown < appended_total + 200 < chat.stat().st_size // 4
        versions[info.id] = chat.read_bytes()
    # Over n growths the tails add up to at most (log2 n + 1) times what was appended.
    stored_after_first = object_bytes(vault) - len(versions[first.id])
    assert stored_after_first <= appended_total * (math.log2(growths) + 1) + 200 * growths
    newest = vault.manifest(list(versions)[-1]).files[CHAT]
    assert 1 <= chain_depth(vault.objects, newest.sha256) <= math.log2(growths) + 1
    for snapshot_id, data in versions.items():
        assert vault.read_file(snapshot_id, CHAT) == data
        entry = vault.manifest(snapshot_id).files[CHAT]
        assert entry.sha256 == hashlib.sha256(data).hexdigest() and entry.size == len(data)
    # A whole restore of an older version writes its bytes exactly.
    older = list(versions)[5]
    vault.restore(older)
    assert chat.read_bytes() == versions[older]
    # And the newest comes back after it (the pre-restore snapshot holds it).
    vault.restore(list(versions)[-1], CHAT)
    assert chat.read_bytes() == versions[list(versions)[-1]]


def test_diff_of_a_grown_file_shows_the_appended_lines(home: Home) -> None:
    vault = Vault(home, clock=clock_from(START))  # type: ignore[arg-type]
    a = vault.snapshot()
    grow(home.root / CHAT, 90_000, 1)
    b = vault.snapshot()
    assert a is not None and b is not None
    assert vault.diff(a.id, b.id).changed == [CHAT]
    text = vault.file_diff(a.id, b.id, CHAT)
    added = [row for row in text.splitlines() if row.startswith("+") and not row.startswith("+++")]
    assert added == ["+" + line(90_000).decode("utf-8").rstrip("\n")]


def test_a_rewritten_or_shrunk_file_is_stored_whole(home: Home) -> None:
    vault = Vault(home, clock=clock_from(START))  # type: ignore[arg-type]
    chat = home.root / CHAT
    vault.snapshot()
    data = chat.read_bytes()
    chat.write_bytes(data[:100] + "改".encode() + data[103:] + line(1))  # longer, but not a growth
    info = vault.snapshot()
    assert info is not None
    sha = vault.manifest(info.id).files[CHAT].sha256
    assert vault.objects.path(sha).is_file() and not vault.objects.tail_path(sha).exists()
    assert vault.read_file(info.id, CHAT) == chat.read_bytes()
    chat.write_bytes(chat.read_bytes()[:-500])  # shorter
    info = vault.snapshot()
    assert info is not None
    assert vault.objects.path(vault.manifest(info.id).files[CHAT].sha256).is_file()


def test_retention_keeps_every_object_a_kept_snapshot_needs(home: Home) -> None:
    vault = Vault(home, clock=clock_from(START), keep=3)  # type: ignore[arg-type]
    chat = home.root / CHAT
    kept: dict[str, bytes] = {}
    for beat in range(12):
        info = vault.snapshot()
        assert info is not None
        kept[info.id] = chat.read_bytes()
        grow(chat, 20_000 + beat, 1)
    ids = [s.id for s in vault.snapshots()]
    assert len(ids) == 3
    for snapshot_id in ids:
        assert vault.read_file(snapshot_id, CHAT) == kept[snapshot_id]
    assert vault.gc() == 0  # nothing left over: what retention kept is exactly what is needed
    needed = vault.objects.referenced({vault.manifest(i).files[CHAT].sha256 for i in ids})
    chat_objects = {p.name[:64] for p in vault.objects.folder.iterdir() if p.name.endswith(TAIL_SUFFIX)}
    assert chat_objects <= needed


def test_a_vault_of_whole_objects_keeps_working(home: Home) -> None:
    """What an older pear wrote (every object whole) is read, restored and grown from as before."""
    vault = Vault(home, clock=clock_from(START))  # type: ignore[arg-type]
    chat = home.root / CHAT
    old = chat.read_bytes()
    sha = hashlib.sha256(old).hexdigest()
    objects = home.vault_dir / "objects"
    objects.mkdir(parents=True)
    (objects / sha).write_bytes(old)
    (home.vault_dir / "snapshots").mkdir()
    config = (home.root / "config.toml").read_bytes()
    (objects / hashlib.sha256(config).hexdigest()).write_bytes(config)
    manifest = {
        "format": "peargarden-vault-snapshot",
        "version": 1,
        "id": "20261130-070000",
        "time": "2026-11-30T07:00:00+00:00",
        "reason": "older pear",
        "files": {
            CHAT: {"sha256": sha, "size": len(old), "mode": "0644"},
            "config.toml": {"sha256": hashlib.sha256(config).hexdigest(), "size": len(config), "mode": "0644"},
        },
        "dirs": [],
    }
    (home.vault_dir / "snapshots" / "20261130-070000.json").write_text(json.dumps(manifest), encoding="utf-8")
    grow(chat, 30_000, 2)
    info = vault.snapshot()
    assert info is not None
    grown = vault.manifest(info.id).files[CHAT].sha256
    assert vault.objects.header(grown) is not None and vault.objects.header(grown).base == sha  # type: ignore[union-attr]
    assert vault.read_file("20261130-070000", CHAT) == old
    vault.restore("20261130-070000")
    assert chat.read_bytes() == old


def test_a_damaged_or_missing_chain_member_is_an_error_not_wrong_bytes(home: Home) -> None:
    vault = Vault(home, clock=clock_from(START))  # type: ignore[arg-type]
    chat = home.root / CHAT
    vault.snapshot()
    grow(chat, 40_000, 1)
    vault.snapshot()
    grow(chat, 40_001, 1)
    info = vault.snapshot()
    assert info is not None
    sha = vault.manifest(info.id).files[CHAT].sha256
    tail = vault.objects.tail_path(sha)
    damaged = bytearray(tail.read_bytes())
    damaged[-3] ^= 0x01
    os.chmod(tail, 0o644)
    tail.write_bytes(bytes(damaged))
    with pytest.raises(FormatError, match="校验和不符"):
        vault.read_file(info.id, CHAT)
    # The whole object at the chain's root gone: the restore refuses, naming what is missing.
    header = vault.objects.header(sha)
    assert header is not None
    root = header.base
    while (below := vault.objects.header(root)) is not None:
        root = below.base
    vault.objects.path(root).unlink()
    assert not vault.objects.has(sha, vault.manifest(info.id).files[CHAT].size)
    with pytest.raises(FormatError, match="缺少"):
        vault.restore(info.id)


def test_a_growth_whose_older_object_is_gone_is_stored_whole(home: Home) -> None:
    vault = Vault(home, clock=clock_from(START))  # type: ignore[arg-type]
    chat = home.root / CHAT
    first = vault.snapshot()
    assert first is not None
    vault.objects.path(vault.manifest(first.id).files[CHAT].sha256).unlink()
    grow(chat, 50_000, 1)
    info = vault.snapshot()
    assert info is not None
    assert vault.objects.path(vault.manifest(info.id).files[CHAT].sha256).is_file()
    assert vault.read_file(info.id, CHAT) == chat.read_bytes()


def test_a_failed_tail_write_leaves_no_object_and_no_snapshot(home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = Vault(home, clock=clock_from(START))  # type: ignore[arg-type]
    chat = home.root / CHAT
    vault.snapshot()
    ids = [s.id for s in vault.snapshots()]
    grow(chat, 60_000, 1)
    from peargarden.workspace import atomic

    real = atomic.write_bytes

    def full_disk(path: Path, data: bytes, *, mode: int | None = None) -> None:
        if str(path).endswith(TAIL_SUFFIX):
            raise OSError(28, "No space left on device", str(path))
        real(path, data, mode=mode)

    monkeypatch.setattr(atomic, "write_bytes", full_disk)
    with pytest.raises(OSError):
        vault.snapshot()
    assert [s.id for s in vault.snapshots()] == ids
    assert not [p for p in vault.objects.folder.iterdir() if p.name.endswith(TAIL_SUFFIX)]


def _long_chat(home: Path, messages: int) -> Path:
    """A chat of *messages* Chinese messages for 青梧 (a stage chat), written as the bench writes one."""
    chat_id = "20261201-000000-长谈"
    stamp = "2026-12-01T00:00:00.000Z"
    lines = [header_line(chat_id, stamp, card="青梧", mode="stage")]
    parent = None
    for n in range(messages):
        role = "assistant" if n % 2 == 0 else "user"
        text = f"青梧放下茶盏，望向窗外的河（{n}）。" * (4 if role == "assistant" else 1)
        entry = message_entry(f"{n + 1:08x}", parent, stamp, {"role": role, "content": text})
        lines.append(entry_line(entry))
        parent = entry.id
    path = home / "cards" / "青梧" / "chats" / chat_id / "session.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_beat_on_a_long_chat_adds_what_it_appended_not_the_chat(home_dir: Path) -> None:
    pear_in_process(home_dir, "init", check=True)
    session = _long_chat(home_dir, 3000)
    objects = home_dir / "vault" / "objects"
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官，", "听雨轩今日有新茶。")
        once = ["chat", "--chat", session.parent.name, "--once", "掌柜，今天有什么茶？"]
        once += ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
        size_before = session.stat().st_size
        pear_in_process(home_dir, *once, check=True)  # the chat is snapshotted whole once, then its tail
        assert (session.parent / "web-beats.json").is_file()
        stored = sum(p.stat().st_size for p in objects.iterdir())
        pear_in_process(home_dir, *once, check=True)
        grown = sum(p.stat().st_size for p in objects.iterdir()) - stored
    appended = session.stat().st_size - size_before  # since the whole object: at most what a tail holds
    assert 0 < grown <= appended + 1024
    assert grown < size_before // 20
    snapshots = Vault(Home(home_dir))
    newest = snapshots.snapshots()[-1].id
    assert snapshots.read_file(newest, str(session.relative_to(home_dir))) == session.read_bytes()
    assert not any(path.endswith("web-beats.json") for path in snapshots.manifest(newest).files)
