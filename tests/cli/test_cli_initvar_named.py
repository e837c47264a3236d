"""An ``[initvar]`` entry that cannot be read is named, with its problem, in one line (issue 46, points 9
and 7): bad YAML, an alias bomb, 3,000 levels of nesting — in ``pear chat --once`` and ``pear vars
show`` — and the beat goes on without the seed instead of hanging or saying nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.cli import pear_in_process
from kit.mvu_chats import card_home
from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home

CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"
ENTRY = "[initvar]初始变量"  # the case book's entry, named as its comment names it

SEEDS = {
    "bad-yaml": ("世界:\n  地点: [梨园\n  天数: 1\n", "第 3 行"),
    "alias-bomb": (
        "l0: &l0 [梨,梨,梨,梨,梨,梨,梨,梨,梨]\n"
        + "".join(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 9)),
        "别名",
    ),
    "nested-3000": ("世界: " + "[" * 3000 + "梨园" + "]" * 3000 + "\n", "嵌套超过 100 层"),
}


def _home(home_dir: Path, tmp_path: Path, seed: str) -> Home:
    book = json.loads((CASE / "小梨变量书.json").read_text(encoding="utf-8"))
    book["entries"]["0"]["content"] = seed
    book_file = tmp_path / "小梨变量书.json"
    book_file.write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    settings = {"userName": "User", "regex_allowed": True, "scripts_allowed": True}
    return card_home(home_dir, CASE / "card.json", [book_file], "小梨", settings)


def _named(stderr: str, problem: str) -> list[str]:
    return [line for line in stderr.splitlines() if ENTRY in line and "小梨变量书" in line and problem in line]


@pytest.mark.parametrize("name", list(SEEDS))
def test_chat_once_names_the_entry_that_cannot_be_read(home_dir: Path, tmp_path: Path, name: str) -> None:
    seed, problem = SEEDS[name]
    home = _home(home_dir, tmp_path, seed)
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(
            f'[model]\nprovider = "m"\nmodel = "fake"\n[providers.m]\nbase_url = "{fake.base_url}"\n', encoding="utf-8"
        )
        fake.script([text_reply("小梨点点头。")])
        done = pear_in_process(home_dir, "chat", "--card", "小梨", "--mode", "tavern", "--once", "你好。")
    assert done.returncode == 0, done.stderr
    assert "小梨点点头。" in done.stdout
    assert len(_named(done.stderr, problem)) == 1, done.stderr


def test_vars_show_names_the_entry_before_any_beat(home_dir: Path, tmp_path: Path) -> None:
    seed, problem = SEEDS["bad-yaml"]
    home = _home(home_dir, tmp_path, seed)
    chat_id = PearApp(home).new_chat("小梨", ChatOptions(mode="tavern")).chat_id
    shown = pear_in_process(home_dir, "vars", "show", "--chat", chat_id)
    assert shown.returncode == 0, shown.stderr
    assert len(_named(shown.stderr, problem)) == 1, shown.stderr
