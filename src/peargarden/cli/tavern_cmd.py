"""``pear tavern …``: SillyTavern-exact prompt assembly from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from peargarden.errors import BadInput, FormatError, NotFound
from peargarden.formats import dumps_json

from ._app import app

tavern_app = typer.Typer(help="SillyTavern 兼容的提示词拼装 (tavern mode).", no_args_is_help=True)
app.add_typer(tavern_app, name="tavern")


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


def _width(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def format_ledger(assembly: Any) -> str:
    """The ledger table: one row per request message (slot, name, role, tokens, first characters)."""
    rows = [(str(i), r.slot, r.name or "", r.role, str(r.tokens), r.head) for i, r in enumerate(assembly.ledger, 1)]
    header = ("#", "slot", "name", "role", "tokens", "开头")
    widths = [max(_width(row[c]) for row in [header, *rows]) for c in range(5)]
    lines = []
    for row in [header, *rows]:
        cells = [row[0].rjust(widths[0]), _pad(row[1], widths[1]), _pad(row[2], widths[2]), _pad(row[3], widths[3])]
        lines.append("  ".join([*cells, row[4].rjust(widths[4]), row[5]]).rstrip())
    lines.append(
        f"合计 {assembly.used} / 预算 {assembly.budget + 3}（含 3 个回复起始 token），"
        f"历史 {assembly.history_tokens}，进入上下文的对话消息 {assembly.in_context_count} 条"
    )
    for warning in assembly.warnings:
        lines.append(f"⚠ {warning}")
    return "\n".join(lines)


def _st_version(value: str) -> str:
    from peargarden.workspace.config import ST_VERSIONS

    if value not in ST_VERSIONS:
        raise BadInput(f"--st-version 只能是 {' 或 '.join(ST_VERSIONS)}，实际是 {value!r}")
    return value


@tavern_app.command("replay")
def replay_cmd(
    case_dir: Path = typer.Argument(..., help="Oracle case folder (settings.json, card.json, preset.json, …)."),
    ledger: bool = typer.Option(False, "--ledger", help="Print the ledger table instead of the request body."),
    st_version: str | None = typer.Option(
        None, "--st-version", help="SillyTavern release to match: 1.12 or 1.18 (default: the case's settings.json)."
    ),
) -> None:
    """Replay an oracle case's steps and print the request body of the last generation."""
    from peargarden.tavern.replay import replay
    version = _st_version(st_version) if st_version else None
    result = replay(load_case(case_dir), version=version)
    for warning in dict.fromkeys(result.warnings):
        print(f"warning: {warning}", file=sys.stderr)
    if result.body is None or result.assembly is None:
        raise BadInput("案例的步骤里没有任何一次生成", path=case_dir)
    if ledger:
        print(format_ledger(result.assembly))
    else:
        print(dumps_json(result.body, indent=2))


# -- the user's own data folder ------------------------------------------------------------------


def _card_context(card_name: str) -> tuple[Any, Any, dict[str, Any]]:
    from peargarden.workspace.cards import open_card
    from peargarden.workspace.config import load_settings

    from ._app import state

    home = state.home
    folder = open_card(home, card_name)
    settings = folder.effective_settings(load_settings(home.config_file))
    return home, folder, {"settings": settings, "card_json": folder.settings()}


def _read_preset(home: Any, name: str) -> dict[str, Any]:
    from peargarden.modes.tavern.sources import read_named_preset

    return read_named_preset(home, name)


@tavern_app.command("assemble")
def assemble_cmd(
    card: str = typer.Option(..., "--card", help="Card name (folder) in the data folder."),
    preset: str | None = typer.Option(None, "--preset", help="Chat Completion preset from the library."),
    chat: str | None = typer.Option(None, "--chat", help="Chat id of this card (default: no history)."),
    message: str | None = typer.Option(None, "--message", help="A new user message to send first."),
    as_json: bool = typer.Option(False, "--json", help="Print the request body as JSON (the default)."),
    ledger: bool = typer.Option(False, "--ledger", help="Print the ledger table instead."),
    st_version: str | None = typer.Option(
        None, "--st-version", help="SillyTavern release to match: 1.12 or 1.18 (default: st_version of the settings)."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Seed the random rolls (world-info probability, {{random}})."),
) -> None:
    """Assemble the exact SillyTavern request for one of your cards (nothing is sent or saved)."""
    from peargarden.formats import card_to_object
    from peargarden.modes.tavern.sources import card_worlds
    from peargarden.tavern.assemble import generate
    from peargarden.tavern.controls import user_state
    from peargarden.tavern.replay import _user_message
    from peargarden.tavern.request import request_body
    from peargarden.text.tokens import counter_for_model
    from peargarden.workspace.regex_scripts import global_regex_scripts, regex_allowance

    if as_json and ledger:
        raise BadInput("--json 与 --ledger 只能选一个")
    if chat:
        if preset is not None or st_version is not None:
            raise BadInput(
                "--chat 显示这段对话下一拍真正发送的请求（用卡的预设和版本），不能再加 --preset 或 --st-version"
            )
        _print_assembly(*_chat_preview(card, chat, message or ""), ledger=ledger)
        return
    home, folder, ctx = _card_context(card)
    settings = ctx["settings"]
    version = _st_version(st_version) if st_version else settings.st_version
    card_json: dict[str, Any] = ctx["card_json"]
    stored = card_json.get("tavern")
    tavern: dict[str, Any] = stored if isinstance(stored, dict) else {}
    preset_name = preset or settings.preset or None
    preset_data = _read_preset(home, preset_name) if preset_name else None
    loaded = folder.load_card()
    card_obj = card_to_object(loaded, "v2")
    worlds, books = card_worlds(home, folder, settings, loaded)
    model = str((preset_data or {}).get("custom_model") or settings.model.model or "")
    counter = counter_for_model(model, default=None) if model else counter_for_model("gpt-3.5-turbo")
    power_user = dict(tavern.get("power_user") or {}) if isinstance(tavern.get("power_user"), dict) else {}
    if settings.user_persona and "persona_description" not in power_user:
        power_user["persona_description"] = settings.user_persona
    global_regex, regex_warnings = global_regex_scripts(home)
    for warning in regex_warnings:
        print(f"warning: {warning}", file=sys.stderr)
    state_ = user_state(
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
    if not state_.chat:
        from peargarden.tavern.replay import start_new_chat

        start_new_chat(state_)
    if message:
        state_.chat.append(_user_message(state_, message))
    result = generate(state_, "normal", dry_run=True)
    body = request_body(state_.oai, result.messages, "normal", omit_empty_bias=state_.compat.omit_empty_logit_bias)
    _print_assembly(body, result, list(dict.fromkeys(result.warnings)), ledger=ledger)


def _chat_preview(card: str, chat: str, message: str) -> tuple[dict[str, Any], Any, list[str]]:
    """The next tavern beat of *chat* exactly as ``pear chat`` would send it (the service's preview)."""
    from peargarden.app.service import ChatOptions, PearApp

    from ._app import state

    preview = PearApp(state.home).open_chat(card, chat, ChatOptions(mode="tavern")).preview("tavern", message)
    return preview.inspect["body"], preview.inspect["assembly"], preview.warnings


def _print_assembly(body: dict[str, Any], assembly: Any, warnings: list[str], *, ledger: bool) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if ledger:
        print(format_ledger(assembly))
    else:
        print(dumps_json(body, indent=2))


@tavern_app.command("set")
def set_cmd(
    key: str = typer.Argument(..., help="What to set (context, response, prompt.<id>, order, note.prompt, …)."),
    value: str = typer.Argument(..., help="The new value."),
    card: str | None = typer.Option(None, "--card", help="Card whose 卡.json holds the setting."),
    chat: str | None = typer.Option(None, "--chat", help="Chat id: the Author's Note of this chat only."),
    preset: str | None = typer.Option(None, "--preset", help="Write preset-level settings into this preset."),
) -> None:
    """Change a tavern-mode control where SillyTavern keeps it (preset, card, chat metadata)."""
    from peargarden.tavern.controls import KEYS_HELP, apply_control
    from peargarden.workspace import atomic

    from ._app import state

    home = state.home
    if key == "regex":
        if card is None:
            raise BadInput("设置 regex 需要 --card")
        from peargarden.app.regex_allowance import set_allowance
        from peargarden.tavern.controls import parse_on_off

        allowed = parse_on_off(key, value)
        set_allowance(home, card, allowed)
        print(f"卡「{card}」自带的正则脚本：{'允许运行' if allowed else '不运行'}（保存在卡.json 的 regex_allowed）")
        return
    if key == "preset":
        if card is None:
            raise BadInput("设置 preset 需要 --card")
        _read_preset(home, value)
        _, folder, ctx = _card_context(card)
        settings_json: dict[str, Any] = ctx["card_json"]
        settings_json["preset"] = value
        folder.write_settings(settings_json)
        print(f"卡「{card}」改用预设「{value}」")
        return
    preset_data = None
    preset_path = None
    if preset is not None and (key in ("context", "response", "order") or key.startswith("prompt.")):
        from peargarden.modes.tavern.sources import preset_file

        preset_data = _read_preset(home, preset)
        preset_path = preset_file(home, preset)
    if card is None and preset_data is None:
        raise BadInput(f"需要 --card（或对预设设置用 --preset）；可用的设置：{KEYS_HELP}")
    folder = None
    card_json: dict[str, Any] = {}
    if card is not None:
        _, folder, ctx = _card_context(card)
        card_json = ctx["card_json"]
    tavern = card_json.setdefault("tavern", {})
    if not isinstance(tavern, dict):
        tavern = card_json["tavern"] = {}
    where = apply_control(key, value, tavern=tavern, preset=preset_data, chat_id=chat)
    if preset_data is not None and preset_path is not None:
        atomic.write_json(preset_path, preset_data)
    elif folder is not None:
        folder.write_settings(card_json)
    print(f"{key} = {value}（保存在{where}）")
