"""CHARX (V3 zip): read and write, assets kept, zip bombs and path traversal refused."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from kit.formats import tiny_png
from peargarden.errors import FormatError
from peargarden.formats import Card, _charx, card_to_charx, detect_kind, read_card


def _zip(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _card_json(name: str = "青梧") -> bytes:
    obj = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {"name": name, "description": "听雨轩掌柜"},
    }
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def test_write_then_read_keeps_card_and_assets() -> None:
    card = Card.new("青梧", description="听雨轩掌柜", extensions={"自定义": {"层": [1]}})
    icon = tiny_png()
    background = b"\x89PNG fake background bytes"
    data = card_to_charx(card, {"assets/background/image/雨夜.png": background}, icon=icon)
    assert detect_kind(data, "青梧.charx") == "charx"
    back = read_card(data, "青梧.charx")
    assert back.name == "青梧"
    assert back.data["extensions"]["自定义"] == {"层": [1]}
    assert back.assets["assets/background/image/雨夜.png"] == background
    assert back.icon() == icon
    assert back.data["assets"][0] == {
        "type": "icon",
        "uri": "embeded://assets/icon/image/main.png",
        "name": "main",
        "ext": "png",
    }
    # the input card is not changed by adding the icon
    assert "assets" not in card.data
    # writing the read card again keeps all files
    again = read_card(card_to_charx(back), "again.charx")
    assert again.assets == back.assets and again.data == back.data


def test_same_input_gives_same_bytes() -> None:
    card = Card.new("青梧")
    assert card_to_charx(card, {"a/b.txt": b"x"}) == card_to_charx(card, {"a/b.txt": b"x"})


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/passwd", "assets/../../x", "C:/win.ini", "a\\..\\b"])
def test_path_traversal_is_refused(name: str) -> None:
    data = _zip({"card.json": _card_json(), name: b"x"})
    with pytest.raises(FormatError, match="路径不安全") as info:
        read_card(data, "evil.charx")
    assert info.value.path == "evil.charx"


def test_writing_unsafe_paths_is_refused_too() -> None:
    with pytest.raises(FormatError, match="路径不安全"):
        card_to_charx(Card.new("青梧"), {"../x": b"1"})


def test_zip_bomb_by_ratio_is_refused() -> None:
    data = _zip({"card.json": _card_json(), "assets/other/bomb.bin": b"\0" * (8 * 1024 * 1024)})
    assert len(data) < 100_000
    with pytest.raises(FormatError, match="压缩炸弹"):
        read_card(data, "bomb.charx")


def test_total_size_limit_is_counted_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_charx, "MAX_CHARX_UNCOMPRESSED", 1000)
    data = _zip({"card.json": _card_json(), "a.bin": bytes(range(256)) * 4}, zipfile.ZIP_STORED)
    with pytest.raises(FormatError, match="压缩炸弹"):
        read_card(data, "big.charx")


def test_too_many_files_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_charx, "MAX_CHARX_FILES", 3)
    data = _zip({"card.json": _card_json(), **{f"f{i}": b"x" for i in range(5)}})
    with pytest.raises(FormatError, match="文件过多"):
        read_card(data, "many.charx")


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (_zip({"readme.txt": b"hi"}), "card.json"),
        (_zip({"card.json": b"{oops"}), "JSON"),
        (_zip({"card.json": b'{"entries": {}}'}), "不是角色卡"),
        (b"PK\x03\x04 truncated zip", "损坏"),
    ],
)
def test_bad_charx(data: bytes, needle: str) -> None:
    with pytest.raises(FormatError) as info:
        read_card(data, "坏.charx")
    assert needle in info.value.message


def test_corrupt_member_is_reported() -> None:
    data = bytearray(_zip({"card.json": _card_json() * 50}))
    start = data.index(b"card.json") + len("card.json")
    data[start + 5 : start + 25] = b"\xff" * 20  # scramble the deflate stream
    with pytest.raises(FormatError):
        read_card(bytes(data), "corrupt.charx")
