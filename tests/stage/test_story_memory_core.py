"""The pure story-memory core: ledger patches, lenient parsing, blocks and caps, compaction cut,
budget, resident memory, recall, work-mode exclusion."""

from __future__ import annotations

from peargarden.stage.memory import Ledger, apply_patch, fit_history, format_roster, format_state, parse_patch
from peargarden.stage.memory.blocks import ROSTER_SECTION_MAX
from peargarden.stage.memory.compaction import plan_compaction
from peargarden.stage.memory.ledger import ROSTER_CAPS
from peargarden.stage.memory.recall import recall_block, terms
from peargarden.stage.memory.resident import CUT_MARK, resident_block, resident_budget
from peargarden.stage.memory.story import StoryItem, dialogue_lines, story_items
from peargarden.stage.memory.view import StoryView, budget_messages
from peargarden.stage.messages import Turn


def test_patch_merges_people_per_field_and_replaces_lists() -> None:
    first = apply_patch(
        Ledger(),
        {
            "time": "第三日 黄昏",
            "location": "渡口",
            "characters": {"沈 青": {"affinity": 20, "status": "受伤", "at": "船上"}},
            "inventory": ["铜钥匙（沈青）", 3],
            "flags": {"渡船已开": True, "城门": "已关"},
            "plot_threads": ["寻找怀瑾"],
            "mood": "紧张",
        },
    )
    assert first.changed
    assert any("不是文字" in w for w in first.warnings) and any("mood" in w for w in first.warnings)
    second = apply_patch(
        first.ledger,
        {
            "characters": {"沈青": {"affinity": 90, "notes": "欠阿远一个人情"}, "老艄公": {"affinity": "+4"}},
            "inventory": [],
            "flags": {"城门": None},
            "plot_threads": ["寻找怀瑾", "铜钥匙开哪扇门"],
        },
    )
    ledger = second.ledger
    person = ledger.characters["沈 青"]  # the first spelling stays; 「沈青」 is the same person
    assert (person.affinity, person.status, person.notes, person.at) == (30, "受伤", "欠阿远一个人情", "船上")
    assert ledger.characters["老艄公"].affinity == 4
    assert ledger.inventory == [] and ledger.flags == {"渡船已开": "是"}
    assert ledger.roster["characters"] == {"沈 青": "第三日 黄昏", "老艄公": "第三日 黄昏"}
    assert ledger.roster["items"] == {"铜钥匙（沈青）": "第三日 黄昏"}
    assert list(ledger.roster["events"]) == ["寻找怀瑾", "铜钥匙开哪扇门"]
    assert first.ledger.characters["沈 青"].affinity == 20  # the old ledger is untouched
    removed = apply_patch(ledger, {"characters": {"老艄公": None}})
    assert "老艄公" not in removed.ledger.characters and "老艄公" in removed.ledger.roster["characters"]
    assert not apply_patch(ledger, {}).changed
    assert Ledger.from_json(ledger.to_json()).to_json() == ledger.to_json()


def test_affinity_stays_in_range() -> None:
    ledger = apply_patch(Ledger(), {"characters": {"甲": {"affinity": 500}}}).ledger
    assert ledger.characters["甲"].affinity == 100
    ledger = apply_patch(ledger, {"characters": {"甲": {"affinity": "+9"}}}).ledger
    assert ledger.characters["甲"].affinity == 100
    ledger = apply_patch(ledger, {"characters": {"甲": {"affinity": -100}}}).ledger
    assert ledger.characters["甲"].affinity == 90


def test_lenient_parsing() -> None:
    assert parse_patch('```json\n{"patch": {"time": "夜"}}\n```') == {"time": "夜"}
    assert parse_patch('场记：{"patch": {"flags": {"暗号": "}{"}}} 完') == {"flags": {"暗号": "}{"}}
    assert parse_patch('先说明 {不是 JSON} 再给 {"patch": {}}') == {}
    assert parse_patch('{"location": "桥头"}') == {"location": "桥头"}
    assert parse_patch('{"ok": true}') == {}
    assert parse_patch("我无法完成。") is None
    assert parse_patch('{"patch": {"time": "夜"') is None


def test_state_and_roster_blocks() -> None:
    ledger = apply_patch(
        Ledger(),
        {
            "time": "子时",
            "location": "听雨轩",
            "characters": {"周伯": {"affinity": 5, "status": "困倦", "notes": "藏着账本"}},
            "inventory": ["油纸伞", "账本"],
            "flags": {"雨": "未停"},
            "plot_threads": ["账本的来历", "怀瑾"],
        },
    ).ledger
    assert format_state(ledger) == (
        "时间：子时\n地点：听雨轩\n周伯：好感 5；状态：困倦；备注：藏着账本\n物品：油纸伞、账本\n雨：未停\n"
        "剧情线：「账本的来历」 「怀瑾」"
    )
    assert (
        format_roster(ledger)
        == "人物：周伯（子时）；物品：油纸伞（子时）、账本（子时）；剧情线：账本的来历（子时）、怀瑾（子时）"
    )
    assert format_state(Ledger()) == "" and format_roster(Ledger()) == ""


def test_roster_caps_and_fallback_to_bare_names() -> None:
    ledger = Ledger(time="第一百零八日傍晚，雨停之后又过了一个多时辰，城南钟楼敲过了三遍更鼓")
    people = {f"路人{n:03d}": {"status": "过客"} for n in range(150)}
    ledger = apply_patch(ledger, {"characters": people}).ledger
    assert len(ledger.roster["characters"]) == ROSTER_CAPS["characters"]
    assert all(len(seen) == 30 for seen in ledger.roster["characters"].values())
    roster = format_roster(ledger)
    assert roster.startswith("人物：路人000、路人001、") and "（" not in roster
    assert len("、".join(f"{n}（{s}）" for n, s in ledger.roster["characters"].items())) > ROSTER_SECTION_MAX


def _story(*pairs: tuple[str, str]) -> list[StoryItem]:
    return [StoryItem(f"e{i}", {"role": role, "content": text}) for i, (role, text) in enumerate(pairs)]


def test_compaction_cut_keeps_the_last_rounds() -> None:
    items = _story(*[pair for n in range(8) for pair in (("user", f"问{n}"), ("assistant", "答" * 400))])
    assert plan_compaction(items, keep_rounds=6, every=30) is None
    assert plan_compaction(items, keep_rounds=6, every=2) is None  # 804 characters: not worth it
    plan = plan_compaction(items, keep_rounds=6, every=2, min_chars=500)
    assert plan is not None and plan.turns == 2 and plan.covers_through_id == "e3" and plan.chars == 804
    assert plan_compaction(items, keep_rounds=6, every=0, over_budget=True, min_chars=1) == plan
    assert plan_compaction(items[:12], keep_rounds=6, every=0, over_budget=True, min_chars=1) is None


def test_work_mode_messages_are_not_story() -> None:
    switch = {"id": "s1", "type": "function",
              "function": {"name": "conversation_mode", "arguments": '{"mode": "authoring"}'}}  # fmt: skip
    items = [
        StoryItem("a", {"role": "user", "content": "走吧"}),
        StoryItem("b", {"role": "assistant", "content": "两人出了门。"}),
        # Sent in role play; the model then switched itself into work mode: the whole beat is work.
        StoryItem("c", {"role": "user", "content": "帮我把开场白改短一点"}),
        StoryItem("d", {"role": "assistant", "content": "", "tool_calls": [switch]}),
        StoryItem("e", {"role": "tool", "content": "已切换", "tool_call_id": "s1"}),
        StoryItem("f", {"role": "assistant", "content": "改好了", "tags": ["work"]}),
        StoryItem("g", {"role": "user", "content": "写卡维护：再看看", "tags": ["work"]}),
        StoryItem("h", {"role": "assistant", "content": "没问题", "tags": ["写卡维护"]}),
        StoryItem("i", {"role": "user", "content": "到渡口了吗"}),
        StoryItem("j", {"role": "assistant", "content": "柳树就在前面。"}),
    ]
    kept = story_items(items)
    assert [item.entry_id for item in kept] == ["a", "b", "i", "j"]
    lines = dialogue_lines(kept, "阿远", "周伯")
    assert lines == ["阿远：走吧", "周伯：两人出了门。", "阿远：到渡口了吗", "周伯：柳树就在前面。"]


def test_budget_keeps_the_newest_contiguous_turns() -> None:
    turns = [Turn("assistant", "甲" * 50), Turn("user", "乙" * 10), Turn("assistant", "丙" * 10)]
    cut = fit_history(turns, 30, len)
    assert [t.text[0] for t in cut.kept] == ["乙", "丙"] and cut.dropped == 1 and "1 条" in cut.warning
    view = StoryView(summary="前情", context_tokens=10_000, reserve_tokens=0)
    messages, warning = budget_messages(view, "系统", turns, "说话", "【语言】中文")
    assert warning == "" and messages[0]["content"].startswith("【前情提要】") and len(messages) == 5
    view = StoryView(context_tokens=200, reserve_tokens=0)
    messages, warning = budget_messages(view, "系" * 150, turns, "说话", "【语言】中文")
    assert "最早的 1 条" in warning and messages[0]["content"] == "乙" * 10 and len(messages) == 3


def test_resident_memory_is_cut_at_a_paragraph() -> None:
    text = "\n\n".join(f"第{n}段：" + "记" * 290 for n in range(5))
    budget = resident_budget("摘" * 3000, "", "")
    assert budget == 1200
    block = resident_block(text, budget)
    assert block.endswith(CUT_MARK) and len(block) <= 1200 and block.count("段：") == 4
    assert resident_block(text, resident_budget("摘" * 4150, "", "")) == ""
    assert resident_block("短短一句。", 10) == "短短一句。"


def test_recall_matches_cjk_bigrams() -> None:
    assert terms("怀瑾公子 Tea2") == ["怀瑾", "瑾公", "公子", "tea2"]
    docs = ["周伯在柜台后打盹。", "十年前怀瑾公子从镇北渡口离开。", "雨一直下。"]
    assert recall_block(docs, "还记得怀瑾吗") == "- 十年前怀瑾公子从镇北渡口离开。"
    assert recall_block(docs, "宇宙飞船") == ""
    assert recall_block(docs, "怀瑾", expired=lambda: True) == ""
