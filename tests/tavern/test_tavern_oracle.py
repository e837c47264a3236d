"""Every recorded SillyTavern request must be reproduced byte for byte.

``oracle_cases`` were recorded from SillyTavern 1.12.6, ``oracle_cases_118`` from 1.18.0; each
case's ``settings.json`` names its version, which selects the engine's switches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.tavern.replay import CaseData, replay

CASES = Path(__file__).parent / "oracle_cases"
CASES_118 = Path(__file__).parent / "oracle_cases_118"


def _json(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def load(case_dir: Path) -> CaseData:
    header = None
    chat = None
    chat_path = case_dir / "chat.jsonl"
    if chat_path.exists():
        rows = [json.loads(line) for line in chat_path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if rows and "chat_metadata" in rows[0]:
            header, rows = rows[0], rows[1:]
        chat = rows
    worlds_dir = case_dir / "worlds"
    worlds = {p.stem: _json(p) for p in sorted(worlds_dir.glob("*.json"))} if worlds_dir.is_dir() else {}
    preset_path = case_dir / "preset.json"
    return CaseData(
        settings=_json(case_dir / "settings.json"),  # type: ignore[arg-type]
        card=_json(case_dir / "card.json"),  # type: ignore[arg-type]
        preset=_json(preset_path) if preset_path.exists() else None,  # type: ignore[arg-type]
        chat_header=header,
        chat=chat,
        worlds=worlds,  # type: ignore[arg-type]
    )


CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "expected.json").exists()) + sorted(
    p for p in CASES_118.iterdir() if (p / "expected.json").exists()
)
MULTI_DIRS = [p for p in CASE_DIRS if (p / "all_generations.json").exists()]


def _id(path: Path) -> str:
    return f"{path.parent.name.removeprefix('oracle_cases').strip('_') or '112'}/{path.name}"


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[_id(p) for p in CASE_DIRS])
def test_replay_matches_sillytavern_request(case_dir: Path) -> None:
    expected_text = (case_dir / "expected.json").read_text(encoding="utf-8")
    result = replay(load(case_dir))
    assert result.body is not None
    assert result.body == json.loads(expected_text)
    # Same bytes as the recording once both are printed the same way (key order included).
    assert json.dumps(result.body, ensure_ascii=False, indent=2) == json.dumps(
        json.loads(expected_text), ensure_ascii=False, indent=2
    )


def test_both_sets_are_present() -> None:
    assert len([p for p in CASE_DIRS if p.parent == CASES]) >= 34
    assert len([p for p in CASE_DIRS if p.parent == CASES_118]) >= 41


@pytest.mark.parametrize("case_dir", MULTI_DIRS, ids=[_id(p) for p in MULTI_DIRS])
def test_every_generation_of_a_multi_step_case_matches(case_dir: Path) -> None:
    recorded = _json(case_dir / "all_generations.json")
    result = replay(load(case_dir))
    bodies = recorded if isinstance(recorded, list) else recorded.get("generations", [])  # type: ignore[union-attr]
    assert len(result.generations) == len(bodies) >= 2
    for ours, theirs in zip(result.generations, bodies, strict=True):
        body = theirs.get("body", theirs) if isinstance(theirs, dict) else theirs
        assert ours["messages"] == body["messages"]


def test_timed_effects_are_stored_like_sillytavern() -> None:
    case_dir = CASES / "40-wi-timed-sticky-cooldown-delay"
    trace = _json(case_dir / "timed_wi_trace.json")
    result = replay(load(case_dir))
    assert isinstance(trace, list)
    final = trace[-1]["timedWorldInfo"]
    ours = result.state.chat_metadata["timedWorldInfo"]
    assert {k: sorted(v) for k, v in ours.items()} == {k: sorted(v) for k, v in final.items()}


SHARED = sorted(p.name for p in CASES_118.iterdir() if (CASES / p.name / "expected.json").exists())


@pytest.mark.parametrize("name", SHARED)
def test_the_version_switch_alone_turns_one_recording_into_the_other(name: str) -> None:
    """Same inputs, other version: the 1.18 case replayed as 1.12 gives the 1.12 request, and back."""
    as_112 = replay(load(CASES_118 / name), version="1.12").body
    as_118 = replay(load(CASES / name), version="1.18").body
    assert as_112 == _json(CASES / name / "expected.json")
    assert as_118 == _json(CASES_118 / name / "expected.json")
