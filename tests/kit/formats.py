"""Small builders for the formats tests (independent of the code under test)."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(ctype: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body) & 0xFFFFFFFF)


def tiny_png(*extra: bytes, before_idat: bytes = b"") -> bytes:
    """A valid 2×1 RGB PNG; *extra* chunks go between IDAT and IEND."""
    ihdr = struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" + bytes([200, 30, 40, 10, 220, 90]))
    return (
        SIGNATURE + chunk(b"IHDR", ihdr) + before_idat + chunk(b"IDAT", pixels) + b"".join(extra) + chunk(b"IEND", b"")
    )


def b64json(obj: Any) -> bytes:
    return base64.b64encode(json.dumps(obj, ensure_ascii=False).encode("utf-8"))


def text_chunk(keyword: str, payload: bytes) -> bytes:
    return chunk(b"tEXt", keyword.encode("latin-1") + b"\x00" + payload)


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """(type, body) of every chunk, parsed independently."""
    out = []
    pos = 8
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        out.append((png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]))
        pos += 12 + length
    return out


def payload_of(png: bytes, keyword: str) -> dict[str, Any]:
    for ctype, body in chunks(png):
        if ctype == b"tEXt" and body.split(b"\x00", 1)[0] == keyword.encode():
            return json.loads(base64.b64decode(body.split(b"\x00", 1)[1]))  # type: ignore[no-any-return]
    raise AssertionError(f"no {keyword} chunk")


def v2_card(**data: Any) -> dict[str, Any]:
    """A SillyTavern-style hybrid V2 card with Chinese content."""
    fields: dict[str, Any] = {
        "name": "青梧",
        "description": "听雨轩的年轻掌柜，栖水镇人。",
        "personality": "温和，话少，心细",
        "scenario": "春夜雨中，{{user}}推门走进听雨轩。",
        "first_mes": "*青梧抬起头* 客官，外头雨大，进来坐吧。",
        "mes_example": "<START>\n{{user}}: 墙上那把伞是谁的？\n{{char}}: ……一位故人的。",
        "creator_notes": "测试用卡",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": ["*她正在擦拭柜台。* 这么晚了还有客人？"],
        "tags": ["古风", "客栈"],
        "creator": "梨园",
        "character_version": "1.0",
        "extensions": {"talkativeness": "0.5", "fav": False, "world": "栖水镇", "未知扩展": {"保留": [1, 2]}},
    }
    fields.update(data)
    return {
        "name": fields["name"],
        "description": fields["description"],
        "creatorcomment": fields["creator_notes"],
        "avatar": "none",
        "chat": "青梧 - 2026-11-29",
        "talkativeness": "0.5",
        "fav": False,
        "tags": fields["tags"],
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": fields,
        "create_date": "2026-11-29 @22h 38m 27s 000ms",
        "some_tool_key": {"kept": True},
    }
