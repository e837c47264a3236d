"""Tavern mode does what SillyTavern 1.18 + TavernHelper + MVU did in the two recorded chats
(``tests/variables/mvu_e2e``, from ``../shared/mvu/cases``), played through the service against the
fake OpenAI server with the recorded replies: after every step (the new chat with its ``[initvar]``
seed, three sends, a swipe, a send after the swipe) the request sent equals the recorded one, the
variables of every message and every swipe equal SillyTavern's, and the exported chat file carries
the same messages, swipes and variables as the file SillyTavern saved."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kit.mvu_chats import card_home, check_export, check_variables, play_recorded_step
from kit.mvu_chats import played as chat_played
from peargarden.app.play.chat_variables import latest_record, status_line
from peargarden.app.play.service import ChatSession
from peargarden.testing.fake_openai import FakeOpenAIServer

CASES = Path(__file__).parents[1] / "variables" / "mvu_e2e"
NAMES = sorted(path.name for path in CASES.iterdir())
# The sampler fields SillyTavern sent that a connection carries (stream, model: the provider's own).


def _steps(case: str) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((CASES / case).glob("step_*.json"))]


def _saved(case: str, step: int) -> list[dict[str, Any]]:
    path = next((CASES / case).glob(f"chat_{step:02d}_*.jsonl"))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


@pytest.fixture(params=NAMES)
def played(request: pytest.FixtureRequest, home_dir: Path) -> Iterator[tuple[str, ChatSession, FakeOpenAIServer]]:
    """The case's card (imported as SillyTavern exports it), its lorebook mounted, its preset, the
    card's regex allowed (as the recording allowed it), the chat model behind the fake server."""
    case = str(request.param)
    folder = CASES / case
    settings = {"userName": "User", "regex_allowed": True}
    home = card_home(home_dir, folder / "card.json", [folder / "小梨变量书.json"], "小梨", settings,
                     (folder / "preset.json").read_bytes())  # fmt: skip
    for chat, fake in chat_played(home, "小梨", [step["reply_text"] for step in _steps(case)[1:]]):
        yield case, chat, fake


def test_the_recorded_chats_play_through_the_service_as_sillytavern_played_them(
    played: tuple[str, ChatSession, FakeOpenAIServer],
) -> None:
    case, chat, fake = played
    steps = _steps(case)
    # Opening the chat: the greeting's [initvar] seed is there before any beat.
    check_variables(chat, steps[0]["state"], f"{case} open")
    for number, step in enumerate(steps[1:], 1):
        where = f"{case} step {number} {step['step']}"
        warnings = play_recorded_step(chat, fake, number, step, where)
        check_export(chat, _saved(case, number), where)
        # MVU's refusals are said, not silent (case 01's schema refuses inserts and removals).
        if case.startswith("01") and number == 2:
            assert any("non-extensible" in warning for warning in warnings), warnings
    line = status_line(latest_record(chat.chat.tree))
    assert line is not None and "金钱=" in line and "小梨.好感度=" in line


def test_a_reopened_chat_reads_the_same_variables(played: tuple[str, ChatSession, FakeOpenAIServer]) -> None:
    case, chat, _ = played
    steps = _steps(case)
    for step in steps[1:3]:
        list(chat.play("send", step["step"]["send"]))
    again = chat.app.open_chat("小梨", chat.chat_id)
    check_variables(again, steps[2]["state"], f"{case} reopened")


def test_a_no_to_the_cards_scripts_keeps_mvu_off(played: tuple[str, ChatSession, FakeOpenAIServer]) -> None:
    case, chat, fake = played
    settings_file = chat.card.settings_file
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    settings_file.write_text(json.dumps({**settings, "scripts_allowed": False}, ensure_ascii=False), encoding="utf-8")
    list(chat.play("send", _steps(case)[1]["step"]["send"]))
    shown = chat.variables()
    assert not shown.mvu and all(record is None for m in shown.messages for record in m.swipes)
    assert "<StatusPlaceHolderImpl/>" not in chat.view().rows[-1].content
    assert "世界:\n  时间" not in fake.chat_requests[0].body["messages"][1]["content"]  # no seed to show


def test_mvus_prompt_filter_takes_the_placeholder_out_of_the_request(home_dir: Path, tmp_path: Path) -> None:
    """A card without a regex hiding ``<StatusPlaceHolderImpl/>`` from the model (real cards often have
    none): MVU's own prompt filter takes ``\\n<StatusPlaceHolderImpl/>`` out of every message it sends,
    while the stored replies keep the placeholder (their status bars)."""
    folder = CASES / "02-classic-mvu-extensible"
    card = json.loads((folder / "card.json").read_text(encoding="utf-8"))
    regexes = card["data"]["extensions"]["regex_scripts"]
    card["data"]["extensions"]["regex_scripts"] = [r for r in regexes if "StatusPlaceHolderImpl" not in r["findRegex"]]
    bare = tmp_path / "小梨.json"
    bare.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    settings = {"userName": "User", "regex_allowed": True}
    preset = (folder / "preset.json").read_bytes()
    home = card_home(home_dir, bare, [folder / "小梨变量书.json"], "小梨", settings, preset)
    steps = _steps("02-classic-mvu-extensible")
    for chat, fake in chat_played(home, "小梨", [step["reply_text"] for step in steps[1:]]):
        for step in steps[1:4]:
            list(chat.play("send", step["step"]["send"]))
        sent = [json.dumps(request.body["messages"], ensure_ascii=False) for request in fake.chat_requests]
        assert len(sent) == 3 and not any("StatusPlaceHolderImpl" in text for text in sent)
        assert "<StatusPlaceHolderImpl/>" in chat.view().rows[-1].content  # kept in the chat
        # As SillyTavern + MVU sent it with the card's regex, but for the newline before each placeholder,
        # which MVU's filter takes with it and the regex (the tag alone) had left.
        ours, recorded = json.loads(sent[2]), steps[3]["request_messages"]
        assert len(ours) == len(recorded)
        differ = [i for i, (a, b) in enumerate(zip(ours, recorded, strict=True)) if a != b]
        assert differ and all(recorded[i]["content"] == ours[i]["content"] + "\n" for i in differ)


def _strict(line: str) -> Any:
    """A line read as Node's ``JSON.parse`` reads it: ``NaN`` and ``Infinity`` are not JSON."""

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(line, parse_constant=refuse)


def test_a_number_given_words_is_null_in_the_session_file_and_the_export(home_dir: Path) -> None:
    """MVU makes a number variable ``NaN`` when a reply sets it to words (``"很多"``); SillyTavern writes it
    ``null`` (``JSON.stringify``), and so must the session file and the export: a raw ``NaN`` line is
    one Node's ``JSON.parse`` (and SillyTavern's chat import) refuses."""
    folder = CASES / "02-classic-mvu-extensible"
    settings = {"userName": "User", "regex_allowed": True}
    home = card_home(home_dir, folder / "card.json", [folder / "小梨变量书.json"], "小梨", settings,
                     (folder / "preset.json").read_bytes())  # fmt: skip
    reply = "小梨数了数钱袋。\n<UpdateVariable>\n_.set('金钱', '很多');//数不清\n</UpdateVariable>"
    for chat, _fake in chat_played(home, "小梨", [reply]):
        list(chat.play("send", "你有多少钱？"))
        latest = chat.variables().messages[-1]
        assert latest.current is not None and latest.current["display_data"]["金钱"] == "100->null (数不清)"
        files = list((home.card_dir("小梨") / "chats").rglob("*.jsonl"))
        assert files
        for path in files:
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    _strict(line)
        exported = [_strict(line) for line in chat.export_sillytavern().decode("utf-8").split("\n") if line.strip()]
        assert exported[-1]["variables"][0]["stat_data"]["金钱"] is None
