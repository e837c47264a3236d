"""MagVarUpdate's own functions, recorded under node (``mvu_unit_cases.json``), replayed on ours.

Every case is one call MVU's test suite (or our added oracle tests) made: the input and what MVU
returned or left behind.  Results are compared as JavaScript would print them (``JSON.stringify``
with its key order), so a value, a key order or a number's form that differs fails the case.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from peargarden.variables.command_value import parse_command_value, trim_quotes_and_backslashes
from peargarden.variables.commands import extract_commands, parse_parameters, path_fix
from peargarden.variables.history import last_valid_variables
from peargarden.variables.jsvalues import UNDEFINED, js_keys, number_to_string
from peargarden.variables.message import handle_variables_in_message
from peargarden.variables.parse_string import parse_string
from peargarden.variables.template import apply_template
from peargarden.variables.update import update_variables

CASES_FILE = Path(__file__).with_name("mvu_unit_cases.json")
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))["cases"]


def decode(value: Any) -> Any:
    """The recording's markers back to values: ``{"$undefined": true}``, ``{"$number": "NaN"}``."""
    if isinstance(value, dict):
        if value == {"$undefined": True}:
            return UNDEFINED
        if set(value) == {"$number"}:
            return float(value["$number"])
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def js_text(value: Any) -> str:
    """A value printed the way the recording stored it: JavaScript key order, markers for the rest."""

    def encode(item: Any) -> Any:
        if item is UNDEFINED:
            return {"$undefined": True}
        if isinstance(item, float):
            if not math.isfinite(item):
                return {"$number": "NaN" if math.isnan(item) else ("Infinity" if item > 0 else "-Infinity")}
            return int(number_to_string(item)) if item.is_integer() and "e" not in number_to_string(item) else item
        if isinstance(item, dict):
            return {key: encode(item[key]) for key in js_keys(item)}
        if isinstance(item, list):
            return [encode(element) for element in item]
        return item

    return json.dumps(encode(value), ensure_ascii=False)


def expected_text(value: Any) -> str:
    return js_text(decode(value))


def run_case(case: dict[str, Any]) -> tuple[str, str]:
    """(what we produce, what MVU produced), both as text."""
    kind = case["kind"]
    if kind == "extractCommands":
        got = [command.as_json() for command in extract_commands(case["input"])]
        return js_text(got), expected_text(case["output"])
    if kind == "parseCommandValue":
        return js_text(parse_command_value(case["input"])), expected_text(case["output"])
    if kind == "parseParameters":
        return js_text(parse_parameters(case["input"])), expected_text(case["output"])
    if kind == "pathFix":
        return js_text(path_fix(case["input"])), expected_text(case["output"])
    if kind == "trimQuotesAndBackslashes":
        return js_text(trim_quotes_and_backslashes(case["input"])), expected_text(case["output"])
    if kind == "parseString":
        if "error" in case:
            # Recorded in a test file of MVU's that ran without the ``YAML`` global, so parsing
            # failed there for want of YAML; the same input recorded with YAML is the reference.
            assert "YAML" in case["error"]
            same_input = [c for c in CASES if c["kind"] == kind and c["input"] == case["input"] and "error" not in c]
            assert same_input, "no recording of this input with YAML"
            return js_text(parse_string(case["input"])), expected_text(same_input[0]["output"])
        return js_text(parse_string(case["input"])), expected_text(case["output"])
    if kind == "applyTemplate":
        args = decode(case["args"])
        return js_text(apply_template(*args)), expected_text(case["output"])
    if kind == "getLastValidVariable":
        chat = decode(case["chat"])
        return js_text(last_valid_variables(chat, case["end_message_id"])), expected_text(case["output"])
    if kind == "updateVariables":
        variables = decode(case["variables_before"])
        result = update_variables(case["input_text"], variables)
        got = {"variables": variables, "modified": result.modified}
        want = {"variables": decode(case["variables_after"]), "modified": case["returned_modified"]}
        return js_text(got), js_text(want)
    if kind == "handleVariablesInMessage":
        return run_handle_case(case)
    raise AssertionError(f"unknown case kind {kind}")


def run_handle_case(case: dict[str, Any]) -> tuple[str, str]:
    chat = decode(case["chat"])
    written = decode(case["variables_written"])
    # The recording's TavernHelper stand-in held keys of its own in the records it was asked to
    # update (``keep_me``); MVU must keep them, ahead of its own keys.  They are given back here.
    own_keys = ("initialized_lorebooks", "stat_data", "schema", "display_data", "delta_data")
    existing = {
        entry["opt"]["type"]: {k: v for k, v in entry["data"].items() if k not in own_keys} for entry in written
    }
    message_id = case["message_id"]
    if existing.get("message"):
        message = chat[message_id]
        swipe = message.get("swipe_id") or 0
        records = message["variables"] if isinstance(message.get("variables"), list) else []
        records.extend({} for _ in range(swipe + 1 - len(records)))
        records[swipe] = {**existing["message"], **(records[swipe] if isinstance(records[swipe], dict) else {})}
        message["variables"] = records
    outcome = handle_variables_in_message(
        chat,
        message_id,
        chat_variables=existing.get("chat"),
        update_chat_variables=case["settings"]["更新到聊天变量"],
    )
    assert outcome is not None
    got_written = []
    if outcome.chat_variables is not None:
        got_written.append({"opt": {"type": "chat"}, "data": outcome.chat_variables})
    got_written.append({"opt": {"type": "message", "message_id": message_id}, "data": outcome.message_variables})
    calls = []
    if outcome.message_text is not None:
        calls.append([[{"message_id": message_id, "message": outcome.message_text}], {"refresh": "affected"}])
    got = {"written": got_written, "calls": calls}
    want = {"written": written, "calls": decode(case["setChatMessages_calls"])}
    return js_text(got), js_text(want)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['kind']}-{i}" for i, c in enumerate(CASES)])
def test_mvu_unit_case(case: dict[str, Any]) -> None:
    got, want = run_case(case)
    assert got == want, case["name"]


def test_every_kind_is_present() -> None:
    kinds = {case["kind"] for case in CASES}
    assert kinds == {
        "extractCommands",
        "parseCommandValue",
        "updateVariables",
        "parseParameters",
        "pathFix",
        "trimQuotesAndBackslashes",
        "getLastValidVariable",
        "parseString",
        "applyTemplate",
        "handleVariablesInMessage",
    }
