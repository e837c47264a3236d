"""A chat to run scripts on: SillyTavern's state from the recordings' common card, settings and preset
(the same host ``pear slash replay`` uses), with a scripted model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from peargarden.formats import card_to_object, read_card
from peargarden.stscript.commands import default_registry
from peargarden.stscript.runtime import Interpreter, Outcome, run_script
from peargarden.stscript.values import Mulberry32
from peargarden.tavern.replay import CaseData, build_state
from peargarden.tavern.slash_host import TavernSlashHost

COMMON = Path(__file__).parent / "common"


class Run:
    def __init__(self, outcome: Outcome, host: TavernSlashHost) -> None:
        self.outcome = outcome
        self.host = host

    @property
    def pipe(self) -> Any:
        assert self.outcome.error is None, self.outcome.error
        assert self.outcome.result is not None
        return self.outcome.result.pipe

    @property
    def local(self) -> dict[str, Any]:
        return self.host.state.chat_metadata["variables"]  # type: ignore[no-any-return]

    @property
    def chat(self) -> list[dict[str, Any]]:
        return self.host.state.chat


Runner = Callable[..., Run]


@pytest.fixture
def run() -> Runner:
    settings = json.loads((COMMON / "settings.json").read_text(encoding="utf-8"))
    preset = json.loads((COMMON / "preset.json").read_text(encoding="utf-8"))
    card = card_to_object(read_card((COMMON / "card.png").read_bytes(), "card.png"), "v2")

    def go(
        script: str,
        *,
        local: dict[str, Any] | None = None,
        replies: list[str] | None = None,
        parser_errors: bool = True,
        execution_errors: bool = False,
        host: TavernSlashHost | None = None,
    ) -> Run:
        if host is None:
            state = build_state(CaseData(settings=settings, card=card, preset=preset, chat=[]))
            greeting = {"name": "Ava", "is_user": False, "is_system": False, "mes": "Hi, I am Ava.", "extra": {}}
            state.chat.append(greeting)
            state.chat_metadata["variables"] = dict(local or {})
            state.extension_settings.setdefault("variables", {})["global"] = {}
            answers = list(replies or [])
            host = TavernSlashHost(
                state, reply=lambda n: answers[n - 1] if n <= len(answers) else f"回复 {n}", random=Mulberry32(7)
            )
        outcome = run_script(
            Interpreter(default_registry(), host),
            script,
            handle_parser_errors=parser_errors,
            handle_execution_errors=execution_errors,
        )
        return Run(outcome, host)

    return go
