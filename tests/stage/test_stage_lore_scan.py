"""The stage's keyword scan (spec §8.3) and the short-CJK-key choice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from stage_fixtures import GREETING, QUESTION

from kit.examples import examples
from peargarden.stage.lore.entries import LoreEntry, entries_from_book, fingerprint, merge_books
from peargarden.stage.lore.scan import KeywordScanner, scan_window


def titles(entries: list[LoreEntry]) -> list[str]:
    return [e.title for e in entries]


def test_seed_round_one_hits_three_entries_sorted_by_order(town_entries: list[LoreEntry]) -> None:
    hits = KeywordScanner(town_entries).scan([GREETING, QUESTION])
    assert titles(hits) == ["听雨轩", "怀瑾", "镇北渡口"]
    assert [h.order for h in hits] == sorted(h.order for h in hits)


def test_at_most_max_hits_by_order(town_entries: list[LoreEntry]) -> None:
    text = "听雨轩的老梨树下，怀瑾在镇北渡口留下一把旧油纸伞。"
    scanner = KeywordScanner(town_entries)
    assert titles(scanner.scan([text])) == ["听雨轩", "怀瑾", "镇北渡口"]
    assert len(scanner.scan([text], max_hits=5)) == 5
    assert scanner.scan([text], max_hits=0) == []


def test_window_is_the_last_four_messages(town_entries: list[LoreEntry]) -> None:
    scanner = KeywordScanner(town_entries)
    messages = ["后院的老梨树开花了。", "嗯。", "好。", "走吧。", "雨停了。"]
    assert scanner.scan(messages) == []
    assert titles(scanner.scan(messages, depth=5)) == ["后院老梨树"]
    assert scan_window(["甲", "ABC"], 4) == "甲\nabc"


def test_constant_and_disabled_entries_are_not_scanned(town_entries: list[LoreEntry]) -> None:
    disabled = merge_books([town_entries], disabled=[town_entries[1].fp])
    hits = KeywordScanner(disabled).scan([GREETING])
    assert "听雨轩" not in titles(hits)
    assert all(not h.constant for h in KeywordScanner(town_entries).scan(["栖水镇概况 栖水镇"]))


def test_two_character_chinese_keys_match_by_our_choice() -> None:
    book = {"entries": [{"keys": ["渡口"], "content": "渡口的船一日两班，逢雨停航。", "comment": "渡口"}]}
    entries = entries_from_book(book)
    assert titles(KeywordScanner(entries).scan(["他去了渡口。"])) == ["渡口"]
    # Liyuan's JavaScript \b never matches around CJK: reproducible on request.
    assert KeywordScanner(entries, short_keys="liyuan").scan(["他去了渡口。"]) == []


def test_short_ascii_keys_need_word_boundaries() -> None:
    book = {"entries": [{"keys": ["ai"], "content": "AI 是镇上传说中的机关人。", "comment": "机关人"}]}
    scanner = KeywordScanner(entries_from_book(book))
    assert scanner.scan(["the rain falls"]) == []
    assert titles(scanner.scan(["听说 AI 会说话"])) == ["机关人"]
    assert titles(scanner.scan(["AI机关"])) == ["机关人"]  # a CJK neighbour is a boundary
    assert titles(KeywordScanner(entries_from_book(book), short_keys="liyuan").scan(["AI机关"])) == ["机关人"]


def test_selective_entries_need_a_secondary_key() -> None:
    book = {
        "entries": {
            "0": {
                "key": ["青梧"],
                "keysecondary": ["旧伞", "那把伞"],
                "selective": True,
                "comment": "青梧与伞",
                "content": "青梧每逢有人提起那把伞，就去擦它。",
            }
        }
    }
    scanner = KeywordScanner(entries_from_book(book))
    assert scanner.scan(["青梧在柜台后。"]) == []
    assert titles(scanner.scan(["青梧望着那把伞。"])) == ["青梧与伞"]


def test_english_fixture_from_the_upstream_tests() -> None:
    book = {
        "entries": {
            "0": {"uid": 0, "key": ["gloomhound"], "content": "A spectral hound.", "order": 10},
            "1": {"uid": 1, "key": ["wood", "mistvale"], "content": "Mistvale is a foggy wood.", "order": 20},
            "2": {"uid": 2, "key": ["elden"], "content": "Elden the hermit.", "order": 30},
            "3": {"uid": 3, "key": ["runes"], "content": "Runes glow at night.", "order": 40},
        }
    }
    scanner = KeywordScanner(entries_from_book(book))
    hits = scanner.scan(["I was chased by a Gloomhound through the woods."])
    assert [h.uid for h in hits] == [0, 1]
    assert scanner.scan(["她在雨里走了很久。"]) == []
    assert len(scanner.scan(["gloomhound wood elden runes"], max_hits=2)) == 2


def test_normalising_both_book_shapes() -> None:
    standalone = {
        "entries": {
            "7": {
                "uid": 7,
                "key": ["甲"],
                "keysecondary": ["乙"],
                "disable": True,
                "order": 5,
                "comment": "标题",
                "content": "内容\r\n第二行",
            }
        }
    }
    embedded = {
        "entries": [
            {
                "id": 3,
                "keys": ["甲"],
                "secondary_keys": ["乙"],
                "enabled": False,
                "insertion_order": 5,
                "name": "标题",
                "content": "内容\n第二行",
            }
        ]
    }
    a = entries_from_book(standalone, "书")[0]
    b = entries_from_book(embedded, "书")[0]
    assert (a.uid, b.uid) == (7, 3)
    for entry in (a, b):
        assert entry.keys == ("甲",) and entry.secondary_keys == ("乙",)
        assert (entry.enabled, entry.order, entry.comment, entry.content) == (
            False,
            5,
            "标题",
            "内容\n第二行",
        )
    assert a.fp == b.fp == fingerprint("  内容\n第二行 ")
    assert len(a.fp) == 12


def test_merge_dedupes_by_content_first_wins(town_entries: list[LoreEntry]) -> None:
    overlay = entries_from_book(
        {"entries": {"9000": {"key": ["别名"], "content": town_entries[1].content}}},
        "补充设定集",
        overlay=True,
    )
    merged = merge_books([town_entries, overlay])
    assert len(merged) == len(town_entries)
    assert merged[1].book == "栖水镇"


def _reference_scan(entries: list[LoreEntry], window: str, rule: str) -> list[int]:
    """One regex per key, the obvious way (what the automaton must agree with)."""
    import re

    def word(char: str) -> bool:
        return char.isascii() and (char.isalnum() or char == "_")

    def matches(key: str) -> bool:
        key = key.strip().lower()
        if not key:
            return False
        if len(key) > 2:
            return key in window
        for found in re.finditer(re.escape(key), window):
            start, end = found.start(), found.end()
            before = word(window[start - 1]) if start > 0 else False
            after = word(window[end]) if end < len(window) else False
            ok_start = before != word(key[0]) if (rule == "liyuan" or word(key[0])) else True
            ok_end = after != word(key[-1]) if (rule == "liyuan" or word(key[-1])) else True
            if ok_start and ok_end:
                return True
        return False

    hits = []
    for entry in entries:
        if not entry.green or not any(matches(k) for k in entry.keys):
            continue
        # Blank secondary keys count as none (books never produce them; the scanner ignores them).
        secondary = [k for k in entry.secondary_keys if k.strip()]
        if entry.selective and secondary and not any(matches(k) for k in secondary):
            continue
        hits.append(entry)
    hits.sort(key=lambda e: e.order)
    return [e.uid for e in hits]


_KEY = st.text(alphabet="雨伞渡口ab_1 ", min_size=1, max_size=4)


@settings(max_examples=examples(150), deadline=None)
@given(
    keys=st.lists(st.lists(_KEY, min_size=1, max_size=3), min_size=1, max_size=8),
    secondary=st.lists(st.lists(_KEY, max_size=2), min_size=8, max_size=8),
    text=st.text(alphabet="雨伞渡口ab_1 .，", max_size=40),
    rule=st.sampled_from(["edges", "liyuan"]),
)
def test_automaton_agrees_with_one_regex_per_key(
    keys: list[list[str]], secondary: list[list[str]], text: str, rule: str
) -> None:
    entries = [
        LoreEntry(uid=i, keys=tuple(k), secondary_keys=tuple(secondary[i]), selective=bool(secondary[i]),
                  content=f"条目{i}", order=(i * 7) % 5)
        for i, k in enumerate(keys)
    ]  # fmt: skip
    scanner = KeywordScanner(entries, short_keys=rule)  # type: ignore[arg-type]
    got = [e.uid for e in scanner.scan([text], max_hits=100)]
    assert got == _reference_scan(entries, text.lower(), rule)
