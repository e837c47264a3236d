"""The zod-schema recordings of ``../shared/mvu/cases`` (SillyTavern 1.18 + TavernHelper + MVU + StageDog's
``mvu_zod.js``, real third-party cards) replayed through the service against the fake OpenAI server, as
``test_app_variables_tavern.py`` replays the classic ones: after every step the request sent, the
variables of every message and swipe, and the exported chat equal the recording.

The cases hold third-party cards, so they are not copied here: each case found beside the repository
whose card registers a zod schema is replayed, and the test skips when there is none."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kit.mvu_chats import card_home, check_export, check_variables, play_recorded_step
from kit.mvu_chats import played as chat_played
from kit.thirdparty import SHARED
from peargarden.app.play.service import ChatSession
from peargarden.testing.fake_openai import FakeOpenAIServer

CASES = SHARED / "mvu" / "cases"


def _zod_cases() -> list[str]:
    if not CASES.is_dir():
        return []
    found = []
    for folder in sorted(CASES.iterdir()):
        card = folder / "inputs" / "card.json"
        if card.is_file() and (folder / "expected").is_dir() and "registerMvuSchema" in card.read_text("utf-8"):
            found.append(folder.name)
    return found


_NONE = pytest.param("none", marks=pytest.mark.skip(reason="no zod-schema MVU recording in ../shared"))
NAMES = _zod_cases() or [_NONE]


def _steps(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((folder / "expected").glob("step_*.json"))]


def _saved(folder: Path, step: int) -> list[dict[str, Any]]:
    path = next((folder / "expected").glob(f"chat_{step:02d}_*.jsonl"))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


@pytest.fixture(params=NAMES)
def played(request: pytest.FixtureRequest, home_dir: Path) -> Iterator[tuple[Path, ChatSession, FakeOpenAIServer]]:
    folder = CASES / str(request.param)
    inputs = folder / "inputs"
    settings_in = json.loads((inputs / "settings.json").read_text(encoding="utf-8"))
    name = settings_in["character"]
    user = settings_in.get("st_settings_overrides", {}).get("username", "User")
    settings = {"userName": user, "regex_allowed": True, "scripts_allowed": True}
    books = sorted((inputs / "worlds").glob("*.json"))
    home = card_home(home_dir, inputs / "card.json", books, name, settings, (inputs / "preset.json").read_bytes())
    for chat, fake in chat_played(home, name, [step["reply_text"] for step in _steps(folder)[1:]]):
        yield folder, chat, fake


def test_the_recorded_zod_chats_play_through_the_service_as_sillytavern_played_them(
    played: tuple[Path, ChatSession, FakeOpenAIServer],
) -> None:
    folder, chat, fake = played
    steps = _steps(folder)
    check_variables(chat, steps[0]["state"], f"{folder.name} open")
    for number, step in enumerate(steps[1:], 1):
        where = f"{folder.name} step {number} {step['step']}"
        play_recorded_step(chat, fake, number, step, where)
        check_export(chat, _saved(folder, number), where)
