"""``pear tavern replay`` end to end: stdout is exactly one JSON object, warnings go to stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.cli import main

CASES = Path(__file__).parent / "oracle_cases"


def test_replay_prints_the_request_body(capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES / "47-preset-no-chathistory-marker"
    main(["tavern", "replay", str(case)])
    out = capsys.readouterr()
    assert json.loads(out.out) == json.loads((case / "expected.json").read_text(encoding="utf-8"))
    assert "chatHistory" in out.err  # the missing marker is reported, not silently swallowed


def test_replay_ledger_lists_every_message(capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES / "24-budget-ctx1400"
    main(["tavern", "replay", "--ledger", str(case)])
    out = capsys.readouterr().out
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))["messages"]
    rows = [line for line in out.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == len(expected)
    assert "chatHistory-42" in out and "newMainChat" in out


def test_replay_of_a_missing_folder_is_one_readable_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["tavern", "replay", str(tmp_path / "没有这个案例")])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("pear: ") and len(err.strip().splitlines()) == 1
