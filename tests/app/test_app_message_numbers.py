"""The page model's ``message_id`` is SillyTavern's number of the message, as the SillyTavern export
(and so ``ChatSession.variables()``) counts: a group round's replies are messages of their own."""

from __future__ import annotations

import json
from pathlib import Path

from kit.apps import scripted_app, seeded_home
from kit.groups import tea_house
from peargarden.app.library.groups import create_group
from peargarden.app.play.group_session import new_group_chat
from peargarden.app.play.service import ChatOptions
from peargarden.providers.scripted import ScriptedProvider, text_turn


def _lines(data: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in data.decode("utf-8").split("\n") if line.strip()]


def test_a_group_rounds_replies_are_numbered_as_sillytavern_exports_them(home_dir: Path) -> None:
    home = tea_house(seeded_home(home_dir))
    create_group(home, "茶馆", ["林月", "周明"], strategy="list")
    provider = ScriptedProvider()
    for reply in ("龙井马上就好。", "雨落西湖。", "再添一壶。", "好诗。"):
        provider.add(text_turn(reply))
    chat = new_group_chat(scripted_app(home, provider), "茶馆", ChatOptions(mode="tavern"))
    for text in ("今天喝什么茶？", "再来一轮。"):
        list(chat.play("send", text).events())
    lines = _lines(chat.export_sillytavern())[1:]
    rows = chat.view().rows
    assert [row.message_id for row in rows] == list(range(len(lines)))
    assert [row.content for row in rows] == [line["mes"] for line in lines]
