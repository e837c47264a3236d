"""Per-beat injection and the message list (spec §2.4, §2.5)."""

from __future__ import annotations

import msgspec
from stage_fixtures import GREETING, QUESTION

from peargarden.stage import LoreCorpus, PromptFiles, StageCard, StageSettings, Turn, assemble_beat
from peargarden.stage.injection import build_injection, passive_lore
from peargarden.stage.lore.entries import LoreEntry
from peargarden.stage.messages import SUMMARY_PREFIX, build_messages

FILES = PromptFiles(system="基座。", bundled_system="", working_directory="cards/青梧")


def beat(card: StageCard, entries: list[LoreEntry], thinking: str | None, **kw: object) -> list[dict[str, str]]:
    request = assemble_beat(
        FILES,
        card,
        StageSettings(language="中文"),
        LoreCorpus(entries),
        [Turn("assistant", GREETING)],
        QUESTION,
        thinking=thinking,
        tool_names=["lorebook_search"],
    )
    return request.messages


def test_thinking_on_lists_hit_titles_then_index_then_language_then_words(
    qingwu: StageCard, town_entries: list[LoreEntry]
) -> None:
    messages = beat(qingwu, town_entries, "medium")
    assert messages[0] == {"role": "assistant", "content": GREETING}
    last = messages[-1]
    assert last["role"] == "user"
    blocks = last["content"].split("\n\n")
    assert blocks[0] == "【相关设定】本拍命中 3 条：听雨轩、怀瑾、镇北渡口"
    assert blocks[1].startswith("【设定集索引】共 5 条：")
    assert blocks[2] == "【语言】以中文写叙事与对白（专有名词可保留原文）。"
    assert blocks[-1] == QUESTION
    # Titles only: no body of a hit is in the message.
    assert "老柳树" not in last["content"]


def test_thinking_off_gives_the_bodies(qingwu: StageCard, town_entries: list[LoreEntry]) -> None:
    content = beat(qingwu, town_entries, "off")[-1]["content"]
    lines = content.split("\n\n")[0].split("\n")
    assert lines[0] == "【相关设定】"
    by_title = {e.title: e.content for e in town_entries}
    assert lines[1:] == [f"- 【{t}】{by_title[t]}" for t in ("听雨轩", "怀瑾", "镇北渡口")]
    assert content.endswith(QUESTION)


def test_unknown_thinking_level_counts_as_off() -> None:
    assert passive_lore(None) and passive_lore("off") and passive_lore("turbo")
    assert not passive_lore("minimal") and not passive_lore("xhigh")


def test_post_history_instructions_only_without_dossier(qingwu: StageCard, town_entries: list[LoreEntry]) -> None:
    card = StageCard(**{**msgspec.structs.asdict(qingwu), "post_history_instructions": "{{char}}每拍不超过三百字。"})
    corpus = LoreCorpus(town_entries)
    plain = assemble_beat(FILES, card, StageSettings(), corpus, [], "你好", thinking="off")
    assert "【卡作者末端指令】\n青梧每拍不超过三百字。" in plain.messages[-1]["content"]
    dossier = PromptFiles(system="基座。", bundled_system="", working_directory=".", agents="## 规则\n有。")
    with_agents = assemble_beat(dossier, card, StageSettings(), corpus, [], "你好", thinking="off")
    assert "卡作者末端指令" not in with_agents.messages[-1]["content"]


def test_reserved_blocks_appear_only_when_filled() -> None:
    empty = build_injection(
        hits=[], thinking="medium", index_block="", language="中文", char_name="青梧", user_name="旅人"
    )
    assert empty.text == "【语言】以中文写叙事与对白（专有名词可保留原文）。"
    full = build_injection(
        hits=[],
        thinking="medium",
        index_block="",
        language="English",
        char_name="青梧",
        user_name="旅人",
        world_state="",
        roster="",
        memory="旧事一段",
    )
    assert full.text.split("\n\n")[:3] == [
        "【世界状态】\n（尚无记录）",
        "【登场名录】（尚无登记）",
        "【剧情记忆】\n旧事一段",
    ]
    assert full.text.endswith("【语言】以English写叙事与对白（专有名词可保留原文）。")
    unknown = build_injection(
        hits=[], thinking="medium", index_block="", language="", char_name="青梧", user_name="旅人", memory="旧事"
    )
    assert "【语言】" not in unknown.text and unknown.text == "【剧情记忆】\n旧事"


def test_message_list_merges_roles_drops_empties_and_puts_words_last() -> None:
    history = [
        Turn("assistant", "开场。"),
        Turn("user", "甲"),
        Turn("user", " "),
        Turn("user", "乙"),
        Turn("assistant", "丙"),
    ]
    messages = build_messages(history, "丁", "【语言】以中文写叙事与对白（专有名词可保留原文）。", summary="早先的事。")
    assert messages == [
        {"role": "user", "content": SUMMARY_PREFIX + "早先的事。"},
        {"role": "assistant", "content": "开场。"},
        {"role": "user", "content": "甲\n\n乙"},
        {"role": "assistant", "content": "丙"},
        {"role": "user", "content": "【语言】以中文写叙事与对白（专有名词可保留原文）。\n\n丁"},
    ]
    pending = build_messages([Turn("assistant", "开场。"), Turn("user", "先前没答完的话")], "", "【数据】")
    assert pending[-1] == {"role": "user", "content": "【数据】\n\n先前没答完的话"}


def test_scan_sees_greeting_and_new_words_but_not_older_than_four(
    qingwu: StageCard, town_entries: list[LoreEntry]
) -> None:
    history = [Turn("assistant", GREETING), Turn("user", "嗯"), Turn("assistant", "好"), Turn("user", "走")]
    request = assemble_beat(
        FILES, qingwu, StageSettings(), LoreCorpus(town_entries), history, "怀瑾呢？", thinking="low"
    )
    assert [h.title for h in request.hits] == ["怀瑾"]
