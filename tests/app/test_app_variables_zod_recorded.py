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

from kit.jsorder import exact
from kit.thirdparty import SHARED
from peargarden.app.library.imports import import_files
from peargarden.app.play.chat_variables import session_variables
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CASES = SHARED / "mvu" / "cases"
SAMPLER = ("temperature", "max_tokens", "presence_penalty", "frequency_penalty", "top_p")


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
    home = Home(home_dir)
    seed_home(home)
    import_files(home, [inputs / "card.json"], book="mount", card=None)
    worlds = sorted((inputs / "worlds").glob("*.json"))
    if worlds:
        import_files(home, worlds, book="mount", card=name)
    (home.presets_dir / "Oracle.json").write_bytes((inputs / "preset.json").read_bytes())
    settings_file = home.card_dir(name) / "卡.json"
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    user = settings_in.get("st_settings_overrides", {}).get("username", "User")
    settings.update({"preset": "Oracle", "userName": user, "regex_allowed": True, "scripts_allowed": True})
    settings_file.write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(
            f'st_version = "1.18"\n[model]\nprovider = "m"\nmodel = "fake"\n'
            f'[providers.m]\nbase_url = "{fake.base_url}"\n',
            encoding="utf-8",
        )
        fake.script([text_reply(step["reply_text"]) for step in _steps(folder)[1:]])
        yield folder, PearApp(home).new_chat(name, ChatOptions(mode="tavern")), fake


def _check_variables(chat: ChatSession, state: dict[str, Any], where: str) -> None:
    shown = session_variables(chat)
    assert len(shown.messages) == len(state["chat"]), where
    for ours, theirs in zip(shown.messages, state["chat"], strict=True):
        assert exact(ours.swipes) == exact(theirs["variables"]), f"{where}: message {theirs['index']}"
    assert shown.chat == state["chat_metadata_variables"], where


def test_the_recorded_zod_chats_play_through_the_service_as_sillytavern_played_them(
    played: tuple[Path, ChatSession, FakeOpenAIServer],
) -> None:
    folder, chat, fake = played
    steps = _steps(folder)
    _check_variables(chat, steps[0]["state"], f"{folder.name} open")
    for number, step in enumerate(steps[1:], 1):
        where = f"{folder.name} step {number} {step['step']}"
        sent_text = step["step"].get("send")
        list(chat.play("send", sent_text) if sent_text else chat.play("swipe", step=1))
        sent = fake.chat_requests[number - 1].body
        assert sent["messages"] == step["request_messages"], where
        recorded = json.loads(step["request_body_raw"])
        assert {key: sent[key] for key in SAMPLER} == {key: recorded[key] for key in SAMPLER}, where
        _check_variables(chat, step["state"], where)
        lines = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").split("\n") if line.strip()]
        saved = _saved(folder, number)
        assert len(lines) == len(saved), where
        for ours, theirs in zip(lines[1:], saved[1:], strict=True):
            assert ours.get("mes") == theirs.get("mes"), where
            assert exact(ours.get("variables")) == exact(theirs["variables"]), where
