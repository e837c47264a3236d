"""SillyTavern content as users really have it, built from code (no third-party file).

Each builder returns the bytes another tool would have written: JSON the way SillyTavern's
JavaScript writes it (non-ASCII as is, lone surrogates as ``\\udXXX`` escapes, ``\\r\\n`` inside
strings from Windows editors), PNG cards with a ``chara`` tEXt chunk, SillyTavern chat JSONL with
swipes, regex-script exports, presets of newer SillyTavern versions.  The writers here are
deliberately independent of ``peargarden.formats`` so the tests do not check our code against itself.
"""

from __future__ import annotations

import base64
import json
import zipfile
from io import BytesIO
from typing import Any

from kit import workspace as wkit
from kit.cli import pear_in_process as pear_here
from kit.formats import text_chunk

__all__ = ["pear_here"]

# A high surrogate alone (an emoji cut in half) and a low one alone.
LONE_HIGH = "\ud83d"
LONE_LOW = "\udc7f"


def js_json(value: Any, *, indent: int | None = None) -> bytes:
    """``JSON.stringify`` (ES2019): non-ASCII kept, lone surrogates escaped as lowercase ``\\udXXX``."""
    separators = (",", ":") if indent is None else None
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators)
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text).encode("utf-8")


def card_png(card: dict[str, Any]) -> bytes:
    """A card PNG as SillyTavern writes it: ``chara`` = base64 of the V2 JSON (hand-built PNG)."""
    return wkit.tiny_png(text_chunk("chara", base64.b64encode(js_json(card))))


def card_charx(card: dict[str, Any]) -> bytes:
    """A CHARX: a zip with ``card.json`` (V3) at its root."""
    v3 = {**card, "spec": "chara_card_v3", "spec_version": "3.0"}
    out = BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("card.json", js_json(v3, indent=2))
    return out.getvalue()


def v2_card(name: str, **data: Any) -> dict[str, Any]:
    """A SillyTavern-style V2 card (the hybrid with the V1 mirror at the top)."""
    fields = {
        "name": name,
        "description": "",
        "personality": "",
        "scenario": "",
        "first_mes": "",
        "mes_example": "",
        "creator_notes": "",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [],
        "tags": [],
        "creator": "",
        "character_version": "",
        "extensions": {"talkativeness": "0.5", "fav": False, "world": "", "depth_prompt": {"prompt": "", "depth": 4}},
    }
    fields.update(data)
    top = {key: fields[key] for key in ("name", "description", "personality", "scenario", "first_mes", "mes_example")}
    hybrid = {**top, "creatorcomment": "", "avatar": "none", "spec": "chara_card_v2", "spec_version": "2.0"}
    return {**hybrid, "data": fields}


def book_entry(uid: Any, keys: list[str], content: str, **extra: Any) -> dict[str, Any]:
    """An embedded ``character_book`` entry (V2 spec shape)."""
    entry = {
        "id": uid,
        "keys": keys,
        "secondary_keys": [],
        "comment": extra.pop("comment", ""),
        "content": content,
        "constant": extra.pop("constant", False),
        "selective": True,
        "insertion_order": 100,
        "enabled": True,
        "position": "before_char",
        "extensions": extra.pop("extensions", {}),
    }
    entry.update(extra)
    return entry


# -- one builder per class of real-world input ----------------------------------------------------


def lone_surrogate_card() -> dict[str, Any]:
    """Issue 15 #1: lone surrogates in fields and in the embedded lorebook (Chinese card)."""
    return v2_card(
        "碎簪",
        description=f"她的发簪断了一截{LONE_HIGH}，只剩半朵梅花。",
        first_mes=f"“客官{LONE_LOW}请坐。”",
        character_book={
            "name": "碎簪设定",
            "entries": [
                book_entry(0, ["梅花"], f"梅花簪是母亲的遗物{LONE_HIGH}。", comment="梅花簪"),
                book_entry(1, ["渡口"], "镇北渡口，十年前的雨夜。", comment="渡口"),
            ],
        },
    )


def crlf_card() -> dict[str, Any]:
    """Issue 15 #2: a card written on Windows, ``\\r\\n`` in several fields and a lore entry."""
    return v2_card(
        "晚舟",
        description="晚舟是渡船上的船娘。\r\n她会唱三首歌。\r\n",
        personality="温和\r\n多疑",
        first_mes="“上船吧。”\r\n船身一晃。",
        mes_example="<START>\r\n{{user}}: 多少钱？\r\n{{char}}: 三文。",
        character_book={
            "name": "晚舟设定",
            "entries": [book_entry(0, ["渡船"], "渡船很旧。\r\n船头挂着灯。", comment="渡船")],
        },
    )


STATUS_STRIP = {
    "id": "c7d1",
    "scriptName": "去掉状态栏",
    "findRegex": "/<status>[\\s\\S]*?<\\/status>/g",
    "replaceString": "",
    "trimStrings": [],
    "placement": [2],
    "disabled": False,
    "markdownOnly": False,
    "promptOnly": True,
    "runOnEdit": True,
    "substituteRegex": False,
    "minDepth": None,
    "maxDepth": None,
}


def regex_card() -> dict[str, Any]:
    """Issue 15 #3: the card's own prompt-only script strips the status bar from replies."""
    card = v2_card(
        "听雨",
        description="听雨是茶馆的琴师。",
        first_mes="琴声停了。<status>好感：10｜心情：平静</status>",
    )
    card["data"]["extensions"]["regex_scripts"] = [STATUS_STRIP]
    return card


GLOBAL_TEA = {
    **STATUS_STRIP,
    "id": "g1",
    "scriptName": "茶改酒",
    "findRegex": "/清茶/g",
    "replaceString": "烈酒",
    "placement": [1],
    "runOnEdit": False,
}
GLOBAL_PAIR = [
    {**GLOBAL_TEA, "id": "g2", "scriptName": "月改日", "findRegex": "/月色/g", "replaceString": "日光"},
    {**GLOBAL_TEA, "id": "g3", "scriptName": "关", "findRegex": "/不会出现/g", "disabled": True},
]


def macro_card() -> dict[str, Any]:
    """Issue 15 #4: legacy and pipeline macros everywhere, ``{{user}}`` in a lore title."""
    return v2_card(
        "砚秋",
        description="<user>推门走进<bot>的书铺。{{setvar::茶::龙井}}桌上是{{getvar::茶}}。{{random::晴::晴}}天。",
        personality="{{char}}话少。",
        scenario="{{// 作者的注释 }}书铺在巷尾。",
        first_mes="“<USER>，来了？”",
        character_book={
            "name": "砚秋设定",
            "entries": [
                book_entry(0, ["旧宅"], "{{user}}的旧宅在河对岸，<bot>去过一次。", comment="{{user}}的旧宅"),
            ],
        },
    )


def english_card() -> dict[str, Any]:
    """Issue 15 #6: an English card (the stage must not ask for Chinese)."""
    return v2_card(
        "Mira",
        description="Mira keeps the lighthouse on the northern cliff. She writes letters she never sends.",
        personality="Quiet, stubborn, kind to strangers who arrive in storms.",
        first_mes="The door creaks open. \"Another storm, another stranger. Come in before you drown.\"",
    )


def probability_book() -> dict[str, Any]:
    """Issue 15 #7: constant entries that only a roll lets in (standalone world info)."""
    def entry(uid: int, content: str, probability: int) -> dict[str, Any]:
        return {
            "uid": uid, "key": [], "keysecondary": [], "comment": content, "content": content,
            "constant": True, "selective": True, "order": 100 + uid, "position": 0, "disable": False,
            "probability": probability, "useProbability": True, "depth": 4, "group": "", "groupOverride": False,
            "groupWeight": 100, "excludeRecursion": False, "preventRecursion": False,
        }  # fmt: skip

    return {"entries": {"0": entry(0, "零概率条目永不出现", 0), "1": entry(1, "半数概率条目", 50)}}


def v1_card_with_extras() -> dict[str, Any]:
    """Issue 15 #8: a V1 card (no spec) with top-level keys V1 never had."""
    return {
        "name": "老周",
        "description": "老周在码头卖馄饨。",
        "personality": "热心",
        "scenario": "清晨",
        "first_mes": "“馄饨要不要？”",
        "mes_example": "",
        "create_date": "2023-5-1 @12h 00m 00s 000ms",
        "talkativeness": "0.5",
        "x_tool_meta": {"exported_by": "某工具", "version": 3},
        "chat": "老周 - 2023-5-1",
    }


def v2_card_missing_fields() -> dict[str, Any]:
    """Issue 15 #8: a V2 card whose ``data`` has only some fields."""
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "阿青", "description": "阿青是猎户。"}}


def string_id_card() -> dict[str, Any]:
    """Issue 15 #8: ``character_book.entries`` with string ids (and a repeated one)."""
    return v2_card(
        "石头",
        description="石头守着山门。",
        character_book={
            "name": "山门",
            "entries": [
                book_entry("7", ["山门"], "山门朝东。", comment="山门"),
                book_entry("gate-2", ["石阶"], "石阶九十九级。", comment="石阶"),
                book_entry("7", ["古松"], "门前有古松。", comment="古松"),
            ],
        },
    )


def new_preset() -> dict[str, Any]:
    """Issue 15 #8: a Chat Completion preset with fields 1.13–1.18 added."""
    return {
        "chat_completion_source": "openai",
        "openai_model": "gpt-4o",
        "temperature": 0.9,
        "openai_max_context": 8000,
        "openai_max_tokens": 400,
        "prompts": [
            {"identifier": "main", "name": "Main Prompt", "system_prompt": True, "role": "system",
             "content": "写{{char}}的下一句。", "injection_position": 0, "injection_depth": 4,
             "injection_order": 100, "injection_trigger": ["normal", "continue"], "forbid_overrides": False},
            {"identifier": "chatHistory", "name": "Chat History", "system_prompt": True, "marker": True},
            {"identifier": "charDescription", "name": "Char Description", "system_prompt": True, "marker": True},
            {"identifier": "extra-1", "name": "文风", "role": "system", "content": "白描。",
             "injection_position": 1, "injection_depth": 2, "injection_order": 50, "injection_trigger": ["normal"]},
        ],
        "prompt_order": [{"character_id": 100001, "order": [
            {"identifier": "main", "enabled": True}, {"identifier": "charDescription", "enabled": True},
            {"identifier": "extra-1", "enabled": True}, {"identifier": "chatHistory", "enabled": True}]}],
        "extensions": {"regex_scripts": [GLOBAL_TEA]},
        "reasoning_effort": "medium",
        "show_thoughts": True,
    }  # fmt: skip


def st_chat_112(user: str, char: str) -> list[dict[str, Any]]:
    """Issue 15 #5: a SillyTavern 1.12 chat with swipes, swipe_info and fields we do not know."""
    return [
        {"user_name": user, "character_name": char, "create_date": "2026-11-2@21h05m33s",
         "chat_metadata": {"note_prompt": "", "timedWorldInfo": {"sticky": {}, "cooldown": {}},
                           "lastInContextMessageId": 0},
         "x_header": 1},
        {"name": char, "is_user": False, "is_system": False, "send_date": "November 2, 2026 9:05pm",
         "mes": "“客官里边请。”", "extra": {}, "swipe_id": 0, "swipes": ["“客官里边请。”"],
         "swipe_info": [{"send_date": "November 2, 2026 9:05pm", "extra": {}}]},
        {"name": user, "is_user": True, "send_date": "November 2, 2026 9:06pm", "mes": "来壶茶。",
         "extra": {"isSmallSys": False}, "force_avatar": "User Avatars/me.png"},
        {"name": char, "is_user": False, "is_system": False, "send_date": "November 2, 2026 9:07pm",
         "mes": "乙版回答。", "gen_started": "2026-11-02T13:06:59.000Z", "gen_finished": "2026-11-02T13:07:03.000Z",
         "extra": {"api": "openai", "model": "gpt-4o", "reasoning": "想想"},
         "swipe_id": 1, "swipes": ["甲版回答。", "乙版回答。", "丙版回答。"],
         "swipe_info": [
             {"send_date": "November 2, 2026 9:06pm", "gen_started": "a", "gen_finished": "b",
              "extra": {"api": "openai"}},
             {"send_date": "November 2, 2026 9:07pm", "gen_started": "c", "gen_finished": "d",
              "extra": {"api": "openai", "model": "gpt-4o", "reasoning": "想想"}},
             {"send_date": "November 2, 2026 9:08pm", "extra": {}},
         ],
         "x_unknown": [1, 2]},
        {"name": user, "is_user": True, "is_system": True, "send_date": "November 2, 2026 9:09pm",
         "mes": f"（隐藏的一句{LONE_HIGH}）", "extra": {}},
    ]  # fmt: skip


def st_chat_118(user: str, char: str) -> list[dict[str, Any]]:
    """Issue 15 #5: the 1.18 header style (no create_date) and ISO send dates."""
    return [
        {"chat_metadata": {"integrity": "5f0c", "variables": {"好感": 3}}, "user_name": "unused",
         "character_name": "unused"},
        {"name": char, "is_user": False, "is_system": False, "send_date": "2026-11-02T13:05:33.120Z",
         "mes": "Hello.\r\nWelcome.", "extra": {}, "swipe_id": 0, "swipes": ["Hello.\r\nWelcome."],
         "swipe_info": [{"send_date": "2026-11-02T13:05:33.120Z", "gen_started": None, "gen_finished": None,
                         "extra": {}}]},
        {"name": user, "is_user": True, "is_system": False, "send_date": "2026-11-02T13:06:00.000Z", "mes": "Hi 😀",
         "extra": {}},
    ]  # fmt: skip


def jsonl(lines: list[dict[str, Any]]) -> bytes:
    return b"\n".join(js_json(line) for line in lines)
