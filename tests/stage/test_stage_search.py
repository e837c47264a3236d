"""``lorebook_search`` scoring and result text (spec §8.4)."""

from __future__ import annotations

from peargarden.stage.lore.entries import LoreEntry
from peargarden.stage.lore.search import NO_HIT_TEXT, format_search_hits, search_entries, split_terms


def test_terms_split_on_non_letters_and_drop_single_characters() -> None:
    assert split_terms("镇北渡口，怀瑾 a  B2-x 雨") == ["镇北渡口", "怀瑾", "b2"]
    assert split_terms("") == [] and split_terms("！？ 的") == []
    assert split_terms("snake_case") == ["snake", "case"]


def test_searching_the_ferry_ranks_it_first_and_finds_huaijin_with_one(town_entries: list[LoreEntry]) -> None:
    hits = search_entries(town_entries, "镇北渡口")
    assert hits[0].entry.title == "镇北渡口"
    # key +5, title +3, body once +1
    assert hits[0].score == 9
    scores = {hit.entry.title: hit.score for hit in hits}
    assert scores["怀瑾"] == 1


def test_key_containment_works_both_ways(town_entries: list[LoreEntry]) -> None:
    # The term contains the key 怀瑾 (and the key 怀瑾公子 contains nothing longer): one +5 per term.
    scores = {h.entry.title: h.score for h in search_entries(town_entries, "怀瑾公子", limit=20)}
    assert scores["怀瑾"] == 5


def test_body_occurrences_are_capped_at_three() -> None:
    entry = LoreEntry(uid=1, keys=("无关",), comment="杂记", content="雨雨雨雨雨雨雨雨")
    assert search_entries([entry], "雨雨")[0].score == 3


def test_disabled_entries_and_zero_scores_are_left_out(town_entries: list[LoreEntry]) -> None:
    assert search_entries(town_entries, "量子力学") == []
    assert search_entries(town_entries, "") == []
    off = [LoreEntry(uid=e.uid, keys=e.keys, content=e.content, comment=e.comment, enabled=False) for e in town_entries]
    assert search_entries(off, "镇北渡口") == []


def test_limit_is_three_on_stage(town_entries: list[LoreEntry]) -> None:
    assert len(search_entries(town_entries, "青梧 听雨轩 镇北渡口 怀瑾 油纸伞")) == 3
    assert len(search_entries(town_entries, "青梧 听雨轩 镇北渡口 怀瑾 油纸伞", limit=20)) > 3


def test_result_text_names_title_keys_ref_book_and_body(town_entries: list[LoreEntry]) -> None:
    text = format_search_hits(search_entries(town_entries, "镇北渡口"))
    first = text.split("\n\n")[0].split("\n")
    ferry = next(e for e in town_entries if e.title == "镇北渡口")
    assert first == [
        "### 镇北渡口（关键词：镇北渡口、北渡）",
        f"ref: lore:{ferry.fp}",
        "来源：栖水镇",
        ferry.content,
    ]
    assert format_search_hits([]) == NO_HIT_TEXT
    assert "你" in NO_HIT_TEXT and "用户" in NO_HIT_TEXT
