"""The two recorded SillyTavern + TavernHelper + MVU chats (``mvu_e2e/``), replayed step by step.

Each step starts from the chat as SillyTavern held it after the step before: the user's message
and the scripted reply are handled as MVU handles them, and the variables per message and per
swipe, the rewritten reply, and the prompt's variable macros must come out as recorded.
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from kit.jsorder import exact
from peargarden.variables.history import variables_at
from peargarden.variables.initvar import Lorebook, greeting_records, initialize
from peargarden.variables.jsvalues import js_keys
from peargarden.variables.macros import expand_variable_macros
from peargarden.variables.message import handle_variables_in_message

CASES_DIR = Path(__file__).with_name("mvu_e2e")
CASES = sorted(path.name for path in CASES_DIR.iterdir())



def book(case: str) -> Lorebook:
    skip = ("card.json", "settings.json", "preset.json")
    path = next(p for p in (CASES_DIR / case).glob("*.json") if p.name not in skip and not p.name.startswith("step_"))
    return Lorebook(path.stem, json.loads(path.read_text(encoding="utf-8"))["entries"])


def steps(case: str) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((CASES_DIR / case).glob("step_*.json"))]


@pytest.mark.parametrize("case", CASES)
def test_initvar_seeds_the_greeting_as_recorded(case: str) -> None:
    card = json.loads((CASES_DIR / case / "card.json").read_text(encoding="utf-8"))
    books = [book(case)]
    init = initialize(None, books)
    assert init.updated and not init.warnings
    records = greeting_records(init, [card["data"]["first_mes"]], books=books, character_book=books[0].name)
    recorded = steps(case)[0]["state"]["chat"][0]["variables"]
    assert exact(records) == exact(recorded)


def _prompt_block(entries: dict[str, Any], scopes: dict[str, Any]) -> str:
    active = [entries[key] for key in js_keys(entries) if not entries[key]["disable"] and entries[key]["constant"]]
    active.sort(key=lambda entry: entry["order"])
    return "\n".join(expand_variable_macros(entry["content"], scopes) for entry in active)


@pytest.mark.parametrize("case", CASES)
def test_each_step_writes_the_recorded_variables_and_prompt(case: str) -> None:
    recorded = steps(case)
    entries = dict(book(case).entries)
    for before, step in itertools.pairwise(recorded):
        chat = copy.deepcopy(before["state"]["chat"])
        after = step["state"]["chat"]
        if "send" in step["step"]:
            chat.append({"is_user": True, "mes": step["step"]["send"], "swipe_id": 0, "variables": [{}]})
            outcome = handle_variables_in_message(chat, len(chat) - 1)
            assert outcome is not None and outcome.message_text is None
            chat[-1]["variables"] = [outcome.message_variables]
            assert exact(chat[-1]["variables"]) == exact(after[len(chat) - 1]["variables"])
            chat.append({"is_user": False, "mes": "", "swipe_id": 0, "swipes": [], "variables": []})
        else:
            chat[-1]["swipe_id"] = len(chat[-1]["swipes"])
        # The prompt is built before the reply: the last message with a record is in force.
        scopes = {"message": variables_at(chat, None)}
        scopes["chat"] = before["state"]["chat_metadata_variables"]
        assert _prompt_block(entries, scopes) == step["request_messages"][1]["content"]
        reply = chat[-1]
        reply["mes"] = step["reply_text"]
        reply["swipes"] = [*reply.get("swipes", []), step["reply_text"]]
        outcome = handle_variables_in_message(chat, len(chat) - 1)
        assert outcome is not None
        swipe = reply["swipe_id"]
        reply["variables"] = [*reply["variables"][:swipe], outcome.message_variables]
        assert exact(reply["variables"]) == exact(after[-1]["variables"]), f"{case} {step['step']}"
        assert outcome.message_text == after[-1]["mes"]
