"""Lorebooks: standalone world info ⇄ embedded character_book, Chinese keys, SillyTavern fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.thirdparty import thirdparty
from peargarden.errors import FormatError
from peargarden.formats import (
    WI_ENTRY_DEFAULTS,
    character_book_from_lorebook,
    detect_kind,
    fill_entry_defaults,
    lorebook_from_character_book,
    new_entry,
    new_lorebook,
    next_uid,
    read_card,
    read_lorebook,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "formats" / "oracle-18-embedded-book"


def _book() -> dict:  # type: ignore[type-arg]
    return new_lorebook(
        [
            new_entry(0, key=[], content="栖水镇是江南水乡的小镇，常年多雨。", constant=True, comment="栖水镇"),
            new_entry(
                1,
                key=["怀瑾", "怀瑾公子"],
                keysecondary=["渡口"],
                content="怀瑾是十年前离开的年轻公子，最后一次出现是在镇北渡口。",
                comment="怀瑾",
                selective=False,
                order=90,
                position=4,
                depth=2,
                role=1,
                probability=70,
                group="旧人",
                sticky=2,
                extensions={"第三方": {"保留": True}},
            ),
            new_entry(2, key=["听雨轩"], content="听雨轩是镇上唯一的客栈。", disable=True, position=1),
        ]
    )


def test_new_entry_has_the_full_default_field_set() -> None:
    entry = new_entry(7, key=["梨园"])
    assert entry["uid"] == 7 and entry["displayIndex"] == 7 and entry["key"] == ["梨园"]
    for field, value in WI_ENTRY_DEFAULTS.items():
        if field != "key":
            assert entry[field] == value
    assert entry["order"] == 100 and entry["selective"] is True and entry["depth"] == 4


def test_fill_entry_defaults_keeps_values_and_adds_missing() -> None:
    filled = fill_entry_defaults({"uid": 3, "key": ["梨"], "selective": False})
    assert filled["selective"] is False and filled["probability"] == 100 and filled["displayIndex"] == 3


def test_next_uid_is_smallest_unused() -> None:
    assert next_uid({"entries": {"0": {}, "1": {}, "3": {}}}) == 2
    assert next_uid({"entries": {}}) == 0


def test_standalone_to_embedded_mapping() -> None:
    embedded = character_book_from_lorebook(_book(), "栖水镇")
    assert embedded["name"] == "栖水镇" and embedded["extensions"] == {}
    first, second, third = embedded["entries"]
    assert first["constant"] is True and first["position"] == "before_char"
    assert second["keys"] == ["怀瑾", "怀瑾公子"] and second["secondary_keys"] == ["渡口"]
    assert second["insertion_order"] == 90 and second["position"] == "after_char"
    ext = second["extensions"]
    assert (ext["position"], ext["depth"], ext["role"], ext["probability"], ext["group"], ext["sticky"]) == (
        4,
        2,
        1,
        70,
        "旧人",
        2,
    )
    assert ext["第三方"] == {"保留": True}
    assert third["enabled"] is False and third["use_regex"] is True


def test_standalone_embedded_standalone_keeps_mapped_fields() -> None:
    book = _book()
    back = lorebook_from_character_book(character_book_from_lorebook(book, "栖水镇"), editor_resave=False)
    for uid, entry in book["entries"].items():
        again = back["entries"][uid]
        for field, value in entry.items():
            if field != "addMemo":  # derived from the comment by SillyTavern's mapping
                assert again[field] == value, (uid, field)


def test_editor_resave_forces_selective_like_sillytavern() -> None:
    embedded = character_book_from_lorebook(_book())
    assert lorebook_from_character_book(embedded)["entries"]["1"]["selective"] is True
    assert lorebook_from_character_book(embedded, editor_resave=False)["entries"]["1"]["selective"] is False


def test_embedded_without_ids_or_with_duplicates_loses_nothing() -> None:
    embedded = {
        "entries": [
            {"keys": ["甲"], "content": "一", "enabled": True, "insertion_order": 1, "extensions": {}},
            {"id": 0, "keys": "乙", "content": "二", "enabled": True, "insertion_order": 2, "extensions": {}},
            {
                "id": 0,
                "keys": ["丙"],
                "content": "三",
                "enabled": False,
                "insertion_order": 3,
                "extensions": {},
            },
        ]
    }
    book = lorebook_from_character_book(embedded)
    assert sorted(e["content"] for e in book["entries"].values()) == ["一", "三", "二"]
    assert [e["key"] for e in book["entries"].values()] == [["甲"], ["乙"], ["丙"]]
    assert book["entries"]["2"]["disable"] is True
    assert all(str(e["uid"]) == k for k, e in book["entries"].items())


def test_matches_sillytavern_import_of_oracle_card_book() -> None:
    """Oracle case 18: ST 1.12.6 imported the card's book ("Import Card Lore") and saved it."""
    card = read_card((DATA / "card.png").read_bytes(), "card.png")
    assert card.character_book is not None
    ours = lorebook_from_character_book(card.character_book, card.character_book["name"])
    theirs = json.loads((DATA / "world_generated.json").read_text("utf-8"))
    assert ours["originalData"] == theirs["originalData"]
    # ST's editor re-save writes null role and 0 timers, which mean the same as ours.
    same_meaning = {"role": (None, 0), "sticky": (0, None), "cooldown": (0, None), "delay": (0, None)}
    for uid, expected in theirs["entries"].items():
        for field, value in expected.items():
            got = ours["entries"][uid][field]
            assert got == value or same_meaning.get(field) == (value, got), (uid, field)


def test_matches_sillytavern_book_written_back_into_card() -> None:
    world = json.loads((DATA / "world_generated.json").read_text("utf-8"))
    after = json.loads((DATA / "card_after_run.json").read_text("utf-8"))["data"]["character_book"]
    # card_after_run was written from the converter's output (before the editor re-save)
    card = read_card((DATA / "card.png").read_bytes(), "card.png")
    assert card.character_book is not None
    converted = lorebook_from_character_book(card.character_book, editor_resave=False)
    ours = character_book_from_lorebook(converted, "Shen Mo Lore")
    assert ours["name"] == after["name"]
    assert len(ours["entries"]) == len(after["entries"]) == len(world["entries"])
    for mine, theirs in zip(ours["entries"], after["entries"], strict=True):
        for field, value in theirs.items():
            if field == "extensions":
                # ST writes use_group_scoring null as false (turning "global" into "off"); we keep null.
                expected = {**value, "use_group_scoring": None}
                assert {k: mine["extensions"][k] for k in value} == expected
            else:
                assert mine[field] == value, field


def test_eldoria_fixture() -> None:
    raw = thirdparty("sillytavern-1.12.6", "Eldoria.json").read_bytes()
    assert detect_kind(raw, "Eldoria.json") == "lorebook"
    book = read_lorebook(raw, "Eldoria.json")
    assert sorted(book["entries"]) == ["0", "1", "2", "3"]
    assert book == json.loads(raw)  # read keeps entries exactly as stored
    embedded = character_book_from_lorebook(book, "Eldoria")
    back = lorebook_from_character_book(embedded, editor_resave=False)
    for uid, entry in book["entries"].items():
        for field, value in entry.items():
            assert back["entries"][uid][field] == value


def test_lorebook_v3_and_bare_embedded_files_are_read_as_standalone() -> None:
    inner = {"name": "栖水镇", "entries": [{"keys": ["渡口"], "content": "镇北渡口", "enabled": True}]}
    for obj in ({"spec": "lorebook_v3", "data": inner}, inner):
        book = read_lorebook(json.dumps(obj, ensure_ascii=False).encode(), "v3.json")
        assert book["entries"]["0"]["key"] == ["渡口"]
        assert book["originalData"]["name"] == "栖水镇"


def test_standalone_entries_given_as_a_list_are_keyed_by_uid() -> None:
    listed = {"entries": [{"uid": 5, "key": ["听雨轩"], "content": "客栈"}, {"key": ["渡口"], "content": "镇北"}]}
    book = read_lorebook(json.dumps(listed, ensure_ascii=False).encode(), "list.json")
    assert sorted(book["entries"]) == ["1", "5"]
    assert book["entries"]["5"]["key"] == ["听雨轩"] and book["entries"]["1"]["uid"] == 1


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ({"name": "无条目"}, "不是世界书"),
        ({"entries": {"0": "文本"}}, "不是世界书"),
        ({"entries": {"0": {"key": "怀瑾"}}}, "字符串列表"),
        ({"spec": "lorebook_v3", "data": {"entries": {}}}, "不是列表"),
    ],
)
def test_bad_lorebooks(obj: dict, needle: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(FormatError) as info:
        read_lorebook(json.dumps(obj, ensure_ascii=False).encode(), "坏书.json")
    assert needle in info.value.message and info.value.path == "坏书.json"
