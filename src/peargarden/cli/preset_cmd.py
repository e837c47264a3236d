"""``pear preset``: declare a SillyTavern preset into a card's files, list and change labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from peargarden.app.cards import block_places, declare_preset, preset_labels, relabel_block, remove_declaration
from peargarden.errors import BadInput

from ._app import app, state

preset_app = typer.Typer(help="预设声明：把酒馆预设分块贴标签，分流进卡的提示词文件。", no_args_is_help=True)
app.add_typer(preset_app, name="preset")


def _given_labels(path: Path) -> list[dict[str, Any]]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"无法读取：{error}", path=path) from None
    except json.JSONDecodeError as error:
        raise BadInput(f"不是 JSON（{error.msg}）", path=path) from None
    if not isinstance(value, list) or not all(isinstance(v, dict) and "id" in v for v in value):
        raise BadInput('需要一个数组：[{"id": <块标识>, "station": <站点>}]', path=path)
    return value


@preset_app.command("declare")
def declare_command(
    preset: str | None = typer.Argument(None, help="Preset stem in library/presets/."),
    card: str = typer.Option(..., "--card"),
    labels: Path | None = typer.Option(None, "--labels", help="JSON array of {id, station}: no model is called."),
    remove: bool = typer.Option(False, "--remove", help="Take the preset's entries out of the card again."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Label each block (cache, --labels or the side model) and route it; sets the card's active preset."""
    home = state.home
    if remove:
        changed = remove_declaration(home, card)
        typer.echo(json.dumps({"removed": True, "changed_files": changed}, ensure_ascii=False) if as_json
                   else "已移除预设条目：" + ("、".join(changed) or "无改动"))  # fmt: skip
        return
    if not preset:
        raise BadInput("需要预设名（PRESET），或用 --remove")
    given = _given_labels(labels) if labels is not None else None
    result = declare_preset(home, card, preset, given)
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False))
        return
    for block_id, where in block_places(result):
        typer.echo(f"{block_id:<24} {where}")
    for warning in result.warnings:
        typer.echo(f"提醒：{warning}", err=True)
    typer.echo("改动文件：" + ("、".join(result.changed_files) or "无"))


@preset_app.command("labels")
def labels_command(preset: str, as_json: bool = typer.Option(False, "--json")) -> None:
    """The cached labels of a preset (shared by all cards)."""
    items = preset_labels(state.home, preset)
    if as_json:
        typer.echo(json.dumps(items, ensure_ascii=False))
        return
    for item in items:
        typer.echo(f"{item.get('id', ''):<24} {item.get('station', '')}  {item.get('note', '')}")


@preset_app.command("relabel")
def relabel_command(preset: str, block_id: str, station: str, card: str = typer.Option(..., "--card")) -> None:
    """Set one block's station yourself and re-route the card."""
    result = relabel_block(state.home, preset, card, block_id, station)
    changed = "、".join(result.changed_files) or "无"
    typer.echo(f"{block_id} → {result.labels.stations[block_id]}；改动文件：{changed}")
