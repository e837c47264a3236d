"""Pure edits of a book's JSON for the write tools (spec §8.1, §8.5)."""

from __future__ import annotations

import json

from stage_fixtures import town_book

from peargarden.stage.lore.book import (
    SUPPLEMENT_UID_START,
    add_book_entry,
    delete_book_entry,
    dump_book,
    new_supplement_book,
    update_book_entry,
)
from peargarden.stage.lore.entries import entries_from_book, fingerprint


def test_supplement_uids_start_at_9000_and_both_field_families_are_written() -> None:
    first = add_book_entry(
        new_supplement_book(),
        title="老周",
        keys=["老周", "摆渡人", "老周"],
        content="老周是镇北渡口的哑巴船夫。",
        uid_start=SUPPLEMENT_UID_START,
    )
    assert first is not None
    book, uid = first
    assert uid == 9000
    raw = book["entries"]["9000"]
    assert raw["key"] == raw["keys"] == ["老周", "摆渡人"]
    assert raw["comment"] == raw["name"] == "老周"
    assert (raw["order"], raw["insertion_order"], raw["disable"], raw["enabled"]) == (100, 100, False, True)
    second = add_book_entry(book, title="规矩", keys=["规矩"], content="夜里不渡河。", uid_start=9000)
    assert second is not None and second[1] == 9001
    entries = entries_from_book(second[0], "补充设定集", overlay=True)
    assert [e.title for e in entries] == ["老周", "规矩"]


def test_duplicate_content_is_refused() -> None:
    book, _ = add_book_entry(new_supplement_book(), title="甲", keys=["甲"], content="同一段话。") or ({}, 0)
    assert add_book_entry(book, title="乙", keys=["乙"], content="  同一段话。 ") is None


def test_write_into_a_mounted_book_keeps_its_shape_and_unknown_fields() -> None:
    original = town_book()
    original["entries"]["1"]["extensions"] = {"作者": "我"}
    added = add_book_entry(original, title="新地名", keys=["新地名"], content="镇东新开了一家药铺。")
    assert added is not None
    book, uid = added
    assert uid == 6 and str(uid) in book["entries"]
    assert book["entries"]["1"]["extensions"] == {"作者": "我"}
    assert "6" not in original["entries"]  # the input is not changed
    embedded = {"entries": [{"id": 4, "keys": ["甲"], "content": "甲的内容。"}]}
    grown = add_book_entry(embedded, title="乙", keys=["乙"], content="乙的内容。")
    assert grown is not None and grown[1] == 5 and len(grown[0]["entries"]) == 2


def test_update_and_delete_by_fingerprint() -> None:
    book = town_book()
    fp = fingerprint(book["entries"]["3"]["content"])
    updated = update_book_entry(book, fp, content="镇北渡口已经废弃。", keys=["镇北渡口"])
    assert updated is not None
    assert updated["entries"]["3"]["content"] == "镇北渡口已经废弃。"
    assert updated["entries"]["3"]["key"] == ["镇北渡口"]
    assert update_book_entry(book, "000000000000", title="无") is None
    removed = delete_book_entry(updated, fingerprint("镇北渡口已经废弃。"))
    assert removed is not None and "3" not in removed["entries"]


def test_dump_is_tab_indented_readable_json_with_a_newline() -> None:
    text = dump_book({"entries": {"9000": {"content": "雨"}}})
    assert text.endswith("}\n") and "\t" in text and "雨" in text
    assert json.loads(text) == {"entries": {"9000": {"content": "雨"}}}
