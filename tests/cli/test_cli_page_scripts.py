"""`pear chat` names, once per chat it opens, the card's scripts that only the chat page runs (issue 45,
item 6): a panel script is one; MVU and a zod schema run here too and are not named; a card whose
scripts the user refused says nothing.  `pear chat --group` names each member's."""

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


def test_a_group_chat_says_each_members_scripts_that_need_the_page(tmp_path: Path) -> None:
    # Two members, one a script card (its panel needs the page, MVU does not), one without scripts.
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    add_script_card(Home(home), allowed=True)
    members = ["--member", "账房阿梨", "--member", "青梧"]
    pear(home, "group", "create", "账房茶话", *members, "--strategy", "list", check=True)
    with FakeOpenAIServer() as fake:
        fake.script([text_reply("阿梨点点头。"), text_reply("青梧笑了。")])
        result = pear(home, "chat", "--group", "账房茶话", "--mode", "tavern", "--once", "记一笔",
                      "--base-url", fake.base_url, "--model", "m")  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "需要网页" in line]
    assert lines == ["群聊成员「账房阿梨」的 1 个脚本需要网页：pear serve（账本面板）"], result.stderr
