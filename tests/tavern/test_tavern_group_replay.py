"""Group case replay beyond the recordings: other steps, pinned speakers, the CLI's JSON array."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from peargarden.app.play.tavern_cases import load_case
from peargarden.cli import main
from peargarden.tavern.group_replay import PAGE_RANDOM_CALLS, page_random, replay_group
from peargarden.tavern.replay import CaseData
from peargarden.text.rolls import mulberry32

CASES = Path(__file__).parent / "oracle_cases_118_group"
LIST_CASE = CASES / "66-group-nudge-custom"  # LIST, SWAP, [Lin Yue, Zhou Ming], existing chat
MANUAL_CASE = CASES / "65-group-manual-send-then-trigger"


def with_steps(case_dir: Path, steps: list[dict[str, Any]], **settings: Any) -> CaseData:
    case = load_case(case_dir)
    case.settings = {**copy.deepcopy(case.settings), "steps": steps, **settings}
    return case


def speakers(result: Any) -> list[str]:
    """The speaker of each request, read off its main prompt ("Write X's next reply…")."""
    return [body["messages"][0]["content"].split("Write ", 1)[1].split("'s next", 1)[0] for body in result.generations]


def test_a_typed_trigger_and_a_pinned_speaker() -> None:
    case = with_steps(
        LIST_CASE,
        [
            {"send": "/trigger Zhou Ming"},
            {"send": "晚上好", "speakers": ["Zhou Ming"]},
            {"impersonate": True, "speaker": "Zhou Ming"},
        ],
    )
    result = replay_group(case)
    assert speakers(result) == ["Zhou Ming", "Zhou Ming", "Zhou Ming"]
    assert result.warnings == []


def test_an_unknown_trigger_name_is_warned_and_the_strategy_decides() -> None:
    result = replay_group(with_steps(LIST_CASE, [{"trigger": "没有这个人"}]))
    assert speakers(result) == ["Lin Yue", "Zhou Ming"]
    assert any("没有这个人" in w for w in result.warnings)


def test_manual_posts_a_typed_message_without_any_request() -> None:
    result = replay_group(with_steps(MANUAL_CASE, [{"send": "有人吗？"}, {"send": "还有人吗？"}]))
    assert result.generations == [] and result.body is None
    assert [m["mes"] for m in result.state.chat[-2:]] == ["有人吗？", "还有人吗？"]


def test_every_later_speaker_of_a_round_posts_the_empty_message_replacement() -> None:
    """SillyTavern's input box is empty for the second speaker: with "send if empty" set, that
    text is posted again before each later generation of the round."""
    case = with_steps(LIST_CASE, [{"send": "晚上好"}])
    assert case.preset is not None
    case.preset = {**case.preset, "send_if_empty": "（继续）"}
    result = replay_group(case)
    users = [m["mes"] for m in result.state.chat if m.get("is_user")]
    assert users[-2:] == ["晚上好", "（继续）"]
    assert result.generations[1]["messages"][-3] == {"role": "user", "content": "（继续）"}  # then nudge, PHI


def test_swipe_after_a_round_regenerates_its_last_speaker() -> None:
    result = replay_group(with_steps(LIST_CASE, [{"send": "晚上好"}, {"swipe": True}, {"continue": True}]))
    assert speakers(result) == ["Lin Yue", "Zhou Ming", "Zhou Ming", "Zhou Ming"]
    last = result.state.chat[-1]
    assert last["swipes"][-1] == "ORACLE_REPLY #3" and last["mes"] == "ORACLE_REPLY #3ORACLE_REPLY #4"


def test_the_page_random_is_the_seeded_generator_after_the_pages_draws() -> None:
    draw = page_random({"seed": 20260101})
    reference = mulberry32(20260101, skip=PAGE_RANDOM_CALLS)
    assert [draw() for _ in range(5)] == [reference() for _ in range(5)]
    other = page_random({"seed": 20260101, "random_calls_before_steps": 0})
    assert other() == mulberry32(20260101)()


def test_the_cli_prints_every_request_of_a_group_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "群聊案例"
    shutil.copytree(CASES / "78-group-regenerate-list", case)
    main(["tavern", "replay", str(case)])
    out = capsys.readouterr()
    assert out.out == (case / "expected.json").read_text(encoding="utf-8") + "\n"
    main(["tavern", "replay", "--ledger", str(case)])
    ledger = capsys.readouterr().out
    assert ledger.count("== 第") == 4 and "groupNudge" in ledger


def test_a_single_character_case_still_prints_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    case = Path(__file__).parent / "oracle_cases_118" / "01-minimal"
    main(["tavern", "replay", str(case)])
    assert isinstance(json.loads(capsys.readouterr().out), dict)


def test_a_group_case_with_a_broken_member_list_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "坏案例"
    shutil.copytree(LIST_CASE, case)
    settings = json.loads((case / "settings.json").read_text(encoding="utf-8"))
    settings["members"] = "Lin Yue"
    (case / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        main(["tavern", "replay", str(case)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("pear: ") and "settings.json" in err and len(err.strip().splitlines()) == 1


def test_a_group_with_everyone_muted_only_posts_even_an_empty_box() -> None:
    case = with_steps(LIST_CASE, [{"send": "有人吗？"}, {"regenerate": True}])
    assert case.group is not None
    case.group = {**case.group, "disabled_members": list(case.group["members"])}
    before = len(case.chat or [])
    result = replay_group(case)
    assert result.generations == []
    assert [m["mes"] for m in result.state.chat[before:]] == ["有人吗？", ""]
    assert all(m["is_user"] for m in result.state.chat[before:])
