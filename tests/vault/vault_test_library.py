"""A realistic data folder for the vault tests: Chinese names, shared library, cards with chats."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from kit.cli import pear_in_process, pear_process

LOREBOOK_NAMES = ["栖水镇", "青梧山", "白露书院", "雾隐江湖"] + [f"世界书{n:02d}" for n in range(60)]


def lorebook(name: str, entries: int = 3) -> dict[str, object]:
    return {
        "name": name,
        "entries": {
            str(uid): {
                "uid": uid,
                "key": [f"{name}{uid}", "梨园"],
                "content": f"{name}的第{uid}条设定：雨后青石板路，檐下挂着灯笼。",
                "constant": uid == 0,
            }
            for uid in range(entries)
        },
    }


def write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def make_library(root: Path) -> None:
    """Fill *root* like a data folder after some weeks of use."""
    write(root / "config.toml", 'card = "青梧"\n[model]\nprovider = "local"\n')
    write(root / "SYSTEM.md", "# 基础\n你是梨园的叙事引擎。\n")
    write(root / "APPEND_SYSTEM.md", "## 角色扮演\n用中文写作，第三人称。\n")
    for name in LOREBOOK_NAMES:
        text = json.dumps(lorebook(name), ensure_ascii=False, indent=2)
        write(root / "library" / "lorebooks" / f"{name}.json", text)
    write(root / "library" / "presets" / "默认预设.json", json.dumps({"temperature": 0.8, "prompts": []}))
    # A regenerable cache: never snapshotted, never removed by a restore.
    write(root / "library" / "presets" / ".cache" / "声明-默认预设.json", "{}")
    persona = {"name": "旅人", "description": "远行客"}
    write(root / "library" / "personas" / "旅人.json", json.dumps(persona, ensure_ascii=False))
    write(root / "library" / "skills" / "写景" / "SKILL.md", "# 写景\n先写声音，再写颜色。\n")
    card = root / "cards" / "青梧"
    card_json = {"spec": "chara_card_v2", "data": {"name": "青梧"}}
    write(card / "青梧.json", json.dumps(card_json, ensure_ascii=False))
    settings = {"lorebooks": ["栖水镇"], "userName": "旅人"}
    write(card / "卡.json", json.dumps(settings, ensure_ascii=False))
    write(card / "APPEND_SYSTEM.md", "## 身份\n青梧是书院的先生。\n")
    write(card / "AGENTS.md", "# 青梧的世界\n")
    write(card / "补充设定集.json", json.dumps(lorebook("补充设定集", 2), ensure_ascii=False))
    write(card / "创作" / "manifest.json", json.dumps({"slots": ["开场白"]}, ensure_ascii=False))
    session = card / "chats" / "20261130-010203-ab12" / "会话.jsonl"
    lines = [json.dumps({"id": i, "text": f"第{i}句"}, ensure_ascii=False) + "\n" for i in range(5)]
    write(session, "".join(lines))
    # A binary card file (PNG header and some noise): restored byte for byte too.
    write(root / "cards" / "白露" / "白露.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    write(root / "cards" / "白露" / "补充设定集.json", json.dumps(lorebook("白露", 1), ensure_ascii=False))


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under *root* except the vault and cache folders, by POSIX relative path."""
    found: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        rel_folder = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if not (rel_folder == Path(".") and d == "vault") and d != ".cache"]
        for name in files:
            path = Path(folder) / name
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def pear_inprocess(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the ``pear`` entry point in this process (same code path, without a child's start-up cost)."""
    return pear_in_process(home, *args, check=check)


def pear(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the real ``pear`` command in a child process."""
    return pear_process(home, *args, check=check)
