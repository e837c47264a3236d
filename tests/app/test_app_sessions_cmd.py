"""`pear sessions list|show|export` over a chat with branches (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.agent.approvals import Judgement
from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.cli import main
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def _chat_with_two_replies(home_dir: Path) -> str:
    home = Home(home_dir)
    seed_home(home)
    provider = ScriptedProvider().add(text_turn("甲回复"), text_turn("乙回复"))

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "off")

    app = PearApp(home, provider_factory=factory, judge=lambda tool, args, ctx: Judgement("allow"))
    chat = app.new_chat()
    for _ in chat.send("问一"):
        pass
    for _ in chat.regenerate():
        pass
    assert chat.swipe(-1) is None  # back to 甲回复
    return chat.chat_id


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    main(list(args))
    return capsys.readouterr().out


def test_show_and_export_follow_the_active_branch(
    home_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    chat_id = _chat_with_two_replies(home_dir)
    [row] = json.loads(_cli(capsys, "sessions", "list", "--json"))
    assert row["id"] == chat_id and row["swipe"] == [1, 2] and row["last"] == "甲回复"
    shown = _cli(capsys, "sessions", "show", chat_id)
    assert "[1] 你：问一" in shown and "[2] 青梧：甲回复" in shown and "乙回复" not in shown
    tree = json.loads(_cli(capsys, "sessions", "show", chat_id, "--tree", "--json"))["tree"]
    assert [r["onPath"] for r in tree if r["role"] == "assistant" and r["depth"] == 2] == [True, False]
    out = tmp_path / "导出.jsonl"
    _cli(capsys, "sessions", "export", chat_id, "-o", str(out))
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines[-1]["mes"] == "甲回复" and lines[-1]["swipes"] == ["甲回复", "乙回复"] and lines[-1]["swipe_id"] == 0


def test_unknown_chat_is_a_one_line_error(home_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed_home(Home(home_dir))
    with pytest.raises(SystemExit) as exit_info:
        main(["sessions", "show", "20990101-000000-ffff"])
    assert exit_info.value.code == 2
    assert "没有对话" in capsys.readouterr().err
