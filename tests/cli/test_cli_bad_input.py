"""Bad input at the CLI: one line on stderr naming the file, exit code 2, no traceback, and the data
folder byte-for-byte unchanged — not even a folder, log or lock created.

The cases run ``pear`` in this process (``kit.cli.pear_in_process``: the same entry point, an
exception that escaped it would fail the test as a traceback would); two of them run again as a
real process (:func:`test_a_real_process_exits_2_with_one_line`) for what only a shell sees.
"""

from __future__ import annotations

import base64
import io
import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from kit import workspace as wkit
from kit.cli import pear_in_process as pear
from kit.cli import pear_process
from kit.thirdparty import thirdparty

V3 = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "沈砚", "description": "书生"}}


def _charx(*members: tuple[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("card.json", json.dumps(V3, ensure_ascii=False))
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def _sparse(path: Path, size: int) -> None:
    # A file that claims 100 MB without using the disk: the size check must refuse it before reading.
    with path.open("wb") as handle:
        handle.truncate(size)


def _seraphina_head(path: Path) -> None:
    source = thirdparty("sillytavern-1.12.6", "default_Seraphina.png").read_bytes()
    path.write_bytes(source[: len(source) // 3])


BAD_FILES: dict[str, tuple[str, Callable[[Path], None]]] = {
    "truncated-png": ("截断.png", lambda p: p.write_bytes(wkit.card_png(wkit.v2_card("沈砚"))[:60])),
    "truncated-real-card": ("截断的卡.png", _seraphina_head),
    "not-a-png": ("不是图片.png", lambda p: p.write_text("这只是一段文字", encoding="utf-8")),
    "jpeg": ("照片.png", lambda p: p.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 64)),
    "png-without-card": ("空白.png", lambda p: p.write_bytes(wkit.tiny_png())),
    "bad-base64": ("坏码.png", lambda p: p.write_bytes(wkit.tiny_png(wkit.text_chunk("chara", b"%%%not*base64%%%")))),
    "base64-of-bad-json": (
        "坏JSON.png",
        lambda p: p.write_bytes(wkit.tiny_png(wkit.text_chunk("chara", base64.b64encode("{名字".encode())))),
    ),
    "bad-crc": ("坏校验.png", lambda p: p.write_bytes(_flip_crc(wkit.card_png(wkit.v2_card("沈砚"))))),
    "invalid-json": ("坏.json", lambda p: p.write_text('{"spec": "chara_card_v2", "data": {', encoding="utf-8")),
    "json-no-card": ("杂项.json", lambda p: p.write_text('{"颜色": "青", "数量": 3}', encoding="utf-8")),
    "json-array": ("数组.json", lambda p: p.write_text("[1, 2, 3]", encoding="utf-8")),
    "card-data-not-object": (
        "坏卡.json",
        lambda p: p.write_text('{"spec": "chara_card_v2", "spec_version": "2.0", "data": "字符串"}', encoding="utf-8"),
    ),
    "deeply-nested": ("深.json", lambda p: p.write_text('{"entries": ' + "[" * 100000 + "]" * 100000 + "}")),
    "empty-file": ("空.json", lambda p: p.write_bytes(b"")),
    "not-utf8": ("乱码.json", lambda p: p.write_bytes(b'{"name": "\xff\xfe"}')),
    "100-mb": ("巨大.png", lambda p: _sparse(p, 100_000_000)),
    "punctuation-name": (
        "标点.json",
        lambda p: p.write_text(json.dumps(wkit.v2_card("？！……·"), ensure_ascii=False), encoding="utf-8"),
    ),
    "charx-zip-bomb": (
        "炸弹.charx",
        lambda p: p.write_bytes(_charx(("assets/other/bin/zero.bin", b"\0" * (40 << 20)))),
    ),
    "charx-path-traversal": ("穿越.charx", lambda p: p.write_bytes(_charx(("../../逃出去.txt", b"x")))),
    "charx-absolute-path": ("绝对.charx", lambda p: p.write_bytes(_charx(("/etc/逃出去.txt", b"x")))),
    "charx-without-card": ("无卡.charx", lambda p: p.write_bytes(_zip_without_card())),
    "chat-without-card-option": (
        "对话.jsonl",
        lambda p: p.write_text(json.dumps({"name": "沈砚", "is_user": False, "mes": "你好"}, ensure_ascii=False)),
    ),
}


def _flip_crc(png: bytes) -> bytes:
    # Damage the CRC of the card's tEXt chunk (the one before IEND's 12 bytes).
    index = png.rindex(b"IEND") - 4 - 4
    return png[:index] + bytes([png[index] ^ 0xFF]) + png[index + 1 :]


def _zip_without_card() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("readme.txt", "没有 card.json")
    return buffer.getvalue()


def _assert_refused(result_stderr: str, returncode: int, *names: str) -> None:
    assert returncode == 2, result_stderr
    lines = result_stderr.strip().splitlines()
    assert len(lines) == 1, result_stderr
    assert "Traceback" not in result_stderr
    for name in names:
        assert name in lines[0], lines[0]


@pytest.fixture(scope="module")
def seeded_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("seeded") / "home"
    assert pear(home, "init").returncode == 0
    return home


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_is_refused_and_nothing_is_written(case: str, tmp_path: Path, seeded_home: Path) -> None:
    name, make = BAD_FILES[case]
    source = tmp_path / name
    make(source)
    before = wkit.tree_digest(seeded_home)
    result = pear(seeded_home, "import", source)
    _assert_refused(result.stderr, result.returncode, name)
    assert wkit.tree_digest(seeded_home) == before
    assert result.stdout == ""


@pytest.mark.parametrize("case", ["truncated-png", "json-no-card", "charx-zip-bomb", "100-mb"])
def test_a_fresh_data_folder_is_not_even_created(case: str, tmp_path: Path) -> None:
    name, make = BAD_FILES[case]
    source = tmp_path / name
    make(source)
    home = tmp_path / "never"
    result = pear(home, "import", source)
    _assert_refused(result.stderr, result.returncode, name)
    assert not home.exists()


def test_one_bad_file_in_a_batch_writes_nothing(tmp_path: Path, seeded_home: Path) -> None:
    good = tmp_path / "好卡.png"
    good.write_bytes(wkit.card_png(wkit.v2_card("好人", character_book=wkit.embedded_book())))
    book = tmp_path / "好书.json"
    book.write_text('{"entries": {}}', encoding="utf-8")
    bad = tmp_path / "坏卡.png"
    bad.write_bytes(wkit.tiny_png())
    before = wkit.tree_digest(seeded_home)
    result = pear(seeded_home, "import", good, book, bad)
    _assert_refused(result.stderr, result.returncode, "坏卡.png")
    assert wkit.tree_digest(seeded_home) == before


@pytest.mark.parametrize(
    "args, needle",
    [
        (["import", "{dir}/不存在.png"], "不存在.png"),
        (["import", "{dir}"], "{dir}"),
        (["import", "{dir}/对话.jsonl", "--card", "没有这张卡"], "没有这张卡"),
        (["import", "{dir}/对话.jsonl", "--card", "？？"], "？？"),
        (["import", "{dir}/对话.jsonl", "--book", "全要"], "--book"),
        (["export", "card", "没有这张卡", "--format", "png", "-o", "{dir}/x.png"], "没有这张卡"),
        (["export", "card", "青梧", "--format", "gif", "-o", "{dir}/x.gif"], "--format"),
        (["export", "lorebook", "没有这本", "-o", "{dir}/x.json"], "没有这本"),
        (["lorebook", "mount", "栖水镇", "--card", "……"], "……"),
    ],
)
def test_bad_arguments(args: list[str], needle: str, tmp_path: Path, seeded_home: Path) -> None:
    (tmp_path / "对话.jsonl").write_text(json.dumps({"name": "a", "is_user": True, "mes": "b"}), encoding="utf-8")
    before = wkit.tree_digest(seeded_home)
    filled = [a.replace("{dir}", str(tmp_path)) for a in args]
    result = pear(seeded_home, *filled)
    _assert_refused(result.stderr, result.returncode, needle.replace("{dir}", str(tmp_path)))
    assert wkit.tree_digest(seeded_home) == before
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir()), "no temp files left next to -o"


def test_unreadable_file(tmp_path: Path, seeded_home: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    source = tmp_path / "锁住.png"
    source.write_bytes(wkit.card_png(wkit.v2_card("沈砚")))
    source.chmod(0)
    result = pear(seeded_home, "import", source)
    _assert_refused(result.stderr, result.returncode, "锁住.png")


def test_a_failed_write_takes_back_what_was_written(tmp_path: Path, seeded_home: Path) -> None:
    card = tmp_path / "好卡.png"
    card.write_bytes(wkit.card_png(wkit.v2_card("好人")))
    preset = tmp_path / "挡路.json"
    preset.write_text('{"temperature": 1, "prompts": []}', encoding="utf-8")
    # A folder where the preset file must go: the operating system refuses that write.
    blocker = seeded_home / "library" / "presets" / "挡路.json"
    blocker.mkdir()
    try:
        before = wkit.tree_digest(seeded_home)
        result = pear(seeded_home, "import", card, preset)
        assert result.returncode == 1, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr and "挡路.json" in lines[0]
        assert wkit.tree_digest(seeded_home) == before
    finally:
        blocker.rmdir()


@pytest.mark.parametrize(
    ("case", "args"),
    [
        ("truncated-png", ["import", "{file}"]),
        ("json-no-card", ["export", "card", "青梧", "--format", "gif", "-o", "{file}"]),
    ],
)
def test_a_real_process_exits_2_with_one_line(case: str, args: list[str], tmp_path: Path, seeded_home: Path) -> None:
    """The exit code and stderr a shell gets from ``python -m peargarden``, for a bad file and a bad option."""
    name, make = BAD_FILES[case]
    source = tmp_path / name
    make(source)
    before = wkit.tree_digest(seeded_home)
    result = pear_process(seeded_home, *[arg.replace("{file}", str(source)) for arg in args])
    _assert_refused(result.stderr, result.returncode, name if args[0] == "import" else "--format")
    assert wkit.tree_digest(seeded_home) == before
    assert result.stdout == ""
