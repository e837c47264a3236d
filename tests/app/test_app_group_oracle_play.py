"""A group chat played through the service sends what SillyTavern 1.18 sent: every recorded group
case, laid out as our files (member cards, the preset, the group file, 群.json, an imported group
chat), played with ``GroupSession.play`` — one beat per step, a ``speaker`` event and a reply per
member — against a scripted model that answers as the recording's fake server did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kit.apps import scripted_app, seeded_home
from kit.groups import GROUP_CASES, case_settings, lay_out_case
from peargarden.app.play.beat import Beat
from peargarden.app.play.group_session import GroupSession, import_group_chat, new_group_chat
from peargarden.providers.scripted import ScriptedProvider, text_turn

CASES = sorted(p for p in GROUP_CASES.iterdir() if (p / "expected.json").exists())


def _open(root: Path, case: Path) -> tuple[GroupSession, ScriptedProvider]:
    home = seeded_home(root)
    lay_out_case(home, case)
    provider = ScriptedProvider()
    for number in range(1, 12):
        provider.add(text_turn(f"ORACLE_REPLY #{number}"))
    app = scripted_app(home, provider)
    recorded = case / "group_chat.jsonl"
    if recorded.exists():
        chat_id = str(case_settings(case)["group_chat_id"])
        return import_group_chat(app, "Tea House", recorded.read_bytes(), f"{chat_id}.jsonl"), provider
    return new_group_chat(app, "Tea House"), provider


def _step(chat: GroupSession, step: dict[str, Any]) -> Beat:
    if "send" in step or "send_only" in step:
        return chat.play("send", str(step.get("send", step.get("send_only"))))
    if "trigger" in step:
        return chat.play("send", f"/trigger {step['trigger']}")
    if step.get("regenerate"):
        return chat.play("regenerate")
    if step.get("swipe"):
        return chat.play("swipe")
    if step.get("continue"):
        return chat.play("continue")
    if step.get("impersonate"):
        chat.random = lambda: 0.0  # the recording's seeded draw picked the first member
        return chat.play("impersonate")
    raise AssertionError(f"unknown step {step}")


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_a_group_chat_played_here_sends_what_sillytavern_sent(tmp_path: Path, case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    chat, provider = _open(tmp_path, case)
    assert chat.mode == "tavern"
    speakers: list[str] = []
    for step in case_settings(case)["steps"]:
        beat = _step(chat, step)
        events = [event.to_json() for event in beat.events()]
        assert events[-1]["type"] == "done" and events[-1]["stop_reason"] == "stop"
        named = [event["name"] for event in events if event["type"] == "speaker"]
        assert beat.result is not None
        if named:  # one reply per speaker, in order (a message nobody answers has no reply)
            assert [reply.speaker for reply in beat.result.replies] == named
            assert all(reply.text.startswith("ORACLE_REPLY #") for reply in beat.result.replies)
        assert len(named) == step.get("gens", 0 if "send_only" in step else 1)
        speakers += named
    assert len(provider.requests) == len(expected)
    for number, (ours, theirs) in enumerate(zip(provider.requests, expected, strict=True), 1):
        assert ours.messages == theirs["messages"], f"request {number}"
    # Each request was built as the member the beat named: the group nudge says so.
    for name, request in zip(speakers, provider.requests, strict=True):
        nudges = [m["content"] for m in request.messages if m["role"] == "system" and "reply only as" in m["content"]]
        assert all(name in text for text in nudges)
