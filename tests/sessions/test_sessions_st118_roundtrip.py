"""Chats written by SillyTavern 1.13–1.18 go through the session tree and come back unchanged."""

from __future__ import annotations

import itertools
import json

from peargarden.formats import read_chat_jsonl, write_chat_jsonl
from peargarden.sessions.sillytavern import export_chat, import_chat
from peargarden.sessions.tree import SessionTree

# A 1.18 chat: header with chat_metadata first and "unused" names (no create_date), ISO send
# dates, reasoning, a tool invocation record, per-swipe generation times and the integrity id.
LINES = [
    {
        "chat_metadata": {
            "integrity": "5f1c-雨",
            "variables": {"心情": "平静"},
            "lastInContextMessageId": 0,
            "timedWorldInfo": {"sticky": {}, "cooldown": {}},
        },
        "user_name": "unused",
        "character_name": "unused",
    },
    {
        "name": "林月",
        "is_user": False,
        "is_system": False,
        "send_date": "2026-05-03T12:00:05.000Z",
        "mes": "又下雨了，快进来。",
        # ST mirrors the chosen swipe's record into the message itself.
        "extra": {"api": "custom", "model": "deepseek-chat", "reasoning": "先想想天气", "reasoning_duration": 900},
        "swipe_id": 1,
        "swipes": ["欢迎光临！", "又下雨了，快进来。"],
        "swipe_info": [
            {"send_date": "2026-05-03T12:00:00.000Z", "gen_started": None, "gen_finished": None, "extra": {}},
            {
                "send_date": "2026-05-03T12:00:05.000Z",
                "gen_started": "2026-05-03T12:00:01.000Z",
                "gen_finished": "2026-05-03T12:00:05.000Z",
                "extra": {
                    "api": "custom",
                    "model": "deepseek-chat",
                    "reasoning": "先想想天气",
                    "reasoning_duration": 900,
                },
            },
        ],
    },
    {
        "name": "小明",
        "is_user": True,
        "is_system": False,
        "send_date": "2026-05-03T12:01:00.000Z",
        "mes": "来一壶龙井。",
        "extra": {"isSmallSys": False},
        "force_avatar": "User Avatars/user-default.png",
    },
    {
        "name": "林月",
        "is_user": False,
        "is_system": False,
        "send_date": "2026-05-03T12:01:09.000Z",
        "mes": "好的，稍等。",
        "extra": {
            "api": "custom",
            "model": "deepseek-chat",
            "reasoning": "客人要龙井",
            "reasoning_signature": "sig-1",
            "tool_invocations": [{"id": "t1", "name": "lookup", "parameters": "{}", "result": "龙井"}],
        },
        "gen_started": "2026-05-03T12:01:02.000Z",
        "gen_finished": "2026-05-03T12:01:09.000Z",
    },
]


def test_a_118_chat_round_trips_through_the_session_tree() -> None:
    data = "\n".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) for line in LINES).encode()
    chat = read_chat_jsonl(data, "林月 - 2026-05-03.jsonl")
    assert chat.style == "1.18"
    counter = itertools.count()
    imported = import_chat([chat.header, *(m.raw for m in chat.messages)], lambda: f"e{next(counter)}", "t0")
    tree = SessionTree()
    for entry in imported.entries:
        tree.add(entry)
    tree.set_leaf(imported.leaf)
    exported = export_chat(tree, imported.header, "小明", "林月")
    assert exported == LINES
    assert write_chat_jsonl(read_chat_jsonl(data, "x.jsonl")) == data
