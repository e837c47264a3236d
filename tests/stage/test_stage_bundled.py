"""The seed's scenario on the bundled card 青梧 and lorebook 栖水镇 (through the data folder and the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stage_fixtures import QUESTION

from peargarden.cli import main
from peargarden.modes.stage.materials import load_stage_materials
from peargarden.modes.stage.request import assemble_for, greeting_turns
from peargarden.stage.lore.search import search_entries
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

SCENARIO_TITLES = {"听雨轩", "怀瑾", "镇北渡口"}


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


def pear(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    main(list(args))
    return capsys.readouterr().out


def assemble(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``pear stage assemble --card 青梧 ARGS``: its stdout."""
    return pear(capsys, "stage", "assemble", "--card", "青梧", *args)


def test_greeting_names_the_inn_and_the_question_hits_three_titles(home: Home) -> None:
    materials = load_stage_materials(home, "青梧")
    history = greeting_turns(materials)
    assert len(history) == 1 and "听雨轩" in history[0].text
    staged = assemble_for(materials, history, QUESTION, thinking="medium", tool_names=["lorebook_search"])
    assert {h.title for h in staged.hits} == SCENARIO_TITLES
    assert [h.order for h in staged.hits] == sorted(h.order for h in staged.hits)
    first_block = staged.messages[-1]["content"].split("\n\n")[0]
    assert first_block == f"【相关设定】本拍命中 3 条：{'、'.join(h.title for h in staged.hits)}"
    for hit in staged.hits:
        assert hit.content.strip() not in staged.messages[-1]["content"]
    # The greeting alone does not bring in the umbrella.
    alone = assemble_for(materials, history, "掌柜好。", thinking="medium", tool_names=[])
    assert "旧油纸伞" not in {h.title for h in alone.hits}


def test_thinking_off_sends_the_bodies(home: Home) -> None:
    materials = load_stage_materials(home, "青梧")
    staged = assemble_for(materials, greeting_turns(materials), QUESTION, thinking="off", tool_names=[])
    last = staged.messages[-1]["content"]
    assert last.startswith("【相关设定】\n")
    for hit in staged.hits:
        assert f"- 【{hit.title}】{hit.content.strip()}" in last
    assert last.endswith(QUESTION)


def test_searching_the_ferry_ranks_it_first_and_huaijin_scores_one(home: Home) -> None:
    materials = load_stage_materials(home, "青梧")
    hits = search_entries(materials.corpus.entries, "镇北渡口")
    assert hits[0].entry.title == "镇北渡口"
    assert {h.entry.title: h.score for h in hits}["怀瑾"] == 1


def _lore_block(content: str) -> str:
    """The beat's 【相关设定】 block (after the story-memory blocks a new chat's beat carries)."""
    return next(block for block in content.split("\n\n") if block.startswith("【相关设定】"))


def test_cli_stage_assemble_json(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    # The embedded model is never offered tools, so the dry run of a chat on it shows none.
    embedded = json.loads(assemble(capsys, "--message", QUESTION, "--json"))
    assert embedded["tools"] == []
    # The small-model profile is what a chat on the embedded model gets (no model fetched here: every
    # model we ship is small): a short system prompt without the prompt files' entries.
    assert "# 用户扮演：旅人" not in embedded["system"]
    full = json.loads(assemble(capsys, "--message", QUESTION, "--no-small", "--json"))
    assert "# 用户扮演：旅人" in full["system"] and full["tools"] == []
    # A model behind an endpoint (nothing is called: the dry run only builds the request).
    home.config_file.write_text(
        '[model]\nprovider = "remote"\nmodel = "m"\n[providers.remote]\nbase_url = "http://127.0.0.1:9/v1"\n'
        'api_key = "sk-test"\n',
        encoding="utf-8",
    )
    out = assemble(capsys, "--message", QUESTION, "--thinking", "medium", "--json")
    assert "\\u" not in out  # non-ASCII unescaped
    data = json.loads(out)
    assert set(data) == {"system", "messages", "tools", "warnings"}
    assert data["messages"][0]["role"] == "assistant" and "听雨轩" in data["messages"][0]["content"]
    hits_line = _lore_block(data["messages"][-1]["content"])
    assert set(hits_line.split("：", 1)[1].split("、")) == SCENARIO_TITLES
    names = [tool["function"]["name"] for tool in data["tools"]]
    assert {"lorebook_search", "lorebook_write", "draft_seal", "ask"} <= set(names)
    assert data["warnings"] == []
    assert "# 用户扮演：旅人" in data["system"]

    off = json.loads(
        assemble(capsys, "--message", QUESTION, "--thinking", "off", "--no-small", "--json")
    )
    assert _lore_block(off["messages"][-1]["content"]).startswith("【相关设定】\n- 【")


def test_cli_warns_every_beat_when_system_md_is_missing(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    home.system_file.write_text("", encoding="utf-8")
    data = json.loads(assemble(capsys, "--message", "你好", "--no-small", "--json"))
    assert len(data["warnings"]) == 1 and "SYSTEM.md" in data["warnings"][0]
    assert data["system"].startswith("你在梨园")  # the bundled copy


def test_cli_lore_search_json(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    rows = json.loads(pear(capsys, "lore", "search", "--card", "青梧", "镇北渡口", "--json"))
    assert rows[0]["title"] == "镇北渡口" and set(rows[0]) == {"title", "score", "keys", "book", "body"}
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert {r["title"]: r["score"] for r in rows}["怀瑾"] == 1
    assert rows[0]["book"] == "栖水镇"


def test_cli_entries_list_and_switch(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    rows = json.loads(pear(capsys, "entries", "list", "APPEND_SYSTEM.md", "--json"))
    names = [r["name"] for r in rows]
    assert "写之前先查" in names and all(r["enabled"] for r in rows)
    before = home.append_system_file.read_text(encoding="utf-8")
    assert "已关闭" in pear(capsys, "entries", "off", str(home.append_system_file), "写之前先查")
    data = json.loads(assemble(capsys, "--message", "你好", "--no-small", "--json"))
    assert "## 写之前先查" not in data["system"] and "## 岔口交给用户" in data["system"]
    assert "已打开" in pear(capsys, "entries", "on", "APPEND_SYSTEM.md", "写之前先查")
    assert home.append_system_file.read_text(encoding="utf-8") == before
    with pytest.raises(SystemExit) as failed:
        main(["entries", "on", "APPEND_SYSTEM.md", "没有这一条"])
    assert failed.value.code == 2


def test_default_thinking_follows_the_main_model(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    # The seeded config uses the embedded model, which never thinks: lore arrives as bodies.
    data = json.loads(assemble(capsys, "--message", QUESTION, "--no-small", "--json"))
    assert _lore_block(data["messages"][-1]["content"]).startswith("【相关设定】\n- 【")
    with pytest.raises(SystemExit):
        main(["stage", "assemble", "--card", "青梧", "--message", "你好", "--thinking", "turbo"])


def test_a_damaged_mounted_book_is_skipped_with_a_warning(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    (home.lorebooks_dir / "栖水镇.json").write_text("{坏了", encoding="utf-8")
    data = json.loads(assemble(capsys, "--message", QUESTION, "--no-small", "--json"))
    assert len(data["warnings"]) == 1 and "栖水镇" in data["warnings"][0]
    assert "【相关设定】" not in data["messages"][-1]["content"]
    assert data["messages"][-1]["content"].endswith(QUESTION)
