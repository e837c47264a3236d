"""The tokenizers' rank tables cached in the data folder (``vault/cache/tokenizer-*.ranks``): the first
process writes the table, the next ones read it instead of parsing the packaged file; a cache that is
missing, torn, flipped, foreign or in the way is rebuilt, never trusted; processes racing to make it
all count right and leave one whole file; a reader never sees a file half written."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
import zlib
from pathlib import Path

import msgspec
import pytest

from peargarden.text.tokens import packaged_encoding, packaged_ranks, rank_digest
from peargarden.workspace.atomic import write_cache
from peargarden.workspace.home import Home
from peargarden.workspace.tokenizer_cache import cache_file, cached_ranks, decode_ranks, encode_ranks

NAME = "cl100k_base"
DIGEST = rank_digest(NAME)
TEXT = "青梧放下茶盏，望向窗外的河：“记得。”It was raining at 渡口 that year."


@pytest.fixture(scope="module")
def table() -> dict[bytes, int]:
    return packaged_ranks(NAME)


class Builds:
    """A rank source that counts how often the cache had to build the table."""

    def __init__(self, table: dict[bytes, int]) -> None:
        self.table = table
        self.calls = 0

    def __call__(self) -> dict[bytes, int]:
        self.calls += 1
        return dict(self.table)


def _home(tmp_path: Path) -> Home:
    home = Home(tmp_path / "数据")
    home.root.mkdir()
    return home


def test_the_first_read_writes_the_table_and_the_next_reads_it(tmp_path: Path, table: dict[bytes, int]) -> None:
    home, builds = _home(tmp_path), Builds(table)
    path = cache_file(home, NAME, DIGEST)
    assert not path.exists()
    assert cached_ranks(home, NAME, DIGEST, builds) == table
    assert builds.calls == 1
    assert path.parent == home.vault_dir / "cache"  # a cache folder: never in the vault's snapshots
    assert decode_ranks(path.read_bytes()) == table
    for _ in range(3):
        assert cached_ranks(home, NAME, DIGEST, builds) == table
    assert builds.calls == 1


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _flipped(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :]


def _token_changed(data: bytes) -> bytes:
    """One bit of the last token's bytes: still a well-formed list, only the check tells."""
    return data[:-1] + bytes([data[-1] ^ 0x01])


def _other_format(data: bytes) -> bytes:
    return b"pear-ranks-9\n" + data[len(b"pear-ranks-1\n") :]


def _tail_only(data: bytes) -> bytes:
    return data[-1000:]


@pytest.mark.parametrize(
    "damage",
    [
        _truncated,
        _flipped,
        _token_changed,
        _other_format,
        _tail_only,
        lambda _data: b"",
        lambda _data: "中文乱码".encode() * 9000,
    ],
    ids=["truncated", "one-bit-flipped", "token-changed", "other-format", "tail-only", "empty", "text"],
)
def test_a_damaged_cache_is_rebuilt_not_trusted(tmp_path: Path, table: dict[bytes, int], damage: object) -> None:
    home, builds = _home(tmp_path), Builds(table)
    cached_ranks(home, NAME, DIGEST, builds)
    path = cache_file(home, NAME, DIGEST)
    assert callable(damage)
    path.write_bytes(damage(path.read_bytes()))
    assert cached_ranks(home, NAME, DIGEST, builds) == table
    assert builds.calls == 2
    assert decode_ranks(path.read_bytes()) == table  # rewritten whole
    assert cached_ranks(home, NAME, DIGEST, builds) == table
    assert builds.calls == 2


def test_a_table_with_a_token_twice_is_not_a_table(table: dict[bytes, int]) -> None:
    """A file whose check matches but whose tokens repeat (not a table this code wrote) is refused."""
    encoded = encode_ranks({b"a": 0, b"b": 1})
    assert encoded is not None and decode_ranks(encoded) == {b"a": 0, b"b": 1}
    payload = msgspec.msgpack.encode([b"a", b"a"])
    forged = b"pear-ranks-1\n" + zlib.crc32(payload).to_bytes(4, "big") + payload
    assert decode_ranks(forged) is None
    assert encode_ranks({b"a": 0, b"b": 2}) is None  # ranks with a gap are not stored


def test_a_folder_that_cannot_take_the_cache_only_costs_time(tmp_path: Path, table: dict[bytes, int]) -> None:
    home, builds = _home(tmp_path), Builds(table)
    home.vault_dir.mkdir()
    (home.vault_dir / "cache").write_text("一个文件挡在缓存文件夹的位置上", encoding="utf-8")
    assert cached_ranks(home, NAME, DIGEST, builds) == table
    assert cached_ranks(home, NAME, DIGEST, builds) == table
    assert builds.calls == 2


def test_no_data_folder_is_made_for_a_cache(tmp_path: Path, table: dict[bytes, int]) -> None:
    home, builds = Home(tmp_path / "没有的文件夹"), Builds(table)
    assert cached_ranks(home, NAME, DIGEST, builds) == table
    assert not home.root.exists()


def test_a_reader_never_sees_a_file_half_written(tmp_path: Path, table: dict[bytes, int]) -> None:
    """While one thread keeps replacing the cache, readers always find a whole file: they never
    have to build the table."""
    home, builds = _home(tmp_path), Builds(table)
    cached_ranks(home, NAME, DIGEST, builds)
    path, data = cache_file(home, NAME, DIGEST), cache_file(home, NAME, DIGEST).read_bytes()
    done = threading.Event()

    def rewrite() -> None:
        for _ in range(25):
            write_cache(path, data)
        done.set()

    def read(found: list[bool]) -> None:
        while not done.is_set():
            found.append(cached_ranks(home, NAME, DIGEST, builds) == table)

    found: list[bool] = []
    readers = [threading.Thread(target=read, args=(found,)) for _ in range(2)]
    writer = threading.Thread(target=rewrite)
    for thread in [*readers, writer]:
        thread.start()
    for thread in [writer, *readers]:
        thread.join()
    assert found and all(found)
    assert builds.calls == 1


_RACER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from peargarden.text.tokens import ExactCounter
    from peargarden.workspace.home import Home
    from peargarden.workspace.tokenizer_cache import cache_tokenizers_in
    cache_tokenizers_in(Home(Path(sys.argv[1])))
    time.sleep(max(0.0, float(sys.argv[2]) - time.time()))  # start together
    print(ExactCounter("cl100k_base")(sys.argv[3]))
    """
)


def test_processes_racing_to_make_the_cache_all_count_right(tmp_path: Path, table: dict[bytes, int]) -> None:
    home = _home(tmp_path)
    start = f"{time.time() + 1.0:.3f}"
    racers = [
        subprocess.Popen([sys.executable, "-c", _RACER, str(home.root), start, TEXT], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    counts = [racer.communicate(timeout=120)[0].strip() for racer in racers]
    assert all(racer.returncode == 0 for racer in racers)
    assert counts == [str(len(packaged_encoding(NAME).encode(TEXT)))] * 3
    path = cache_file(home, NAME, DIGEST)
    assert decode_ranks(path.read_bytes()) == table
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind
