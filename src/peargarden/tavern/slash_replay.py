"""Replaying a recorded STscript case (``../shared/stscript``): the script run on SillyTavern's state
built from the case's card, settings, preset, chat and variables, with the model's recorded replies.

The output has the keys of the case's ``expected.json``: ``pipe`` (or ``thrown``), ``chat_after``,
``local_variables``, ``global_variables``, ``requests``, ``toasts``, ``textarea_after``.  Pure: the
caller reads the files.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from peargarden.stscript.commands import default_registry
from peargarden.stscript.runtime import Interpreter, run_script
from peargarden.stscript.values import Mulberry32
from peargarden.text.jsvalue import json_stringify

from .replay import CaseData, build_state
from .slash_host import TavernSlashHost


def plain_json(value: Any) -> Any:
    """A value as JavaScript's JSON would carry it (``undefined`` members dropped)."""
    text = json_stringify(value)
    return None if text is None else json.loads(text)


def replay_slash(
    case_input: dict[str, Any], settings: dict[str, Any], card: dict[str, Any], preset: dict[str, Any] | None
) -> dict[str, Any]:
    """Run the case's script as SillyTavern's ``executeSlashCommandsWithOptions`` ran it."""
    chat = copy.deepcopy(case_input.get("chat") or [])
    state = build_state(CaseData(settings=settings, card=card, preset=preset, chat=chat))
    given = case_input.get("variables") or {}
    state.chat_metadata["variables"] = copy.deepcopy(given.get("local") or {})
    state.extension_settings.setdefault("variables", {})["global"] = copy.deepcopy(given.get("global") or {})
    seed = case_input.get("math_random_seed")
    random = Mulberry32(int(seed)) if isinstance(seed, int) else state.random
    state.random = random
    replies = [str(r) for r in case_input.get("model_replies") or []]

    def reply(number: int) -> str:
        return replies[number - 1] if number <= len(replies) else f"ORACLE_REPLY #{number}"

    host = TavernSlashHost(state, reply=reply, random=random)
    options = case_input.get("options") or {}
    interpreter = Interpreter(default_registry(), host)
    outcome = run_script(
        interpreter,
        str(case_input.get("script") or ""),
        handle_parser_errors=bool(options.get("handleParserErrors", True)),
        handle_execution_errors=bool(options.get("handleExecutionErrors", False)),
    )
    out: dict[str, Any] = {"pipe": outcome.result.to_json() if outcome.result is not None else None}
    if outcome.error is not None:
        out["thrown"] = {"name": outcome.error.kind, "message": outcome.error.message}
    out["chat_after"] = plain_json(state.chat)
    out["local_variables"] = plain_json(state.chat_metadata.get("variables") or {})
    out["global_variables"] = plain_json(state.extension_settings["variables"].get("global") or {})
    out["requests"] = host.requests
    out["toasts"] = host.toasts
    out["textarea_after"] = host.input_text
    return out


__all__ = ["plain_json", "replay_slash"]
