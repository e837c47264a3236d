"""``pear chat --group`` with an MVU member prints the compact status line after a round, and ``pear
vars show --chat ID`` reads a group chat's records one message per reply (the fake OpenAI server,
Chinese names)."""

from __future__ import annotations

import json
from pathlib import Path

from kit.apps import seeded_home
from kit.cli import pear_in_process
from kit.groups import connect, tea_house
from peargarden.app.library.imports import import_files
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"
XIAOLI = (
    "小梨笑着接过茶。\n<UpdateVariable>\n_.set('世界.地点', '后台');//去后台\n"
    "_.add('金钱', -20);//买茶叶\n</UpdateVariable>"
)
LINYUE = "林月收下茶钱。\n<UpdateVariable>\n_.add('金钱', -5);//茶钱\n</UpdateVariable>"


def test_a_group_round_prints_the_status_line_and_vars_show_reads_the_group_chat(home_dir: Path) -> None:
    home = tea_house(seeded_home(home_dir))
    import_files(home, [CASE / "card.json"], book="mount", card=None)
    import_files(home, [CASE / "小梨变量书.json"], book="mount", card="小梨")
    pear_in_process(home_dir, "group", "create", "戏班", "--member", "小梨", "--member", "林月",
                    "--strategy", "list", "--mode", "tavern", check=True)  # fmt: skip
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        fake.script([text_reply(XIAOLI), text_reply(LINYUE)])
        done = pear_in_process(home_dir, "chat", "--group", "戏班", "--once", "师父来了，大家早。")
    assert done.returncode == 0, done.stderr
    status = [line for line in done.stderr.splitlines() if line.startswith("【变量】")]
    # The variables in force after the round; marked: what the last reply (林月's) changed, its delta_data.
    assert len(status) == 1 and "金钱=75*" in status[0] and "世界.地点=后台 " in status[0]
    assert "【变量】" not in done.stdout and "<UpdateVariable>" in done.stdout  # tavern mode shows it, as ST does

    chats = list((home_dir / "groups" / "戏班" / "chats").iterdir())
    assert len(chats) == 1
    chat_id = chats[0].name
    shown = pear_in_process(home_dir, "vars", "show", "--chat", chat_id, "--message", "3", "--json")
    assert shown.returncode == 0, shown.stderr
    record = json.loads(shown.stdout)
    assert record["role"] == "assistant" and record["variables"]["stat_data"]["金钱"] == 80  # 小梨's reply
    text = pear_in_process(home_dir, "vars", "show", "--chat", chat_id)
    assert text.returncode == 0 and text.stdout.startswith("第 4 条 · 回复\n") and "金钱: 75" in text.stdout
    greeting = pear_in_process(home_dir, "vars", "show", "--chat", chat_id, "--message", "0")
    assert greeting.stdout.startswith("第 0 条 · 回复：没有变量")
