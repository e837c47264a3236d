"""Lorebook entry edits stored the way SillyTavern's world-info editor stores them."""

from __future__ import annotations

import copy

import pytest

from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.formats.lorebook_edit import (
    add_entry,
    delete_entry,
    entry_fingerprint,
    split_keys,
    update_entry,
)


def _book() -> dict[str, object]:
    return {
        "entries": {
            "0": {"uid": 0, "key": ["渡口"], "keysecondary": [], "comment": "镇北渡口", "content": "渡口有船。",
                  "constant": False, "order": 100, "position": 0, "role": None, "probability": 100,
                  "useProbability": True, "thirdPartyField": {"keep": "我"}},
            "3": {"uid": 3, "key": ["茶"], "content": "茶馆。"},
        },
        "originalData": {"name": "卡内书", "entries": [
            {"uid": 0, "id": 0, "keys": ["渡口"], "insertion_order": 100, "enabled": True, "position": "before_char",
             "extensions": {"depth": 4, "x_custom": 1}},
        ]},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("渡口, 码头 ,  ", ["渡口", "码头"]),
        ("甲，乙, 丙", ["甲，乙", "丙"]),  # a Chinese comma is part of the key, as in SillyTavern
        ("/船(夫|家),?/i, 渡口", ["/船(夫|家),?/i", "渡口"]),  # a comma inside a regex key does not split
        ("a/b, c", ["a/b", "c"]),
    ],
)
def test_split_keys(text: str, keys: list[str]) -> None:
    assert split_keys(text) == keys


def test_an_edit_changes_only_the_named_fields_and_keeps_unknown_ones() -> None:
    book = _book()
    before = copy.deepcopy(book)
    out = update_entry(book, 0, {"key": "渡口, /船(夫|家)/", "order": 55.0, "group": "  天气 ", "groupWeight": -30,
                                 "probability": 140, "scanDepth": None, "caseSensitive": True})  # fmt: skip
    assert book == before  # the argument is left alone
    entry = out["entries"]["0"]  # type: ignore[index]
    assert entry["key"] == ["渡口", "/船(夫|家)/"]
    assert entry["order"] == 55 and isinstance(entry["order"], int)  # JS numbers: 55.0 is written 55
    assert entry["group"] == "天气" and entry["groupWeight"] == 30 and entry["probability"] == 100
    assert entry["scanDepth"] is None and entry["caseSensitive"] is True
    assert entry["thirdPartyField"] == {"keep": "我"}
    # Untouched fields keep their place; new ones are appended (JSON.stringify's insertion order).
    assert list(entry)[:11] == list(before["entries"]["0"])[:11]  # type: ignore[index]
    assert out["entries"]["3"] == before["entries"]["3"]  # type: ignore[index]


def test_position_role_and_probability_move_together() -> None:
    out = update_entry(_book(), 0, {"position": 4, "depth": 2})
    assert out["entries"]["0"]["role"] == 0  # type: ignore[index]  # at depth: a role (system by default)
    out = update_entry(out, 0, {"role": 1})
    assert out["entries"]["0"]["role"] == 1  # type: ignore[index]
    out = update_entry(out, 0, {"position": 1})
    assert out["entries"]["0"]["role"] is None  # type: ignore[index]
    out = update_entry(out, 0, {"useProbability": False})
    assert out["entries"]["0"]["probability"] is None  # type: ignore[index]
    out = update_entry(out, 0, {"useProbability": True})
    assert out["entries"]["0"]["probability"] == 100  # type: ignore[index]
    out = update_entry(out, 0, {"strategy": "vectorized"})
    assert (out["entries"]["0"]["constant"], out["entries"]["0"]["vectorized"]) == (False, True)  # type: ignore[index]
    out = update_entry(out, 0, {"delayUntilRecursion": 2})
    assert out["entries"]["0"]["delayUntilRecursion"] == 2  # type: ignore[index]


def test_the_card_book_twin_in_original_data_follows() -> None:
    out = update_entry(_book(), 0, {"key": ["渡口", "码头"], "order": 7, "disable": True, "position": 4, "sticky": 3})
    twin = out["originalData"]["entries"][0]  # type: ignore[index]
    assert twin["keys"] == ["渡口", "码头"] and twin["insertion_order"] == 7 and twin["enabled"] is False
    assert twin["position"] == "after_char" and twin["extensions"]["position"] == 4
    assert twin["extensions"]["role"] == 0 and twin["extensions"]["sticky"] == 3
    assert twin["extensions"]["x_custom"] == 1 and twin["id"] == 0
    gone = delete_entry(out, 0)
    assert "0" not in gone["entries"] and gone["originalData"]["entries"] == []  # type: ignore[index, operator]


@pytest.mark.parametrize(
    "changes",
    [{"nope": 1}, {"order": "十"}, {"position": 9}, {"role": True}, {"sticky": -1}, {"scanDepth": 1001},
     {"caseSensitive": "yes"}, {"triggers": ["dance"]}, {"key": 3}, {"groupWeight": 0}, {"strategy": "blue"}],
)
def test_bad_values_are_refused_with_the_field_named(changes: dict[str, object]) -> None:
    with pytest.raises(BadInput) as error:
        update_entry(_book(), 0, changes)
    assert next(iter(changes)) in str(error.value) or "strategy" in str(error.value)


def test_new_entries_get_the_editor_template_and_the_smallest_free_uid() -> None:
    out, uid = add_entry(_book(), {"comment": "新条目", "key": "雨"})
    assert uid == 1
    entry = out["entries"]["1"]  # type: ignore[index]
    assert entry["uid"] == 1 and entry["displayIndex"] == 1 and entry["comment"] == "新条目" and entry["key"] == ["雨"]
    assert entry["selective"] is True and entry["order"] == 100 and entry["probability"] == 100
    _, supplement_uid = add_entry({"entries": {"9000": {"uid": 9000}}}, uid_start=9000)
    assert supplement_uid == 9001


def test_a_stale_version_or_a_missing_entry_is_refused() -> None:
    book = _book()
    fp = entry_fingerprint(book["entries"]["0"])  # type: ignore[index]
    changed = update_entry(book, 0, {"order": 1}, fp)
    with pytest.raises(ConflictError):
        update_entry(changed, 0, {"order": 2}, fp)
    with pytest.raises(NotFound):
        update_entry(book, 42, {"order": 2})
    with pytest.raises(BadInput):
        update_entry({"entries": [{"uid": 0}]}, 0, {"order": 2})
