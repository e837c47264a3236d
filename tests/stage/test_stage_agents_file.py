"""Creating AGENTS.md from the projection, and the lorebook mirror (spec §8.10)."""

from __future__ import annotations

from dataclasses import replace

import msgspec

from peargarden.stage import StageCard
from peargarden.stage.agents_file import agents_from_projection, sync_lorebook_mirror
from peargarden.stage.entries import parse_entries, render_for_model, toggle_entry
from peargarden.stage.lore.entries import LoreEntry


def test_created_dossier_keeps_everything_the_card_said(qingwu: StageCard, town_entries: list[LoreEntry]) -> None:
    card = msgspec.structs.replace(
        qingwu,
        system_prompt="不写旁白。",
        post_history_instructions="每拍三百字以内。",
        mes_example="<START>\n{{char}}：客官请。",
    )
    text = agents_from_projection(card, town_entries)
    names = [e.name for e in parse_entries(text)]
    assert names == [
        "青梧",
        "角色描述（角色卡）",
        "性格（角色卡）",
        "当前场景（角色卡）",
        "对白示例（仅供文风与语气参考，不是已发生的剧情）（角色卡）",
        "卡作者附加指令（角色卡）",
        "卡作者末端指令（角色卡）",
        "栖水镇概况（世界书·栖水镇）",
    ]
    assert all(e.program_owned for e in parse_entries(text)[1:])
    rendered = render_for_model(text)
    for field in (card.description, card.personality, card.scenario, "不写旁白。", "每拍三百字以内。"):
        assert field in rendered
    assert "镇北渡口" not in rendered  # keyword entries stay in the lorebook


def test_mirror_follows_mount_unmount_and_edits(town_entries: list[LoreEntry]) -> None:
    user_part = "## 我的规矩\n不替用户说话。\n"
    mounted = sync_lorebook_mirror(user_part, town_entries)
    assert [e.name for e in parse_entries(mounted)] == ["我的规矩", "栖水镇概况（世界书·栖水镇）"]
    assert sync_lorebook_mirror(mounted, town_entries) is mounted  # untouched when current
    edited = [replace(e, content="栖水镇如今改叫栖水县。", fp="") if e.constant else e for e in town_entries]
    changed = sync_lorebook_mirror(mounted, edited)
    assert "栖水县" in changed and "江南水乡" not in changed
    unmounted = sync_lorebook_mirror(mounted, [])
    assert unmounted.strip() == user_part.strip()


def test_mirror_never_touches_user_entries_and_keeps_a_switched_off_mirror_off(
    town_entries: list[LoreEntry],
) -> None:
    start = "## 开头\n甲\n\n## 栖水镇概况（世界书·栖水镇）\n\n旧文本\n\n## 结尾\n乙\n"
    off = toggle_entry(start, "栖水镇概况（世界书·栖水镇）", False)
    synced = sync_lorebook_mirror(off, town_entries)
    entries = parse_entries(synced)
    assert [e.name for e in entries] == ["开头", "栖水镇概况（世界书·栖水镇）", "结尾"]
    assert entries[1].enabled is False and "江南水乡" in entries[1].content
    assert entries[0].content == "甲" and entries[2].content == "乙"


def test_overlay_constants_use_the_supplement_label_and_names_stay_unique() -> None:
    constants = [
        LoreEntry(uid=1, keys=(), comment="规矩", content="镇上不许夜里渡河。", constant=True, book="栖水镇"),
        LoreEntry(
            uid=9000,
            keys=(),
            comment="规矩",
            content="听雨轩不问来历。",
            constant=True,
            overlay=True,
            book="补充设定集",
        ),
        LoreEntry(uid=2, keys=(), comment="规矩", content="另一本书里的同名规矩。", constant=True, book="栖水镇"),
    ]
    names = [e.name for e in parse_entries(sync_lorebook_mirror("", constants))]
    assert names == ["规矩（世界书·栖水镇）", "规矩（世界书·补充设定）", "规矩·2（世界书·栖水镇）"]
