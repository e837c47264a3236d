"""Every request SillyTavern 1.18.0 sent in a recorded group chat must be reproduced byte for byte.

``oracle_cases_118_group`` holds the recordings (one request body per generation, in order, in
``expected.json``); each case's steps are replayed through the group pipeline.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.app.play.tavern_cases import load_case
from peargarden.tavern.group_replay import replay_group

CASES = Path(__file__).parent / "oracle_cases_118_group"
CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "expected.json").exists())


def _json(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_every_request_of_the_group_case_matches_sillytavern(case_dir: Path) -> None:
    expected = _json(case_dir / "expected.json")
    assert isinstance(expected, list)
    result = replay_group(load_case(case_dir))
    assert len(result.generations) == len(expected)
    for number, (ours, theirs) in enumerate(zip(result.generations, expected, strict=True), 1):
        assert ours["messages"] == theirs["messages"], f"request {number}"
        assert ours == theirs, f"request {number}"
    # Same bytes as the recording once both are printed the same way (key order included).
    assert json.dumps(result.generations, ensure_ascii=False, indent=2) == json.dumps(
        expected, ensure_ascii=False, indent=2
    )


def test_the_group_set_is_present() -> None:
    assert len(CASE_DIRS) >= 16


@pytest.mark.parametrize(
    "name",
    ["61-group-swap-list-fresh-chat", "78-group-regenerate-list", "63-group-join-muted-excluded-then-trigger-muted"],
)
def test_the_chat_after_the_steps_has_the_recorded_speakers_and_rounds(name: str) -> None:
    """Who spoke each message and which round it belongs to, as SillyTavern saved the chat."""
    case_dir = CASES / name
    rows = [json.loads(line) for line in (case_dir / "chat_after.jsonl").read_text(encoding="utf-8").splitlines()]
    recorded = [m for m in rows[1:] if "mes" in m]
    result = replay_group(load_case(case_dir))
    ours = result.state.chat
    assert [(m["name"], m["mes"], m.get("original_avatar")) for m in ours] == [
        (m["name"], m["mes"], m.get("original_avatar")) for m in recorded
    ]

    def rounds(chat: list[dict[str, object]]) -> list[int]:
        """Messages numbered by round: same number ⇔ same ``extra.gen_id``."""
        ids: dict[object, int] = {}
        extras = [m.get("extra") for m in chat if not m.get("is_user")]
        return [ids.setdefault(e.get("gen_id") if isinstance(e, dict) else None, len(ids)) for e in extras]

    assert rounds(ours) == rounds(recorded)
