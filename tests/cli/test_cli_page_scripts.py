"""`pear chat` names, once per chat it opens, the card's scripts that only the chat page runs (issue 45,
item 6): a panel script is one; MVU and a zod schema run here too and are not named; a card whose
scripts the user refused says nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kit.cli import pear_in_process as pear
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from script_card import add_script_card  # type: ignore[import-not-found]


@pytest.mark.parametrize(("allowed", "said"), [(True, True), (None, True), (False, False)])
def test_the_cli_says_which_scripts_need_the_page(tmp_path: Path, allowed: bool | None, said: bool) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    add_script_card(Home(home), allowed=allowed)
    with FakeOpenAIServer() as fake:
        fake.script([text_reply("阿梨点点头。")])
        result = pear(home, "chat", "--card", "账房阿梨", "--mode", "tavern", "--once", "记一笔",
                      "--base-url", fake.base_url, "--model", "m")  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "需要网页" in line]
    assert lines == (["此卡的 1 个脚本需要网页：pear serve（账本面板）"] if said else []), result.stderr
    assert json.dumps(lines, ensure_ascii=False).count("MVU") == 0
