"""A card whose zod-schema script keeps the job queue busy (issue 46, point 1), through the commands a
user runs: ``pear chat --once``, ``pear vars apply --card`` and ``pear import``.  Its scripts spend at
most a use's and a beat's CPU budget (made small here), the line says which script was stopped and
why, the beat still answers, and the waiting line never names the model's endpoint for the card's time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit.cli import pear_in_process
from kit.mvu_chats import card_home
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.variables import script_budget

CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"
ZOD = "https://testingcf.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js"
NAME = "忙个不停的变量结构"
# Work awaited a little at a time, without end: each job is one call into the engine.
BUSY = (
    f"const {{ registerMvuSchema }} = await import('{ZOD}');\n"
    "const work = () => Promise.resolve().then(() => { let x = 0; for (let k = 0; k < 100000; k++) x += k; });\n"
    "for (;;) await work();\n"
    "registerMvuSchema(z.object({ 金钱: z.coerce.number().prefault(0) }));"
)
REPLY = "小梨把茶钱收好。\n<UpdateVariable>\n_.set('金钱', 90);//收茶钱\n</UpdateVariable>"


@pytest.fixture(autouse=True)
def _small_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(script_budget, "USE_SECONDS", 0.3)
    monkeypatch.setattr(script_budget, "BEAT_SECONDS", 0.6)


def _busy_card(folder: Path) -> Path:
    card: dict[str, Any] = json.loads((CASE / "card.json").read_text(encoding="utf-8"))
    card["data"]["extensions"]["tavern_helper"]["scripts"] = [
        {"type": "script", "enabled": True, "name": "MVU", "id": "m1", "info": "", "data": {},
         "content": "import 'https://testingcf.jsdelivr.net/gh/MagicalAstrogy/MagVarUpdate/artifact/bundle.js';"},
        {"type": "script", "enabled": True, "name": NAME, "id": "z1", "info": "", "data": {}, "content": BUSY},
    ]  # fmt: skip
    path = folder / "小梨.json"
    path.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_beat_of_a_busy_card_says_which_script_stopped_and_never_blames_the_model(
    home_dir: Path, tmp_path: Path
) -> None:
    home = card_home(home_dir, _busy_card(tmp_path), [CASE / "小梨变量书.json"], "小梨",
                     {"userName": "User", "regex_allowed": True, "scripts_allowed": True})  # fmt: skip
    with FakeOpenAIServer() as fake:
        endpoint = fake.base_url
        home.config_file.write_text(
            f'[model]\nprovider = "m"\nmodel = "fake"\n[providers.m]\nbase_url = "{endpoint}"\n', encoding="utf-8"
        )
        fake.script([text_reply(REPLY)])
        once = ("chat", "--card", "小梨", "--mode", "tavern", "--once", "掌柜，结账。", "--still-waiting", "0.2")
        done = pear_in_process(home_dir, *once)
    assert done.returncode == 0, done.stderr
    assert "小梨把茶钱收好。" in done.stdout
    stopped = [line for line in done.stderr.splitlines() if f"「{NAME}」" in line]
    assert stopped and all("CPU" in line for line in stopped), done.stderr
    assert any("这一拍的 0.6 秒 CPU 已用完" in line for line in stopped), done.stderr
    # Its scripts could not run, so MVU's classic rules applied the reply's update.
    assert any(line.startswith("【变量】") and "金钱=90" in line for line in done.stderr.splitlines())
    # The card's scripts ran before the request went out: that wait is said as this machine's.
    notices = [line for line in done.stderr.splitlines() if line.startswith(("（仍在等待", "（还在本机处理"))]
    assert notices and notices[0].startswith("（还在本机处理") and endpoint not in notices[0], done.stderr


def test_vars_apply_with_a_busy_card_stops_its_script_and_applies_the_reply(home_dir: Path, tmp_path: Path) -> None:
    variables = tmp_path / "变量.json"
    variables.write_text(json.dumps({"金钱": 100}, ensure_ascii=False), encoding="utf-8")
    reply = tmp_path / "回复.txt"
    reply.write_text(REPLY, encoding="utf-8")
    card = _busy_card(tmp_path)
    done = pear_in_process(home_dir, "vars", "apply", "--variables", variables, "--reply", reply, "--card", card)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "金钱: 100->90 (收茶钱)"
    lines = done.stderr.strip().splitlines()
    assert lines and all(f"「{NAME}」" in line and "CPU" in line for line in lines), done.stderr
    assert "这一次最多 0.3 秒 CPU" in lines[0]


def test_import_reports_the_busy_script_as_failing_for_its_time(home_dir: Path, tmp_path: Path) -> None:
    done = pear_in_process(home_dir, "import", _busy_card(tmp_path), "--regex", "allow", "--scripts", "allow")
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("脚本\t") and f"「{NAME}」" in line]
    assert "运行失败" in line and "CPU 时间用完了（这一次最多 0.3 秒 CPU）" in line
