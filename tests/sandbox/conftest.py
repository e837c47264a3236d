"""A small data folder with a current card 青梧, another card, a shared library and program data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from peargarden.sandbox import SandboxContext
from peargarden.workspace.home import Home
from peargarden.workspace.sandbox_context import sandbox_context


def build_tree(root: Path) -> None:
    files = {
        "config.toml": "[provider]\napi_key = 'secret'\n",
        "SYSTEM.md": "base\n",
        "APPEND_SYSTEM.md": "## 角色扮演\n",
        "vault/objects/aa": "x",
        "library/lorebooks/栖水镇.json": "{}",
        "library/presets/p.json": "{}",
        "web/src/a.ts": "a",
        "web/src/b.ts": "b",
        "cards/青梧/青梧.png": "png",
        "cards/青梧/卡.json": "{}",
        "cards/青梧/AGENTS.md": "## 青梧\n",
        "cards/青梧/创作/slot.md": "slot",
        "cards/青梧/创作/script.js": "let a = 1;\n",
        "cards/青梧/chats/当前局/session.jsonl": "{}\n",
        "cards/青梧/chats/旧局/session.jsonl": "{}\n",
        "cards/其他/其他.png": "png",
        "cards/其他/chats/x/s.jsonl": "{}\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    card = root / "cards" / "青梧"
    os.symlink("../../library", card / "偷渡")
    os.symlink("../../config.toml", card / "钥匙")
    os.symlink("/etc", card / "外面")


@pytest.fixture
def data_root(tmp_path: Path) -> Path:
    root = tmp_path / "梨园数据"
    build_tree(root)
    return root


@pytest.fixture
def ctx(data_root: Path) -> SandboxContext:
    return sandbox_context(Home(data_root), "青梧", chat_id="当前局")
