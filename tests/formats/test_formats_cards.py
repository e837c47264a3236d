"""Cards V1/V2/V3 as JSON: conversions, SillyTavern's hybrid shape, unknown fields kept, fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.formats import payload_of, tiny_png, v2_card
from kit.thirdparty import thirdparty
from peargarden.errors import FormatError
from peargarden.formats import (
    Card,
    card_from_object,
    card_to_json,
    card_to_object,
    card_to_png,
    read_card,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"


def _json(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def test_v1_card_becomes_v2_and_v3_with_every_required_field() -> None:
    v1 = {
        "name": "怀瑾",
        "description": "十年前离开栖水镇的年轻公子。",
        "personality": "温润",
        "scenario": "渡口重逢",
        "first_mes": "好久不见。",
        "mes_example": "",
        "creatorcomment": "Creator's notes go here.",
        "talkativeness": "0.5",
        "tags": ["旧人"],
        "旧工具字段": 42,
    }
    card = read_card(_json(v1), "怀瑾.json")
    assert card.source_spec == "v1"
    assert card.data["creator_notes"] == ""  # the editor placeholder is not a note
    assert card.data["tags"] == ["旧人"]
    v2 = card_to_object(card, "v2")
    assert v2["spec"] == "chara_card_v2" and v2["spec_version"] == "2.0"
    for key in ("system_prompt", "post_history_instructions", "creator", "character_version"):
        assert v2["data"][key] == ""
    assert v2["data"]["alternate_greetings"] == []
    assert v2["data"]["extensions"]["talkativeness"] == "0.5"
    assert v2["旧工具字段"] == 42
    v3 = card_to_object(card, "v3")
    assert v3["spec"] == "chara_card_v3" and v3["spec_version"] == "3.0"
    assert v3["data"]["group_only_greetings"] == []
    assert v3["data"]["description"] == "十年前离开栖水镇的年轻公子。"


def test_gradio_names_are_mapped() -> None:
    gradio = {
        "char_name": "阿梨",
        "char_persona": "园中小妖",
        "char_greeting": "你来啦",
        "world_scenario": "梨园",
    }
    card = read_card(_json(gradio), "g.json")
    assert (card.name, card.data["description"], card.data["first_mes"], card.data["scenario"]) == (
        "阿梨",
        "园中小妖",
        "你来啦",
        "梨园",
    )


def test_hybrid_data_wins_and_mirror_is_refreshed() -> None:
    stored = v2_card()
    stored["description"] = "过时的顶层描述"
    card = read_card(_json(stored), "c.json")
    assert card.data["description"] == "听雨轩的年轻掌柜，栖水镇人。"
    card.data["description"] = "改过的描述"
    out = json.loads(card_to_json(card, "v2"))
    assert out["description"] == "改过的描述" == out["data"]["description"]
    assert out["chat"] == stored["chat"] and out["create_date"] == stored["create_date"]
    assert out["some_tool_key"] == {"kept": True}
    assert [k for k in out if k in stored] == list(stored)  # key order of the source survives


def test_v3_to_v2_keeps_v3_only_fields_and_unknown_extensions() -> None:
    v3 = {
        "spec": "chara_card_v3",
        "spec_version": "3.0",
        "data": {
            "name": "青梧",
            "nickname": "阿梧",
            "group_only_greetings": ["诸位好。"],
            "creator_notes_multilingual": {"zh": "中文注释"},
            "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
            "extensions": {"chub": {"full_path": "x/青梧"}},
            "未来字段": True,
        },
    }
    card = read_card(_json(v3), "v3.json")
    v2 = card_to_object(card, "v2")
    assert v2["spec"] == "chara_card_v2"
    assert v2["name"] == "青梧"  # hybrid mirror written for V2
    for key in ("nickname", "group_only_greetings", "creator_notes_multilingual", "assets", "未来字段"):
        assert v2["data"][key] == v3["data"][key]  # type: ignore[index]
    assert v2["data"]["extensions"] == {"chub": {"full_path": "x/青梧"}}
    back = card_to_object(card_from_object(v2, "v2.json"), "v3")
    assert {k: back["data"][k] for k in v3["data"]} == v3["data"]  # type: ignore[attr-defined]
    assert "name" not in card_to_object(card, "v3")  # a clean V3 source gets no mirror


def test_v3_spec_version_is_kept() -> None:
    card = read_card(_json({"spec": "chara_card_v3", "spec_version": "3.2", "data": {"name": "甲"}}), "x")
    assert card_to_object(card, "v3")["spec_version"] == "3.2"


def test_new_card_and_character_book_property() -> None:
    card = Card.new("青梧", first_mes="听雨轩里灯还亮着。")
    assert card.character_book is None
    card.character_book = {"name": "栖水镇", "entries": [], "extensions": {}}
    assert card.data["character_book"]["name"] == "栖水镇"
    card.extensions["world"] = "栖水镇"
    again = read_card(card_to_json(card), "c.json")
    assert again.data == {**card.data, "group_only_greetings": []}
    card.character_book = None
    assert "character_book" not in card.data


def test_json_output_is_pretty_utf8_without_escapes() -> None:
    text = card_to_json(Card.new("青梧")).decode("utf-8")
    assert '"name": "青梧"' in text and "\\u" not in text
    assert text.startswith('{\n    "')


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"{not json", "JSON"),
        (b"[1, 2]", "不是对象"),
        (b"\xff\xd8\xff\xdb jpeg bytes", "PNG"),
        (b'{"foo": 1}', "不是角色卡"),
        (b'{"spec": "chara_card_v9", "data": {}}', "规格"),
        (b'{"spec": "chara_card_v2", "data": "x"}', "data"),
        (b'{"spec": "chara_card_v2", "data": {"description": "no name"}}', "名字"),
        ('{"name": "乱码"}'.encode("gbk"), "UTF-8"),
    ],
)
def test_bad_card_json(data: bytes, needle: str) -> None:
    with pytest.raises(FormatError) as info:
        read_card(data, "坏.json")
    assert needle in info.value.message and info.value.path == "坏.json"


def test_oversize_input_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    import peargarden.formats._common as common

    monkeypatch.setattr(common, "MAX_INPUT_BYTES", 1000)
    with pytest.raises(FormatError, match="过大"):
        read_card(b" " * 1001, "big.png")


@pytest.mark.parametrize("case", ["oracle-01-minimal", "oracle-18-embedded-book"])
def test_oracle_card_png_equals_card_json(case: str) -> None:
    from_json = read_card((DATA / case / "card.json").read_bytes(), "card.json")
    from_png = read_card((DATA / case / "card.png").read_bytes(), "card.png")
    assert from_png.data == from_json.data
    assert from_png.source_spec == "v3"  # ST 1.12.6 wrote ccv3 too
    # Re-exporting the JSON as V2 gives SillyTavern's stored object back.
    assert card_to_object(from_json, "v2") == json.loads((DATA / case / "card.json").read_text("utf-8"))


def test_oracle_png_rewrite_matches_sillytavern_chunks() -> None:
    png = (DATA / "oracle-01-minimal" / "card.png").read_bytes()
    card = read_card(png, "card.png")
    out = card_to_png(card, png)
    assert payload_of(out, "chara") == payload_of(png, "chara")
    ours = payload_of(out, "ccv3")
    # V3 requires group_only_greetings; SillyTavern 1.12.6 did not add it.
    assert ours["data"].pop("group_only_greetings") == []
    assert ours == payload_of(png, "ccv3")


@pytest.mark.parametrize(("version", "spec"), [("sillytavern-1.12.6", "v2"), ("sillytavern-1.18.0", "v3")])
def test_seraphina_fixture(version: str, spec: str) -> None:
    raw = thirdparty(version, "default_Seraphina.png").read_bytes()
    card = read_card(raw, "default_Seraphina.png")
    assert card.name == "Seraphina"
    assert card.source_spec == spec
    assert card.extensions["world"] == "Eldoria"
    book = card.character_book
    assert book is not None and len(book["entries"]) == 4
    # import → export → import keeps every data field and unknown extension
    for out_spec in ("v2", "v3"):
        again = read_card(card_to_png(card, raw, out_spec), "again.png")  # type: ignore[arg-type]
        assert {k: again.data[k] for k in card.data} == card.data
        from_json = read_card(card_to_json(card, out_spec), "again.json")  # type: ignore[arg-type]
        assert {k: from_json.data[k] for k in card.data} == card.data


def test_seraphina_export_into_other_image_keeps_that_image() -> None:
    card = read_card(thirdparty("sillytavern-1.18.0", "default_Seraphina.png").read_bytes(), "s.png")
    image = tiny_png()
    out = card_to_png(card, image)
    assert out.startswith(image[:-12]) and out.endswith(image[-12:])
