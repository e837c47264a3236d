"""`pear sandbox check` through the CLI entry point, in this process (``kit.cli``).

A real ``pear sandbox check`` process runs in ``tests/cli/test_cli_startup.py``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from kit.cli import pear_in_process


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return pear_in_process(home, "sandbox", "check", *args)


def test_one_verdict_line_per_input(data_root: Path, tmp_path: Path) -> None:
    vectors = tmp_path / "向量.jsonl"
    calls = [
        {"tool": "read", "path": "cards/青梧/AGENTS.md"},
        {"tool": "write", "path": "library/lorebooks/栖水镇.json"},
        {"tool": "read", "path": "config.toml"},
        {"tool": "bash", "command": "cd cards && rm -rf 青梧"},
        {"tool": "bash", "command": "rm -rf /"},
        {"tool": "bash", "command": "cat AGENTS.md"},
        {"tool": "read", "path": "web/src/a.ts", "grants": ["web"]},
        {"tool": "bash", "command": "python cleanup.py", "grants": {"paths": [], "bash": True}},
        {"tool": "read", "path": "cards/青梧/chats/当前局/session.jsonl"},
    ]
    vectors.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in calls) + "\n", encoding="utf-8")
    result = run(data_root, "--card", "青梧", str(vectors))
    assert result.returncode == 0, result.stderr
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["verdict"] for o in out] == ["allow", "ask", "deny", "ask", "deny", "allow", "allow", "allow", "deny"]
    assert out[1]["unit"] == "library/lorebooks"
    assert all(set(o) == {"verdict", "unit", "reason"} for o in out)

    with_chat = run(data_root, "--card", "青梧", "--chat", "当前局", str(vectors))
    assert json.loads(with_chat.stdout.splitlines()[-1])["verdict"] == "allow"


def test_bad_input_is_one_line_and_exit_2(data_root: Path, tmp_path: Path) -> None:
    vectors = tmp_path / "坏.jsonl"
    vectors.write_text('{"tool": "read", "path": "x"}\n{oops\n', encoding="utf-8")
    result = run(data_root, "--card", "青梧", str(vectors))
    assert result.returncode == 2
    assert result.stdout == ""
    assert "坏.jsonl:2" in result.stderr and len(result.stderr.strip().splitlines()) == 1

    missing = run(data_root, "--card", "没有这张卡", str(vectors))
    assert missing.returncode == 2 and "没有这张卡" in missing.stderr
