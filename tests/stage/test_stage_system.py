"""The stage system prompt: layers, their order and owners, dossier mode, byte stability (spec §2)."""

from __future__ import annotations

import msgspec
from stage_fixtures import GREETING, QUESTION

from peargarden.stage import LoreCorpus, PromptFiles, StageCard, StageSettings, Turn, assemble_beat
from peargarden.stage.entries import format_entry
from peargarden.stage.lore.entries import LoreEntry
from peargarden.stage.system import SYSTEM_FALLBACK_WARNING, build_system_prompt

GLOBAL_APPEND = "# 角色扮演\n你是扮演 agent，不是编程助手。\n\n<!--\n## 关掉的规矩\n这一条不该出现。\n-->\n"
CARD_APPEND = "## 身份\n{{char}}只用古雅的口吻说话。\n"


def files(**overrides: str | None) -> PromptFiles:
    values: dict[str, str | None] = {
        "system": "You work inside Pear Garden; the folder is a card workspace.",
        "global_append": GLOBAL_APPEND,
        "card_append": CARD_APPEND,
        "agents": None,
    }
    values.update(overrides)
    return PromptFiles(
        system=values["system"],
        bundled_system="Bundled base prompt.",
        working_directory="cards/青梧",
        global_append=values["global_append"],
        card_append=values["card_append"],
        agents=values["agents"],
    )


def positions(text: str, *needles: str) -> list[int]:
    found = [text.find(n) for n in needles]
    assert all(p >= 0 for p in found), [n for n, p in zip(needles, found, strict=True) if p < 0]
    return found


def test_layers_come_in_order(qingwu: StageCard, town_entries: list[LoreEntry]) -> None:
    card = msgspec.structs.replace(qingwu, mes_example="<START>\n{{char}}：客官请。", system_prompt="不写旁白。")
    text = build_system_prompt(files(), card, user_name="阿远", lore=town_entries, tool_names=["lorebook_search"]).text
    order = positions(
        text,
        "You work inside Pear Garden",
        "Current working directory: cards/青梧",
        "# 角色扮演",
        "## 身份\n青梧只用古雅的口吻说话。",
        "# 你扮演的角色：青梧",
        "## 性格",
        "## 当前场景\n暮春，雨下到第三天的夜里，阿远浑身湿透地推门进来。",
        "## 对白示例（仅供文风与语气参考，不是已发生的剧情）",
        "# 用户扮演：阿远\n（阿远 的具体形象由用户在剧情中自行呈现）",
        "# 世界设定（常驻事实）\n- 【栖水镇概况】栖水镇是江南水乡的小镇",
        "# 消息流约定",
        "# 卡作者附加指令（优先级最高）\n不写旁白。",
    )
    assert order == sorted(order)
    assert "这一条不该出现" not in text and "<!--" not in text
    assert "{{" not in text
    # Keyword entries never enter the system prompt; they arrive per beat.
    assert "镇北渡口" not in text


def test_missing_or_empty_system_md_falls_back_with_a_warning(qingwu: StageCard) -> None:
    for missing in (None, "", "  \n"):
        prompt = build_system_prompt(files(system=missing), qingwu, user_name="旅人")
        assert prompt.text.startswith("Bundled base prompt.\n\nCurrent working directory: cards/青梧")
        assert prompt.warnings == (SYSTEM_FALLBACK_WARNING,)
    assert build_system_prompt(files(), qingwu, user_name="旅人").warnings == ()


def test_persona_is_always_there(qingwu: StageCard) -> None:
    text = build_system_prompt(
        files(agents="## 世界规则\n这里只写世界。"),
        qingwu,
        user_name="阿远",
        user_persona="{{user}}是走镖的。",
    ).text
    assert "# 用户扮演：阿远\n阿远是走镖的。" in text


def test_dossier_replaces_projection_constants_and_card_prompts(
    qingwu: StageCard, town_entries: list[LoreEntry]
) -> None:
    card = StageCard(**{**msgspec.structs.asdict(qingwu), "system_prompt": "不写旁白。"})
    agents = "## 世界规则\n{{char}}不会离开栖水镇。\n<!--\n## 关掉的条目\n不发送。\n-->\n"
    text = build_system_prompt(files(agents=agents), card, user_name="旅人", lore=town_entries).text
    assert "## 世界规则\n青梧不会离开栖水镇。" in text
    assert "# 你扮演的角色" not in text and "# 世界设定（常驻事实）" not in text
    assert "卡作者附加指令" not in text and "不发送" not in text
    # The constant lore is mirrored into the dossier (in memory, even before the file is synced).
    assert "## 栖水镇概况（世界书·栖水镇）\n栖水镇是江南水乡的小镇" in text
    assert positions(text, "## 世界规则", "栖水镇概况（世界书·栖水镇）", "# 用户扮演") == sorted(
        positions(text, "## 世界规则", "栖水镇概况（世界书·栖水镇）", "# 用户扮演")
    )


def test_fully_disabled_dossier_still_counts_as_a_dossier(qingwu: StageCard) -> None:
    agents = format_entry("全部关掉", "内容", enabled=False)
    text = build_system_prompt(files(agents=agents), qingwu, user_name="旅人").text
    assert "# 你扮演的角色" not in text


def test_lorebook_search_hint_only_with_the_tool(qingwu: StageCard) -> None:
    with_tool = build_system_prompt(files(), qingwu, user_name="旅人", tool_names=["lorebook_search"]).text
    without = build_system_prompt(files(), qingwu, user_name="旅人", tool_names=[]).text
    assert "lorebook_search" in with_tool and "lorebook_search" not in without


def test_system_is_byte_stable_across_beats(qingwu: StageCard, town_entries: list[LoreEntry]) -> None:
    corpus = LoreCorpus(town_entries)
    settings = StageSettings()
    first = assemble_beat(
        files(),
        qingwu,
        settings,
        corpus,
        [Turn("assistant", GREETING)],
        QUESTION,
        thinking="medium",
        tool_names=["lorebook_search"],
    )
    history = [Turn("assistant", GREETING), Turn("user", QUESTION), Turn("assistant", "青梧的手顿了顿。")]
    second = assemble_beat(
        files(),
        qingwu,
        settings,
        corpus,
        history,
        "那把旧油纸伞是他的吗？",
        thinking="medium",
        tool_names=["lorebook_search"],
    )
    assert first.system.encode() == second.system.encode()
    assert [h.title for h in second.hits] == ["听雨轩", "怀瑾", "镇北渡口"]


def test_work_mode_lines_are_explained_only_when_the_switch_exists() -> None:
    from peargarden.stage.conventions import message_conventions

    assert "【写卡维护】" in message_conventions(["lorebook_search", "conversation_mode"])
    assert "【写卡维护】" not in message_conventions(["lorebook_search"])
