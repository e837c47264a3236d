"""`pear story state|compact|memory`, and `pear chat --once` finishing its bookkeeping before it exits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def _pear(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PEARGARDEN_HOME=str(home), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "peargarden", *args], capture_output=True, text=True, env=env, timeout=120
    )


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    from peargarden.cli import main

    capsys.readouterr()
    main(list(args))
    return capsys.readouterr().out


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


def test_once_keeps_its_scene_notes_and_story_commands_read_them(
    home_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = Home(home_dir)
    seed_home(home)
    with FakeOpenAIServer() as main, FakeOpenAIServer() as side:
        _config(home, main, side)
        main.script([text_reply("周伯放下算盘：" + "「客官请坐，雨大，先喝碗热茶。」" * 40)])
        side.script(
            [text_reply('```json\n{"patch": {"location": "听雨轩", "characters": {"周伯": {"affinity": 3}}}}\n```')]
        )
        done = _pear(home_dir, "chat", "--once", "推门进去，抖落一身雨水。", "--card", "青梧")
        assert done.returncode == 0, done.stderr
        assert len(side.chat_requests) == 1  # the one-shot waited for the keeper

        state = json.loads(_run(capsys, "story", "state", "--card", "青梧", "--json"))
        assert state["ledger"]["location"] == "听雨轩" and state["ledger"]["characters"]["周伯"] == {"affinity": 3}
        assert state["world_state"] == "地点：听雨轩\n周伯：好感 3" and state["roster"] == "人物：周伯"
        assert state["summary"] is None
        text = _run(capsys, "story", "state", "--card", "青梧", "--chat", state["chat"])
        assert "【世界状态】\n地点：听雨轩" in text and "（尚未压缩）" in text

        # A second beat, then a manual compaction keeps the last round and covers the first.
        main.script([text_reply("周伯添了茶：" + "「这雨怕是要下到天黑。」" * 10)])
        side.script([text_reply("{}")])
        chat_id = state["chat"]
        assert (
            _pear(home_dir, "chat", "--once", "问掌柜雨何时停。", "--card", "青梧", "--chat", chat_id).returncode == 0
        )
        side.script([text_reply("## 前情提要\n阿远冒雨进了听雨轩。"), text_reply("阿远是听雨轩的常客。")])
        out = _run(capsys, "story", "compact", "--card", "青梧")
        assert out.startswith("已压缩：1 轮")
        state = json.loads(_run(capsys, "story", "state", "--card", "青梧", "--json"))
        assert state["summary"]["summary"] == "## 前情提要\n阿远冒雨进了听雨轩。" and state["summary"]["turns"] == 1
        assert "推门进去" in side.chat_requests[-2].body["messages"][1]["content"]

    memory = _run(capsys, "story", "memory", "--card", "青梧")
    assert "阿远是听雨轩的常客。" in memory and "常驻摘要.md" in memory


def test_compact_refuses_a_short_story_and_writes_nothing(home_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = Home(home_dir)
    seed_home(home)
    with FakeOpenAIServer() as main, FakeOpenAIServer() as side:
        _config(home, main, side)
        main.script([text_reply("周伯点头。")])
        side.script([text_reply("{}")])
        assert _pear(home_dir, "chat", "--once", "进门。", "--card", "青梧").returncode == 0
        from peargarden.cli import main as pear_main

        with pytest.raises(SystemExit) as exited:
            pear_main(["story", "compact", "--card", "青梧"])
        assert exited.value.code != 0
        assert "没有可以压缩的剧情" in capsys.readouterr().err
        assert len(side.chat_requests) == 1
    with pytest.raises(SystemExit):
        from peargarden.cli import main as again

        again(["story", "state", "--card", "不存在的卡"])
