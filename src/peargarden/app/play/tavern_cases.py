"""SillyTavern-exact assembly for the fronts without a chat (``pear tavern replay|assemble``): an
oracle case folder replayed, and the request a card's tavern mode would send with no history.

A chat's next tavern beat is :meth:`peargarden.app.service.ChatSession.preview` instead: these two
answer what no chat holds (a case's steps, a card with a preset and version chosen by flag).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, FormatError, NotFound
from peargarden.workspace.home import Home


def check_st_version(value: str) -> str:
    """``--st-version``: one of the SillyTavern releases matched (1.12 or 1.18)."""
    from peargarden.workspace.config import ST_VERSIONS

    if value not in ST_VERSIONS:
        raise BadInput(f"--st-version 只能是 {' 或 '.join(ST_VERSIONS)}，实际是 {value!r}")
    return value


def _read_json(path: Path) -> Any:
    from peargarden.workspace.inputs import read_json

    return read_json(path)


def _read_jsonl(path: Path) -> list[Any]:
    rows = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise BadInput(f"无法读取：{error.strerror}", path=path) from None
    # split("\n"), not splitlines(): U+2028 and U+0085 may stand inside a JSON string.
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise FormatError(f"第 {number} 行不是有效的 JSON：{error.msg}", path=path) from None
    return rows


def load_case(case_dir: Path) -> Any:
    """Read an oracle case folder into :class:`peargarden.tavern.replay.CaseData`."""
    from peargarden.tavern.replay import CaseData

    if not case_dir.is_dir():
        raise NotFound(f"找不到案例文件夹 {case_dir}")
    settings = _read_json(case_dir / "settings.json")
    card_path = case_dir / "card.json"
    if card_path.exists():
        card = _read_json(card_path)
    else:
        pngs = sorted(case_dir.glob("*.png"))
        if not pngs:
            raise NotFound("案例里没有 card.json 或 card.png", path=case_dir)
        from peargarden.formats import card_to_object, read_card

        card = card_to_object(read_card(pngs[0].read_bytes(), str(pngs[0])), "v2")
    preset_path = case_dir / "preset.json"
    preset = _read_json(preset_path) if preset_path.exists() else None
    chat_path = case_dir / "chat.jsonl"
    header = None
    chat = None
    if chat_path.exists():
        rows = _read_jsonl(chat_path)
        if rows and isinstance(rows[0], dict) and "chat_metadata" in rows[0]:
            header, rows = rows[0], rows[1:]
        chat = [r for r in rows if isinstance(r, dict)]
    worlds = {}
    worlds_dir = case_dir / "worlds"
    if worlds_dir.is_dir():
        for path in sorted(worlds_dir.glob("*.json")):
            worlds[path.stem] = _read_json(path)
    if not isinstance(settings, dict) or not isinstance(card, dict):
        raise FormatError("settings.json 与 card.json 必须是 JSON 对象", path=case_dir)
    return CaseData(settings=settings, card=card, preset=preset, chat_header=header, chat=chat, worlds=worlds)


def replay_case(case_dir: Path, version: str | None = None) -> Any:
    """Replay the case's steps (as *version* of SillyTavern, default the case's own): the
    ``ReplayResult`` with the body and assembly of the last generation and the warnings."""
    from peargarden.tavern.replay import replay

    checked = check_st_version(version) if version else None  # a bad flag is said before the case is read
    return replay(load_case(case_dir), version=checked)


def assemble_card(
    home: Home,
    card: str,
    *,
    preset: str | None = None,
    message: str | None = None,
    st_version: str | None = None,
    seed: int | None = None,
) -> tuple[dict[str, Any], Any, list[str]]:
    """The exact SillyTavern request for *card* with no history (a new chat's greeting, then
    *message* when given): the request body, the assembly (ledger, budget) and the warnings.
    *preset* and *st_version* default to the card's; *seed* fixes the random rolls.  Nothing is sent
    or saved."""
    from peargarden.formats import card_to_object
    from peargarden.modes.tavern.sources import card_worlds, read_named_preset
    from peargarden.tavern.assemble import generate
    from peargarden.tavern.controls import user_state
    from peargarden.tavern.replay import _user_message, start_new_chat
    from peargarden.tavern.request import request_body
    from peargarden.text.tokens import counter_for_model
    from peargarden.workspace.cards import open_card
    from peargarden.workspace.config import load_settings
    from peargarden.workspace.regex_scripts import global_regex_scripts, regex_allowance

    folder = open_card(home, card)
    settings = folder.effective_settings(load_settings(home.config_file))
    version = check_st_version(st_version) if st_version else settings.st_version
    card_json: dict[str, Any] = folder.settings()
    stored = card_json.get("tavern")
    tavern: dict[str, Any] = stored if isinstance(stored, dict) else {}
    preset_name = preset or settings.preset or None
    preset_data = read_named_preset(home, preset_name) if preset_name else None
    loaded = folder.load_card()
    card_obj = card_to_object(loaded, "v2")
    worlds, books = card_worlds(home, folder, settings, loaded)
    model = str((preset_data or {}).get("custom_model") or settings.model.model or "")
    counter = counter_for_model(model, default=None) if model else counter_for_model("gpt-3.5-turbo")
    power_user = dict(tavern.get("power_user") or {}) if isinstance(tavern.get("power_user"), dict) else {}
    if settings.user_persona and "persona_description" not in power_user:
        power_user["persona_description"] = settings.user_persona
    global_regex, regex_warnings = global_regex_scripts(home)
    state = user_state(
        card_obj,
        tavern={**tavern, "power_user": power_user},
        preset=preset_data,
        chat_lines=None,
        chat_id=None,
        worlds=worlds,
        character_books=books,
        user_name=settings.user_name,
        counter=counter,
        version=version,
        global_regex=global_regex,
        regex_allowed=regex_allowance(folder) is True,
        seed=seed,
    )
    if not state.chat:
        start_new_chat(state)
    if message:
        state.chat.append(_user_message(state, message))
    result = generate(state, "normal", dry_run=True)
    body = request_body(
        state.oai, result.messages, "normal", stop=result.stop, omit_empty_bias=state.compat.omit_empty_logit_bias
    )
    return body, result, [*regex_warnings, *dict.fromkeys(result.warnings)]
