"""``pear tavern …``: SillyTavern-exact prompt assembly from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from peargarden.errors import BadInput, FormatError, NotFound

from ._app import app

tavern_app = typer.Typer(help="SillyTavern 兼容的提示词拼装 (tavern mode).", no_args_is_help=True)
app.add_typer(tavern_app, name="tavern")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise FormatError(f"不是有效的 JSON：{error.msg}（第 {error.lineno} 行）", path=path) from None
    except OSError as error:
        raise BadInput(f"无法读取：{error.strerror}", path=path) from None


def _read_jsonl(path: Path) -> list[Any]:
    rows = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise BadInput(f"无法读取：{error.strerror}", path=path) from None
    for number, line in enumerate(text.splitlines(), 1):
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
    if not card_path.exists():
        raise NotFound("案例里没有 card.json", path=case_dir)
    card = _read_json(card_path)
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


def format_ledger(assembly: Any) -> str:
    lines = [f"{'#':>3}  {'slot':<28} {'role':<9} {'tokens':>6}  开头"]
    for i, row in enumerate(assembly.ledger, 1):
        slot = row.slot if not row.name else f"{row.slot} [{row.name}]"
        lines.append(f"{i:>3}  {slot:<28} {row.role:<9} {row.tokens:>6}  {row.head}")
    lines.append(
        f"合计 {assembly.used} / 预算 {assembly.budget + 3}（含 3 个回复起始 token），"
        f"历史 {assembly.history_tokens}，进入上下文的对话消息 {assembly.in_context_count} 条"
    )
    for warning in assembly.warnings:
        lines.append(f"⚠ {warning}")
    return "\n".join(lines)


@tavern_app.command("replay")
def replay_cmd(
    case_dir: Path = typer.Argument(..., help="Oracle case folder (settings.json, card.json, preset.json, …)."),
    ledger: bool = typer.Option(False, "--ledger", help="Print the ledger table instead of the request body."),
) -> None:
    """Replay an oracle case's steps and print the request body of the last generation."""
    from peargarden.tavern.replay import replay

    result = replay(load_case(case_dir))
    for warning in dict.fromkeys(result.warnings):
        print(f"warning: {warning}", file=sys.stderr)
    if result.body is None or result.assembly is None:
        raise BadInput("案例的步骤里没有任何一次生成", path=case_dir)
    if ledger:
        print(format_ledger(result.assembly))
    else:
        print(json.dumps(result.body, ensure_ascii=False, indent=2))
