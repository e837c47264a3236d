"""Work beats and the story: which messages belong to 写卡维护, and what role play still sees of them."""

from __future__ import annotations

import json
from typing import Any

from peargarden.authoring.segments import (
    REPLY_PREFIX,
    USER_PREFIX,
    Peripheral,
    beats,
    role_play_plan,
    story_branch,
    work_mask,
)


def user(text: str, *tags: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "tags": list(tags)}


def reply(text: str, *tags: str, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": text, "tags": list(tags), "tool_calls": calls or []}


def call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": json.dumps(args, ensure_ascii=False)}


def result(call_id: str, text: str, *tags: str, error: bool = False) -> dict[str, Any]:
    return {"role": "tool", "content": text, "tool_call_id": call_id, "is_error": error, "tags": list(tags)}


GREETING = reply("客官里边请。", "greeting")


def switched_in_chat() -> list[dict[str, Any]]:
    """Greeting; a story beat; a beat where the model switched itself in, worked and came back; a story beat."""
    return [
        GREETING,
        user("掌柜，来壶茶。"),
        reply("青梧提起铜壶。"),
        user("帮我把开场白改短。"),
        reply("我切到工作模式。", calls=[call("m1", "conversation_mode", {"mode": "authoring"})]),
        result("m1", "已切换到工作模式"),
        reply("", "work", calls=[call("w1", "write", {"path": "创作/sources/默认开场-aabbda.txt", "content": "短"})]),
        result("w1", "Successfully wrote 1 bytes", "work"),
        reply("开场白已经改短。", "work", calls=[call("m2", "conversation_mode", {"mode": "roleplay"})]),
        result("m2", "已切回扮演模式", "work"),
        user("我坐下来。"),
        reply("青梧给你斟茶。"),
    ]


def test_beats_start_at_user_messages_and_the_greeting_is_its_own() -> None:
    assert beats(switched_in_chat()) == [[0], [1, 2], [3, 4, 5, 6, 7, 8, 9], [10, 11]]


def test_the_user_message_that_caused_the_switch_is_claimed_for_work_mode() -> None:
    mask = work_mask(switched_in_chat())
    assert mask == [False, False, False] + [True] * 7 + [False, False]
    story = story_branch(switched_in_chat())
    assert [m["content"] for m in story] == [
        "客官里边请。",
        "掌柜，来壶茶。",
        "青梧提起铜壶。",
        "我坐下来。",
        "青梧给你斟茶。",
    ]


def test_a_failed_switch_keeps_the_beat_in_the_story() -> None:
    chat = [
        user("换个模式？"),
        reply("", calls=[call("m1", "conversation_mode", {"mode": "authoring"})]),
        result("m1", "无法切换", error=True),
        reply("那就接着讲。"),
    ]
    assert work_mask(chat) == [False] * 4


def test_words_sent_in_work_mode_are_work_even_when_the_reply_failed() -> None:
    chat = [GREETING, user("卡里的世界书有几条？", "work"), user("我推门进去。"), reply("门轴吱呀一声。")]
    assert [m["content"] for m in story_branch(chat)] == ["客官里边请。", "我推门进去。", "门轴吱呀一声。"]


def test_role_play_sees_the_words_and_the_last_answer_only() -> None:
    chat = switched_in_chat()
    plan = role_play_plan(chat)
    assert plan[:3] == [0, 1, 2] and plan[-2:] == [10, 11]
    assert plan[3:5] == [
        Peripheral("user", USER_PREFIX + "帮我把开场白改短。", 3),
        Peripheral("assistant", REPLY_PREFIX + "开场白已经改短。", 8),
    ]
    shown = json.dumps([p for p in plan if isinstance(p, Peripheral)], default=str, ensure_ascii=False)
    assert "创作/" not in shown and "我切到工作模式" not in shown


def test_a_work_beat_without_an_answer_leaves_only_the_users_words() -> None:
    chat = [user("看看正则。", "work"), reply("", "work", calls=[call("r", "read", {"path": "x"})])]
    assert role_play_plan(chat) == [Peripheral("user", USER_PREFIX + "看看正则。", 0)]


def test_a_getter_reads_other_shapes() -> None:
    items = [("e1", GREETING), ("e2", user("改卡", "work")), ("e3", reply("好", "work")), ("e4", user("继续"))]
    kept = story_branch(items, lambda item: item[1])
    assert [entry_id for entry_id, _ in kept] == ["e1", "e4"]


def test_a_compaction_summary_does_not_start_a_beat() -> None:
    summary = {"role": "user", "content": "此前……", "tags": ["compaction"]}
    chat = [summary, reply("青梧点头。"), user("再来。", "work"), reply("好。", "work")]
    assert work_mask(chat) == [False, False, True, True]


def test_file_names_never_reach_the_story_side() -> None:
    answer = "已改好 `创作/sources/默认开场-aabbda.txt` 和 描述-0dfa8d.txt，脚本 ui.js 也查过了。比分 1/2.5 不动。"
    chat = [user("改开场白", "work"), reply(answer, "work")]
    line = role_play_plan(chat)[1]
    assert isinstance(line, Peripheral)
    assert line.text == REPLY_PREFIX + "已改好 （文件） 和 （文件），脚本 （文件） 也查过了。比分 1/2.5 不动。"
