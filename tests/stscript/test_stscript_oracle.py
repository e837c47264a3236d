"""Every recorded STscript case (SillyTavern 1.18.0, ``../shared/stscript``, copied here) through
``pear slash replay``: the result, the error thrown, the chat after, both variable scopes, the requests
the model received, the toasts and the input box must be what SillyTavern produced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.cli import pear_in_process

CASES = Path(__file__).parent / "cases"
CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "expected.json").exists())


def test_the_visible_cases_are_all_here() -> None:
    assert len(CASE_DIRS) == 66


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_replay_matches_sillytavern(case_dir: Path, tmp_path: Path) -> None:
    done = pear_in_process(tmp_path, "slash", "replay", case_dir, check=True)
    got = json.loads(done.stdout)
    expected = json.loads((case_dir / "expected.json").read_text(encoding="utf-8"))
    for key in expected:
        assert got.get(key) == expected[key], key
    assert set(got) <= set(expected) | {"thrown"}


def test_common_folder_can_be_named(tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere" / "01-echo-basic"
    moved.mkdir(parents=True)
    (moved / "input.json").write_bytes((CASES / "01-echo-basic" / "input.json").read_bytes())
    alone = pear_in_process(tmp_path, "slash", "replay", moved)
    assert alone.returncode == 2 and "common" in alone.stderr and len(alone.stderr.strip().splitlines()) == 1
    named = pear_in_process(tmp_path, "slash", "replay", moved, "--common", CASES.parent / "common", check=True)
    assert json.loads(named.stdout)["toasts"] == [{"type": "info", "title": "", "message": "hello world"}]


def test_a_broken_input_file_is_one_line_naming_it(tmp_path: Path) -> None:
    case = tmp_path / "cases" / "坏的"
    case.mkdir(parents=True)
    (case / "input.json").write_text("{ not json", encoding="utf-8")
    done = pear_in_process(tmp_path, "slash", "replay", case, "--common", CASES.parent / "common")
    assert done.returncode == 2
    assert "input.json" in done.stderr and len(done.stderr.strip().splitlines()) == 1
