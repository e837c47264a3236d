"""Helpers for the workspace and CLI tests: small card builders, lorebooks, folder digests."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any

from kit.formats import chunk, text_chunk

REPO = Path(__file__).resolve().parents[2]
ORACLE_CASES = REPO.parent / "shared" / "oracle" / "cases"


def tiny_png(*extra: bytes) -> bytes:
    """A valid 1×1 RGB PNG with *extra* chunks before IEND (built by hand, independent of our code)."""
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00\x80\x60\x40")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + b"".join(extra) + chunk(b"IEND", b"")


def card_png(card: dict[str, Any]) -> bytes:
    payload = base64.b64encode(json.dumps(card, ensure_ascii=False).encode("utf-8"))
    return tiny_png(text_chunk("chara", payload))


def v2_card(name: str, **data: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "description": f"{name}是江南小镇上的说书人。",
        "personality": "健谈",
        "scenario": "茶馆里",
        "first_mes": "醒木一拍：「列位看官——」",
        "mes_example": "",
        "creator_notes": "",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": ["又是一个雨天。"],
        "tags": ["测试"],
        "creator": "测试",
        "character_version": "1.0",
        "extensions": {"talkativeness": "0.5", "某插件": {"嵌套": [1, "二", {"三": None}]}},
    }
    body.update(data)
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": body}


def embedded_book(name: str = "茶馆旧事") -> dict[str, Any]:
    return {
        "name": name,
        "extensions": {},
        "entries": [
            {
                "id": 0,
                "keys": ["醒木", "说书"],
                "content": "醒木是说书先生的镇堂之宝，一拍满座皆静。",
                "extensions": {"position": 0, "自定义": "保留"},
                "enabled": True,
                "insertion_order": 10,
                "comment": "醒木",
            }
        ],
    }


def tree_digest(root: Path) -> dict[str, str]:
    """Every path under *root* (folders too) with a hash of its content: compare before and after."""
    result: dict[str, str] = {}
    if not root.exists():
        return result
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            result[os.path.relpath(os.path.join(folder, name), root) + "/"] = "dir"
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                result[os.path.relpath(path, root)] = hashlib.sha256(handle.read()).hexdigest()
    return result


def png_card_payloads(data: bytes) -> dict[str, dict[str, Any]]:
    """The JSON in each ``chara`` / ``ccv3`` tEXt chunk of a PNG, by keyword (parsed by hand)."""
    found: dict[str, dict[str, Any]] = {}
    offset = 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        ctype = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        if ctype == b"tEXt":
            keyword, _, text = body.partition(b"\x00")
            if keyword in (b"chara", b"ccv3"):
                found[keyword.decode()] = json.loads(base64.b64decode(text))
        offset += 12 + length
    return found


def bundled_lorebook() -> bytes:
    return (REPO / "src" / "peargarden" / "data" / "lorebooks" / "栖水镇.json").read_bytes()
