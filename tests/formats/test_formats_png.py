"""PNG card chunks: reading (tEXt/zTXt/iTXt, ccv3 preferred), writing (image bytes identical), damage."""

from __future__ import annotations

import zlib

import pytest

from kit.formats import b64json, chunk, chunks, payload_of, text_chunk, tiny_png, v2_card
from peargarden.errors import FormatError
from peargarden.formats import Card, _png, card_to_png, read_card, read_card_png


def test_reads_chara_chunk_with_chinese_content() -> None:
    png = tiny_png(text_chunk("chara", b64json(v2_card())))
    card = read_card(png, "青梧.png")
    assert card.name == "青梧"
    assert card.source_spec == "v2"
    assert card.data["extensions"]["未知扩展"] == {"保留": [1, 2]}


def test_prefers_ccv3_over_chara_whatever_the_order() -> None:
    v3 = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {"name": "新版青梧"}}
    png = tiny_png(text_chunk("CCV3", b64json(v3)), text_chunk("chara", b64json(v2_card())))
    card = read_card_png(png, "x.png")
    assert card.name == "新版青梧"
    assert card.source_spec == "v3"


def test_damaged_ccv3_falls_back_to_chara() -> None:
    png = tiny_png(text_chunk("chara", b64json(v2_card())), text_chunk("ccv3", b"@@not base64@@"))
    assert read_card(png, "x.png").name == "青梧"


def test_reads_ztxt_and_itxt_chunks() -> None:
    payload = b64json(v2_card(name="压缩的卡"))
    ztxt = chunk(b"zTXt", b"chara\x00\x00" + zlib.compress(payload))
    assert read_card(tiny_png(ztxt), "z.png").name == "压缩的卡"
    itxt_plain = chunk(b"iTXt", b"ccv3\x00\x00\x00zh\x00\xe5\x8d\xa1\x00" + b64json(v2_card(name="国际化")))
    assert read_card(tiny_png(itxt_plain), "i.png").name == "国际化"
    itxt_zip = chunk(b"iTXt", b"chara\x00\x01\x00\x00\x00" + zlib.compress(b64json(v2_card(name="压缩国际化"))))
    assert read_card(tiny_png(itxt_zip), "i2.png").name == "压缩国际化"


def test_plain_json_in_text_chunk_is_accepted() -> None:
    import json

    raw = json.dumps(v2_card(name="明文"), ensure_ascii=False).encode("utf-8")
    itxt = chunk(b"iTXt", b"chara\x00\x00\x00\x00\x00" + raw)
    assert read_card(tiny_png(itxt), "p.png").name == "明文"


def test_write_keeps_every_other_chunk_byte_identical_and_puts_cards_before_iend() -> None:
    gamma = chunk(b"gAMA", b"\x00\x00\xb1\x8f")
    comment = text_chunk("Comment", b"hello")
    old_card = text_chunk("chara", b64json(v2_card(name="旧卡")))
    source = tiny_png(comment, old_card, before_idat=gamma)
    card = read_card(tiny_png(text_chunk("chara", b64json(v2_card()))), "c.png")
    out = card_to_png(card, source)
    kept_in = [c for c in chunks(source) if not (c[0] == b"tEXt" and c[1].startswith(b"chara\x00"))]
    kept_out = [c for c in chunks(out) if not (c[0] == b"tEXt" and c[1].split(b"\x00")[0] in (b"chara", b"ccv3"))]
    assert kept_out == kept_in
    types = [(c[0], c[1].split(b"\x00")[0] if c[0] == b"tEXt" else b"") for c in chunks(out)]
    assert types[-3:] == [(b"tEXt", b"chara"), (b"tEXt", b"ccv3"), (b"IEND", b"")]
    assert payload_of(out, "chara")["spec"] == "chara_card_v2"
    assert payload_of(out, "ccv3")["spec"] == "chara_card_v3"
    assert payload_of(out, "ccv3")["data"]["name"] == "青梧"
    # every IDAT byte survives
    assert [b for t, b in chunks(out) if t == b"IDAT"] == [b for t, b in chunks(source) if t == b"IDAT"]


def test_a_v2_export_still_carries_both_chunks_like_sillytavern() -> None:
    out = card_to_png(Card.new("旧版"), tiny_png(), spec="v2")
    keywords = [b.split(b"\x00")[0] for t, b in chunks(out) if t == b"tEXt"]
    assert keywords == [b"chara", b"ccv3"]
    assert payload_of(out, "chara")["spec"] == "chara_card_v2"


def test_rewriting_replaces_old_card_chunks_of_any_text_type() -> None:
    old = chunk(b"zTXt", b"ccv3\x00\x00" + zlib.compress(b64json(v2_card(name="旧"))))
    out = card_to_png(Card.new("新"), tiny_png(old))
    assert read_card(out, "o.png").name == "新"
    assert not any(t == b"zTXt" for t, _ in chunks(out))


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"GIF89a not a png", "不是 PNG"),
        (tiny_png()[:-7], "截断"),
        (tiny_png()[:40], "截断"),
        (tiny_png(), "没有角色卡"),
        (tiny_png(text_chunk("chara", b"!!!!")), "base64"),
        (tiny_png(text_chunk("chara", b"eyJuYW1lIjog")), "JSON"),
        (tiny_png(text_chunk("chara", b64json({"entries": {}}))), "不是角色卡"),
        (tiny_png(text_chunk("chara", b64json({"spec": "chara_card_v2", "data": {"name": 5}}))), "名字"),
        (tiny_png(text_chunk("chara", b"/w==")), "UTF-8"),
    ],
)
def test_bad_png_inputs_raise_one_line_format_errors(data: bytes, needle: str) -> None:
    with pytest.raises(FormatError) as info:
        read_card_png(data, "坏卡.png")
    assert needle in str(info.value)
    assert info.value.path == "坏卡.png"
    assert "\n" not in str(info.value)


def test_bad_crc_is_reported() -> None:
    png = bytearray(tiny_png(text_chunk("chara", b64json(v2_card()))))
    png[-20] ^= 0xFF  # inside the card chunk's data
    with pytest.raises(FormatError, match="CRC"):
        read_card(bytes(png), "crc.png")


def test_zlib_bomb_in_ztxt_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_png, "_MAX_INFLATED_TEXT", 4096)
    bomb = chunk(b"zTXt", b"chara\x00\x00" + zlib.compress(b"A" * 100_000, 9))
    with pytest.raises(FormatError, match="过大"):
        read_card(tiny_png(bomb), "bomb.png")
    monkeypatch.undo()
    assert _png._MAX_INFLATED_TEXT == 64 * 1024 * 1024  # the real limit


def test_writing_into_a_non_png_image_is_refused() -> None:
    with pytest.raises(FormatError, match="不是 PNG"):
        card_to_png(Card.new("青梧"), b"\xff\xd8\xff\xe0 jpeg", image_name="头像.jpg")
