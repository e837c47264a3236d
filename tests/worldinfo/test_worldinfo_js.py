"""JavaScript semantics the engine relies on: String(), JSON.stringify, the entry hash, regex keys."""

from __future__ import annotations

import pytest
from wi_helpers import make_entry as mk
from wi_helpers import scan, uids

from peargarden.worldinfo import WorldInfoSettings
from peargarden.worldinfo._js import UNDEFINED, number_to_string, object_keys, string_hash, stringify, truthy
from peargarden.worldinfo._jsregex import parse_key_regex


@pytest.mark.parametrize(
    ("value", "text"),
    [(100.0, "100"), (1.5, "1.5"), (1e21, "1e+21"), (1e-7, "1e-7"), (1.23e-5, "0.0000123"), (-0.5, "-0.5")],
)
def test_number_to_string_like_javascript(value: float, text: str) -> None:
    assert number_to_string(value) == text


def test_object_keys_put_array_indices_first() -> None:
    assert object_keys(["b", "10", "2", "a", "01"]) == ["2", "10", "b", "a", "01"]


def test_stringify_matches_json_stringify() -> None:
    value = {"名": "怀瑾\n\"听雨\"", "1": [1.0, None, True], "x": UNDEFINED, "0": {"b": 2, "a": 1}}
    assert stringify(value) == '{"0":{"b":2,"a":1},"1":[1,null,true],"名":"怀瑾\\n\\"听雨\\""}'


def test_string_hash_is_cyrb53_over_utf16() -> None:
    # Values from SillyTavern's getStringHash (the oracle case 40 hash is checked in the oracle test).
    assert string_hash("") == 3338908027751811
    assert string_hash("怀瑾") != string_hash("怀瑜")
    assert string_hash("😀") == string_hash("\ud83d\ude00".encode("utf-16", "surrogatepass").decode("utf-16"))


def test_truthiness() -> None:
    assert [truthy(v) for v in (0, 0.0, "", None, UNDEFINED, False, float("nan"))] == [False] * 7
    assert [truthy(v) for v in ([], {}, "0", -1, True)] == [True] * 5


@pytest.mark.parametrize(
    ("key", "text", "hit"),
    [
        ("/听.轩/", "听雨轩", True),
        ("/听.轩/", "听\r轩", False),  # JS '.' stops at \r too
        ("/听.轩/s", "听\r轩", True),
        ("/^怀瑾/y", "怀瑾来了", True),  # sticky: only at index 0
        ("/怀瑾/y", "说怀瑾", False),
        ("/\\w+/", "怀瑾", False),  # \w is ASCII
        ("/[\\W]{2}/", "怀瑾", True),
        ("/(?<n>怀)\\k<n>/", "怀怀", True),
        ("/a\\zb/", "azb", True),  # unknown escape = the letter
        ("/x{,2}/", "x{,2}", True),  # not a quantifier in JS
        ("/[^]/", "\n", True),
        ("/[]/", "anything", False),
        ("/怀瑾$/m", "怀瑾\r\n听雨", True),
        ("/听雨$/", "听雨\n", False),  # $ without m: the very end only
        ("/(?<=哥哥|弟)明/", "弟明", True),  # variable-length lookbehind is fine in JS
        ("/[\\s\\S]{2}怀/", "\n 怀", True),
        ("/(?:(a)|b)\\1c/", "bc", True),  # a group that did not take part matches empty
        ("/\\1怀/", "\x01怀", True),  # no group 1: a legacy octal escape
        ("/\\k<n>/", "k<n>", True),  # no named groups: \k is the letter k
        ("/怀??瑾/", "瑾", True),
        ("/\\W/i", "k", False),  # ASCII letters never fold onto the Kelvin sign
        ("/\\w/iu", "\u017f", True),  # with u and i, ſ counts as a word character
    ],
)
def test_regex_keys(key: str, text: str, hit: bool) -> None:
    regex = parse_key_regex(key)
    assert regex is not None
    assert regex.test(text) is hit


@pytest.mark.parametrize(
    "key",
    [
        "/a/b/", "/abc", "abc/", "/(/", "/x/gg", "//", "/(?i)怀瑾/", "/(?P<n>a)/", "/a++/", "/a{2}+/",
        "/\\b*/", "/^?/", "/(?<=a)*/", "/(?<n>a)(?<n>b)/", "/a{/u", "/\\k<m>(?<n>a)/",
    ],
)
def test_not_a_regex_key(key: str) -> None:
    assert parse_key_regex(key) is None


def test_only_the_first_escaped_slash_is_unescaped() -> None:
    regex = parse_key_regex("/a\\/b\\/c/")
    assert regex is not None and regex.test("a/b/c")


def test_entry_in_two_groups_removes_the_last_candidate_quirk() -> None:
    entries = [
        mk(0, key=["怀瑾"], group="甲,乙", groupOverride=True, order=50),
        mk(1, key=["怀瑾"], group="甲", groupOverride=True, order=90),
        mk(2, key=["怀瑾"], group="乙", groupOverride=True, order=90),
        mk(3, key=["怀瑾"]),
    ]
    # Candidates in scan order: 3 (order 100), 1, 2, 0.  Group 甲: 1 wins, 0 is removed.  Group 乙:
    # 2 wins and removes 0 again; 0 is gone, so splice(-1, 1) removes the LAST candidate — the
    # winner 2 itself.  SillyTavern 1.12.6 does exactly this.
    assert uids(scan(entries, [("User", "怀瑾")])) == [1, 3]


def test_sticky_member_wins_its_group() -> None:
    entries = [mk(0, key=["灯笼"], group="组", sticky=3), mk(1, key=["茶壶"], group="组", order=300)]
    first = scan(entries, [("User", "灯笼")], chat_length=2)
    assert uids(first) == [0]
    second = scan(entries, [("User", "茶壶")], chat_length=3, timed_world_info=first.timed_world_info)
    assert uids(second) == [0]


def test_whole_word_settings_per_entry_override() -> None:
    entries = [mk(0, key=["tea"], matchWholeWords=True), mk(1, key=["tea"])]
    assert uids(scan(entries, [("User", "teapot 茶壶")], settings=WorldInfoSettings())) == [1]
