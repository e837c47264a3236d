"""MVU cards played through the service against the fake OpenAI server: a data folder with the card,
its lorebooks and a preset, the chat model behind the fake server, and the checks of a recorded step
(the request sent, the variables of every message and swipe, the exported chat)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kit.jsorder import exact
from peargarden.agent.events import WarningEvent
from peargarden.app.library.imports import import_files
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def card_home(
    home_dir: Path, card: Path, books: Sequence[Path], name: str, settings: dict[str, Any], preset: bytes | None = None
) -> Home:
    """A data folder holding *card* (named *name*), *books* mounted on it, *preset* as ``Oracle`` and
    *settings* written into the card's ``卡.json``."""
    home = Home(home_dir)
    seed_home(home)
    import_files(home, [card], book="mount", card=None)
    if books:
        import_files(home, list(books), book="mount", card=name)
    if preset is not None:
        (home.presets_dir / "Oracle.json").write_bytes(preset)
        settings = {"preset": "Oracle", **settings}
    settings_file = home.card_dir(name) / "卡.json"
    kept = json.loads(settings_file.read_text(encoding="utf-8"))
    settings_file.write_text(json.dumps({**kept, **settings}, ensure_ascii=False), encoding="utf-8")
    return home


def played(home: Home, name: str, replies: Sequence[str]) -> Iterator[tuple[ChatSession, FakeOpenAIServer]]:
    """A new tavern chat with *name*, the chat model the fake server answering *replies* in order."""
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(
            f'st_version = "1.18"\n[model]\nprovider = "m"\nmodel = "fake"\n'
            f'[providers.m]\nbase_url = "{fake.base_url}"\n',
            encoding="utf-8",
        )
        fake.script([text_reply(reply) for reply in replies])
        yield PearApp(home).new_chat(name, ChatOptions(mode="tavern")), fake


def check_variables(chat: ChatSession, state: dict[str, Any], where: str) -> None:
    """The chat's records per message and swipe, and its chat variables, equal a recorded ``state``."""
    shown = chat.variables()
    assert len(shown.messages) == len(state["chat"]), where
    for ours, theirs in zip(shown.messages, state["chat"], strict=True):
        assert exact(ours.swipes) == exact(theirs["variables"]), f"{where}: message {theirs['index']}"
        assert ours.swipe_id == theirs.get("swipe_id", 0), where
    assert shown.chat == state["chat_metadata_variables"], where


def check_export(chat: ChatSession, saved: list[dict[str, Any]], where: str) -> None:
    """The chat exported as SillyTavern JSONL carries a saved file's messages, swipes and variables."""
    lines = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").split("\n") if line.strip()]
    assert len(lines) == len(saved), where
    assert lines[0]["chat_metadata"].get("variables", {}) == saved[0]["chat_metadata"]["variables"], where
    for ours, theirs in zip(lines[1:], saved[1:], strict=True):
        for key in ("name", "is_user", "mes"):
            assert ours.get(key) == theirs.get(key), f"{where}: {key} of {theirs['mes'][:12]}"
        if not theirs["is_user"]:  # a reply made here with one swipe is written without the list
            assert ours.get("swipes", [ours["mes"]]) == theirs["swipes"], where
            assert ours.get("swipe_id", 0) == theirs["swipe_id"], where
        assert exact(ours.get("variables")) == exact(theirs["variables"]), where


# The sampler fields a recorded request body is compared on, besides its messages.
SAMPLER = ("temperature", "max_tokens", "presence_penalty", "frequency_penalty", "top_p", "stream")


def play_recorded_step(
    chat: ChatSession, fake: FakeOpenAIServer, number: int, step: dict[str, Any], where: str
) -> list[str]:
    """Play step *number* of a recording (a send or a swipe), check the request it sent and the
    variables after it against the recording (*where* names the step in a failure), and return the
    beat's warnings."""
    sent_text = step["step"].get("send")
    beat = chat.play("send", sent_text) if sent_text else chat.play("swipe", step=1)
    warnings = [item.message for item in beat if isinstance(item, WarningEvent)]
    sent = fake.chat_requests[number - 1].body
    assert sent["messages"] == step["request_messages"], where
    recorded = json.loads(step["request_body_raw"])
    assert {key: sent[key] for key in SAMPLER} == {key: recorded[key] for key in SAMPLER}, where
    check_variables(chat, step["state"], where)
    return warnings
