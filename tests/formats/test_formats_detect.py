"""detect_kind: what a file is; every unusable input is a one-line FormatError naming the file."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from kit.formats import b64json, text_chunk, tiny_png, v2_card
from peargarden.errors import FormatError
from peargarden.formats import MAX_INPUT_BYTES, Card, card_to_charx, detect_kind, read_lorebook


def _dumps(obj: object, indent: int | None = 4) -> bytes:
    return json.dumps(obj, ensure_ascii=False, indent=indent).encode("utf-8")


@pytest.mark.parametrize(
    ("data", "filename", "kind"),
    [
        (tiny_png(text_chunk("chara", b64json(v2_card()))), "青梧.png", "card_png"),
        (_dumps(v2_card()), "青梧.json", "card_json"),
        (_dumps(v2_card(), None), "青梧.json", "card_json"),
        (_dumps({"name": "怀瑾", "description": "旧人", "first_mes": "好久不见"}), "v1.json", "card_json"),
        (
            _dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "青梧"}}),
            "v3",
            "card_json",
        ),
        (card_to_charx(Card.new("青梧")), "青梧.charx", "charx"),
        (
            _dumps({"entries": {"0": {"uid": 0, "key": ["听雨轩"], "content": "客栈"}}}),
            "栖水镇.json",
            "lorebook",
        ),
        (_dumps({"entries": {}}), "空书.json", "lorebook"),
        (_dumps({"spec": "lorebook_v3", "data": {"entries": []}}), "v3书.json", "lorebook"),
        (_dumps({"prompts": [], "temperature": 1}), "预设.json", "preset"),
        (b'{"chat_metadata":{},"user_name":"unused","character_name":"unused"}', "c.jsonl", "chat_jsonl"),
        (
            b'{"user_name":"a","character_name":"b","chat_metadata":{}}\n{"name":"b","is_user":false,"mes":"hi"}',
            "no-extension",
            "chat_jsonl",
        ),
        ('\ufeff{"prompts": []}'.encode(), "bom.json", "preset"),
    ],
)
def test_detects(data: bytes, filename: str, kind: str) -> None:
    assert detect_kind(data, filename) == kind


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"", "空"),
        (b"   \n", "空"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "PNG"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "PNG"),
        (b"hello, plain text", "无法识别"),
        (b"{broken json", "JSON"),
        (b"[1, 2, 3]", "最外层不是对象"),
        (b'{"just": "a dict"}', "无法识别的 JSON"),
        (b"\xc3\x28 invalid utf8", "UTF-8"),
        (_dumps({"spec": "chara_card_v2", "data": "x"}), "无法识别的 JSON"),
    ],
)
def test_unusable_inputs(data: bytes, needle: str) -> None:
    with pytest.raises(FormatError) as info:
        detect_kind(data, "输入文件")
    assert needle in info.value.message
    assert str(info.value).startswith("输入文件: ") and "\n" not in str(info.value)
    assert info.value.exit_code == 2


def test_max_input_bytes_is_100_mib_and_enforced() -> None:
    assert MAX_INPUT_BYTES == 100 * 1024 * 1024
    with pytest.raises(FormatError, match="文件过大"):
        detect_kind(b"{" + b" " * MAX_INPUT_BYTES, "huge.json")


def test_zip_is_charx_by_content_not_name() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("card.json", b"{}")
    assert detect_kind(buffer.getvalue(), "renamed.png") == "charx"


# What Windows editors save: Notepad's "Unicode" (UTF-16 with its byte-order mark), UTF-8 with a
# BOM, and "ANSI", which on a Chinese Windows is GBK.
BOOK = {"entries": {"0": {"uid": 0, "key": ["雨巷"], "content": "一条长长的雨巷。"}}}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig"])
def test_text_with_a_byte_order_mark_is_read_in_its_encoding(encoding: str) -> None:
    data = json.dumps(BOOK, ensure_ascii=False).encode(encoding)
    if encoding in ("utf-16-le", "utf-16-be"):  # these codecs write no mark: add the one Notepad writes
        data = "\ufeff".encode(encoding) + data
    assert detect_kind(data, "雨巷.json") == "lorebook"
    assert read_lorebook(data, "雨巷.json")["entries"]["0"]["key"] == ["雨巷"]


def test_gbk_text_is_refused_with_a_hint_to_save_it_as_utf8() -> None:
    data = json.dumps(BOOK, ensure_ascii=False).encode("gbk")
    with pytest.raises(FormatError) as info:
        detect_kind(data, "雨巷.json")
    assert "不是 UTF-8" in info.value.message and "GBK" in info.value.message
    assert "\n" not in str(info.value)
    # bytes that are no Chinese in any encoding get no such guess
    with pytest.raises(FormatError) as other:
        detect_kind(b"\xc3\x28 invalid utf8", "x.json")
    assert "GBK" not in other.value.message
    with pytest.raises(FormatError, match="UTF-16"):
        detect_kind(b"\xff\xfe\x00", "broken.json")  # a mark, then half a character
