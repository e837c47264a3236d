"""`pear story state|compact|memory`, and `pear chat --once` finishing its bookkeeping before it exits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.cli import pear_in_process, pear_process
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def _run(home: Path, *args: str) -> str:
    return pear_in_process(home, *args, check=True).stdout


def _config(home: Home, main: FakeOpenAIServer, side: FakeOpenAIServer) -> None:
    home.config_file.write_text(
        f"""
[model]
provider = "main"
model = "fake-model"
[side_model]
provider = "side"
model = "side-model"
[providers.main]
base_url = "{main.base_url}"
api_key = "sk-main"
[providers.side]
base_url = "{side.base_url}"
api_key = "sk-side"
[story]
keep_rounds = 1
""",
        encoding="utf-8",
    )


def test_once_keeps_its_scene_notes_and_story_commands_read_them(home_dir: Path) -> None:
    home = Home(home_dir)
    seed_home(home)
    with FakeOpenAIServer() as main, FakeOpenAIServer() as side:
        _config(home, main, side)
        main.script([text_reply("周伯放下算盘：" + "「客官请坐，雨大，先喝碗热茶。」" * 40)])
        side.script(
            [text_reply('```json\n{"patch": {"location": "听雨轩", "characters": {"周伯": {"affinity": 3}}}}\n```')]
        )
        # A real process: the one-shot must finish the keeper's side call before the interpreter exits.
        done = pear_process(home_dir, "chat", "--once", "推门进去，抖落一身雨水。", "--card", "青梧")
        assert done.returncode == 0, done.stderr
        assert len(side.chat_requests) == 1  # the one-shot waited for the keeper

        state = json.loads(_run(home_dir, "story", "state", "--card", "青梧", "--json"))
        assert state["ledger"]["location"] == "听雨轩" and state["ledger"]["characters"]["周伯"] == {"affinity": 3}
        assert state["world_state"] == "地点：听雨轩\n周伯：好感 3" and state["roster"] == "人物：周伯"
        assert state["summary"] is None
        text = _run(home_dir, "story", "state", "--card", "青梧", "--chat", state["chat"])
        assert "【世界状态】\n地点：听雨轩" in text and "（尚未压缩）" in text

        # A second beat, then a manual compaction keeps the last round and covers the first.
        main.script([text_reply("周伯添了茶：" + "「这雨怕是要下到天黑。」" * 10)])
        side.script([text_reply("{}")])
        chat_id = state["chat"]
        pear_in_process(home_dir, "chat", "--once", "问掌柜雨何时停。", "--card", "青梧", "--chat", chat_id, check=True)
        side.script([text_reply("## 前情提要\n阿远冒雨进了听雨轩。"), text_reply("阿远是听雨轩的常客。")])
        out = _run(home_dir, "story", "compact", "--card", "青梧")
        assert out.startswith("已压缩：1 轮")
        state = json.loads(_run(home_dir, "story", "state", "--card", "青梧", "--json"))
        assert state["summary"]["summary"] == "## 前情提要\n阿远冒雨进了听雨轩。" and state["summary"]["turns"] == 1
        assert "推门进去" in side.chat_requests[-2].body["messages"][1]["content"]

    memory = _run(home_dir, "story", "memory", "--card", "青梧")
    assert "阿远是听雨轩的常客。" in memory and "常驻摘要.md" in memory


def test_compact_refuses_a_short_story_and_writes_nothing(home_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = Home(home_dir)
    seed_home(home)
    with FakeOpenAIServer() as main, FakeOpenAIServer() as side:
        _config(home, main, side)
        main.script([text_reply("周伯点头。")])
        side.script([text_reply("{}")])
        pear_in_process(home_dir, "chat", "--once", "进门。", "--card", "青梧", check=True)
        from peargarden.cli import main as pear_main

        with pytest.raises(SystemExit) as exited:
            pear_main(["story", "compact", "--card", "青梧"])
        assert exited.value.code != 0
        assert "没有可以压缩的剧情" in capsys.readouterr().err
        assert len(side.chat_requests) == 1
    with pytest.raises(SystemExit):
        from peargarden.cli import main as again

        again(["story", "state", "--card", "不存在的卡"])
