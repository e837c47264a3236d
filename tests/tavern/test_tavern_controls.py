"""Tavern-mode controls land where SillyTavern keeps them, and feed the user's own state."""

from __future__ import annotations

import pytest

from peargarden.errors import BadInput
from peargarden.tavern.assemble import generate
from peargarden.tavern.controls import apply_control, user_state
from peargarden.text.tokens import counter_for_model

CARD = {
    "name": "沈墨",
    "description": "{{char}}是一名剑客。",
    "personality": "沉默寡言",
    "scenario": "",
    "mes_example": "",
    "data": {"name": "沈墨", "extensions": {}},
}


def test_preset_controls_go_to_the_preset_when_one_is_named() -> None:
    tavern: dict[str, object] = {}
    preset: dict[str, object] = {"openai_max_context": 4095}
    assert apply_control("context", "2048", tavern=tavern, preset=preset) == "preset"
    assert preset["openai_max_context"] == 2048 and tavern == {}
    assert apply_control("response", "500", tavern=tavern) == "卡.json"
    assert tavern["oai"] == {"openai_max_tokens": 500}


def test_prompt_switches_and_order() -> None:
    tavern: dict[str, object] = {}
    apply_control("prompt.nsfw", "off", tavern=tavern)
    apply_control("order", "chatHistory, main", tavern=tavern)
    order = tavern["oai"]["prompt_order"][0]["order"]  # type: ignore[index]
    assert [e["identifier"] for e in order][:3] == ["chatHistory", "main", "worldInfoBefore"]
    assert next(e for e in order if e["identifier"] == "nsfw")["enabled"] is False


def test_authors_note_per_chat_or_as_default() -> None:
    tavern: dict[str, object] = {}
    apply_control("note.prompt", "[雨夜]", tavern=tavern, chat_id="c1")
    apply_control("note.position", "before", tavern=tavern)
    apply_control("note.role", "user", tavern=tavern)
    assert tavern["chats"] == {"c1": {"note_prompt": "[雨夜]"}}
    assert tavern["note"] == {"defaultPosition": 2, "defaultRole": 1}
    with pytest.raises(BadInput):
        apply_control("note.interval", "-1", tavern=tavern)


def test_user_state_uses_mounted_books_and_chat_metadata() -> None:
    entry = {"uid": 0, "key": ["剑"], "content": "剑名青霜。", "constant": True, "order": 1, "position": 0}
    entry.update({"disable": False, "probability": 100, "useProbability": True})
    book = {"entries": {"0": entry}}
    tavern = {"chats": {"c1": {"note_prompt": "[作者注]", "note_depth": 0}}}
    chat = [{"chat_metadata": {}}, {"name": "沈墨", "is_user": False, "mes": "……", "extra": {}}]
    state = user_state(
        CARD,
        tavern=tavern,
        preset=None,
        chat_lines=chat,
        chat_id="c1",
        worlds={"青霜录": book},
        character_books=["青霜录"],
        user_name="阿青",
        counter=counter_for_model("gpt-3.5-turbo"),
    )
    contents = [m["content"] for m in generate(state).messages]
    assert contents[1] == "剑名青霜。"
    assert contents[-1] == "[作者注]"
