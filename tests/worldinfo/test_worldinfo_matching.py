"""Key matching: whole words with CJK, case, multi-word keys, regex keys, secondary logic, scan depth."""

from __future__ import annotations

from wi_helpers import make_entry as mk
from wi_helpers import scan, uids

from peargarden.worldinfo import WorldInfoSettings

WHOLE = WorldInfoSettings(match_whole_words=True)


def test_cjk_key_matches_inside_chinese_text_with_whole_words() -> None:
    result = scan([mk(0, key=["怀瑾"])], [("林月", "你认识怀瑾吗？他住在听雨轩。")], settings=WHOLE)
    assert uids(result) == [0]


def test_ascii_letter_next_to_cjk_key_blocks_whole_word_match() -> None:
    entries = [mk(0, key=["绿茶"]), mk(1, key=["绿茶"], matchWholeWords=False)]
    result = scan(entries, [("User", "来一杯绿茶latte")], settings=WHOLE)
    assert uids(result) == [1]


def test_english_whole_word_and_substring() -> None:
    entries = [mk(0, key=["pot"]), mk(1, key=["pot"], matchWholeWords=False), mk(2, key=["tea pot"])]
    result = scan(entries, [("User", "这个teapot很漂亮, a tea pot indeed")], settings=WHOLE)
    # "pot" is glued to "tea" in "teapot", but stands alone in "tea pot"
    assert uids(result) == [0, 1, 2]
    only_glued = scan(entries[:2], [("User", "这个teapot很漂亮")], settings=WHOLE)
    assert uids(only_glued) == [1]


def test_multi_word_key_is_a_plain_substring() -> None:
    result = scan([mk(0, key=["rainy after"])], [("User", "a calm rainy afternoon")], settings=WHOLE)
    assert uids(result) == [0]


def test_case_sensitivity_global_and_per_entry() -> None:
    entries = [mk(0, key=["Huaijin"]), mk(1, key=["Huaijin"], caseSensitive=True)]
    result = scan(entries, [("User", "huaijin 来了")])
    assert uids(result) == [0]
    strict = scan(entries, [("User", "huaijin 来了")], settings=WorldInfoSettings(case_sensitive=True))
    assert uids(strict) == []


def test_scan_depth_global_and_per_entry() -> None:
    chat = [("林月", "听雨轩在西湖边。"), ("User", "好的"), ("林月", "请坐"), ("User", "谢谢")]
    entries = [mk(0, key=["听雨轩"]), mk(1, key=["听雨轩"], scanDepth=4), mk(2, key=["听雨轩"], scanDepth=0)]
    assert uids(scan(entries, chat)) == [1]
    deeper = scan(entries, chat, settings=WorldInfoSettings(depth=4))
    assert uids(deeper) == [0, 1]


def test_names_are_part_of_the_scan_text() -> None:
    entries = [mk(0, key=["林月"])]
    assert uids(scan(entries, [("林月", "你好")])) == [0]
    without = scan(entries, [("林月", "你好")], settings=WorldInfoSettings(include_names=False))
    assert uids(without) == []


def test_regex_keys_run_on_the_raw_buffer() -> None:
    entries = [
        mk(0, key=["/^林月:/m"]),  # every segment starts with \x01, so ^ never hits a message start
        mk(1, key=["/林月:/"]),
        mk(2, key=["/(?<year>\\d{4})年/"]),
        mk(3, key=["/DRAGON/i"]),
        mk(4, key=["/\\bdragon\\b/"]),  # JS \b is ASCII: "dragons" has no boundary after "dragon"
        mk(5, key=["/怀瑾$/"]),  # $ without m is the very end of the buffer only
    ]
    result = scan(entries, [("林月", "2023年我见过两条dragons。"), ("User", "真的吗")])
    assert uids(result) == [1, 2, 3]


def test_invalid_regex_key_is_matched_as_text_with_a_warning() -> None:
    result = scan([mk(0, key=["/怀瑾(/"])], [("User", "他写了/怀瑾(/这几个字")])
    assert uids(result) == [0]
    assert any("怀瑾" in w for w in result.warnings)


def test_secondary_key_logic() -> None:
    text = [("User", "怀瑾在听雨轩喝茶")]
    entries = [
        mk(0, key=["怀瑾"], keysecondary=["听雨轩", "西湖"], selectiveLogic=0),  # AND ANY: hit
        mk(1, key=["怀瑾"], keysecondary=["听雨轩", "西湖"], selectiveLogic=1),  # NOT ALL: hit
        mk(2, key=["怀瑾"], keysecondary=["听雨轩", "西湖"], selectiveLogic=2),  # NOT ANY: miss
        mk(3, key=["怀瑾"], keysecondary=["听雨轩", "西湖"], selectiveLogic=3),  # AND ALL: miss
        mk(4, key=["怀瑾"], keysecondary=["听雨轩", "喝茶"], selectiveLogic=3),  # AND ALL: hit
        mk(5, key=["怀瑾"], keysecondary=["西湖"], selective=False),  # not selective: ignored
        mk(6, key=["怀瑾"], keysecondary=["西湖"], selectiveLogic="0"),  # "0" !== 0: never passes
    ]
    assert uids(scan(entries, text)) == [0, 1, 4, 5]


def test_missing_selective_ignores_secondary_keys() -> None:
    entry = mk(0, key=["怀瑾"], keysecondary=["西湖"])
    del entry["selective"]
    assert uids(scan([entry], [("User", "怀瑾")])) == [0]


def test_macros_apply_to_keys() -> None:
    result = scan(
        [mk(0, key=["{{char}}的剑"])],
        [("User", "林月的剑叫听雨")],
        macro=lambda text: text.replace("{{char}}", "林月"),
    )
    assert uids(result) == [0]


def test_injected_scan_text_is_scanned() -> None:
    result = scan([mk(0, key=["听雨轩"])], [("User", "你好")], inject_scan=["[作者注] 场景在听雨轩"])
    assert uids(result) == [0]


def test_empty_key_never_matches_but_a_blank_key_matches_everything() -> None:
    # ST skips a key whose macro result is '' but trims only afterwards: "  " becomes '' and
    # '' is found in any text.
    assert uids(scan([mk(0, key=[""])], [("User", "怀瑾")])) == []
    assert uids(scan([mk(0, key=["  "])], [("User", "怀瑾")])) == [0]
    assert uids(scan([mk(0, key=["  "])], [("User", "怀瑾")], settings=WHOLE)) == [0]
