"""Every recorded TavernHelper case (SillyTavern 1.18.0 + TavernHelper 4.9.3, ``../shared/tavernhelper``,
copied here) through ``pear script replay``: the steps' values and errors, the events the scripts
heard and their order, the chat, variables and card after, and the request bodies the model got must
be what SillyTavern produced.  Dates are compared as the recordings keep them (normalised to
``<ISO_DATE>``, as their README says)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit.cli import pear_in_process
from kit.th_cases import CASE_DIRS, CASES, check_case, expected_of, normalised


def replayed(case_dir: Path, home: Path, *more: str | Path) -> dict[str, Any]:
    done = pear_in_process(home, "script", "replay", case_dir, *more, check=True)
    return normalised(json.loads(done.stdout))  # type: ignore[no-any-return]


def test_the_visible_cases_are_all_here() -> None:
    assert len(CASE_DIRS) == 12


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_replay_matches_sillytavern(case_dir: Path, tmp_path: Path) -> None:
    got = replayed(case_dir, tmp_path)
    assert set(got) == {"script_output", "state_after", "requests", "warnings"}
    check_case(got, expected_of(case_dir))
    assert got["warnings"] == []


def test_the_common_folder_can_be_named(tmp_path: Path) -> None:
    moved = tmp_path / "别处" / "01-变量"
    moved.mkdir(parents=True)
    (moved / "input.json").write_bytes((CASES / "01-vars-chat" / "input.json").read_bytes())
    alone = pear_in_process(tmp_path, "script", "replay", moved)
    assert alone.returncode == 2 and "common" in alone.stderr and len(alone.stderr.strip().splitlines()) == 1
    got = replayed(moved, tmp_path, "--common", CASES.parent / "common")
    assert got["state_after"]["chat_metadata_variables"] == {"a": 11, "g": True, "b": {"c": 20, "h": 1, "e": "new"},
                                                             "f": [3], "z": "async"}  # fmt: skip


@pytest.mark.parametrize(
    ("content", "named"),
    [("{ 不是 JSON", "input.json"), ('{"case": "x"}', "card"), ("[1, 2]", "input.json")],
    ids=["not-json", "no-card", "not-an-object"],
)
def test_a_broken_input_file_is_one_line_naming_it(tmp_path: Path, content: str, named: str) -> None:
    case = tmp_path / "cases" / "坏的"
    case.mkdir(parents=True)
    (case / "input.json").write_text(content, encoding="utf-8")
    done = pear_in_process(tmp_path, "script", "replay", case, "--common", CASES.parent / "common")
    assert done.returncode == 2
    assert named in done.stderr and len(done.stderr.strip().splitlines()) == 1
