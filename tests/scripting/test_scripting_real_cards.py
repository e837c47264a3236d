"""Real script cards (``../shared/fixtures/thirdparty/script-cards``, skipped without it) start in the
command line's runtime: every enabled script runs or fails with one line naming it and why (a page
it draws on, a remote module it imports), and none takes the runtime down."""

from __future__ import annotations

import json
from typing import Any

from kit.script_chats import ChatFactory
from kit.thirdparty import thirdparty
from peargarden.formats import card_to_object, read_card
from peargarden.scripting.replay import enabled_scripts

LANDLORD = "KelvinKHan_landlord-simulator-character-card__房东模拟器Z5.20.json"
TEMPLATE = "kai_tavernhelper_template_example_card.png"


def _card(name: str) -> dict[str, Any]:
    path = thirdparty("script-cards", name)
    raw = path.read_bytes()
    card = json.loads(raw) if path.suffix == ".json" else card_to_object(read_card(raw, path.name), "v2")
    assert isinstance(card, dict)
    return card


def test_the_landlord_cards_scripts_start_and_say_what_they_need(chat: ChatFactory) -> None:
    card = _card(LANDLORD)
    scripts = enabled_scripts(card)
    assert len(scripts) == 23  # 30 in the card; a folder's and the disabled ones do not run
    one = chat(card)
    for script in scripts:
        one.session.start(str(script["id"]), str(script["name"]), script["content"])
    one.session.emit("message_received", [0, "first_message"])
    session = one.session
    assert session.gone is None
    assert all(error.startswith("脚本「") for error in session.errors), session.errors
    failed = {error.split("」", 1)[0].removeprefix("脚本「") for error in session.errors}
    assert "MVU zod（开）" in failed and any("MagicalAstrogy/MagVarUpdate" in e for e in session.errors)
    assert session.needs_page  # scripts that draw with jQuery say they need the page
    assert len(failed) < len(scripts)  # the rest ran: registered listeners, timers, variables


def test_the_templates_scripts_in_the_list_form_are_found(chat: ChatFactory) -> None:
    card = _card(TEMPLATE)
    names = [script["name"] for script in enabled_scripts(card)]
    assert names and "mvu" in names
    one = chat(card)
    for script in enabled_scripts(card):
        one.session.start(str(script["id"]), str(script["name"]), script["content"])
    assert any("脚本「mvu」" in e and "MagVarUpdate" in e for e in one.session.errors)
    assert isinstance(card["data"]["extensions"]["tavern_helper"], dict)  # read as TavernHelper reads it
