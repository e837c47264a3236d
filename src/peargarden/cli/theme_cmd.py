"""``pear theme``: SillyTavern themes (「美化」) — list, import, export, choose, light or dark, user CSS."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from peargarden.app.extras import export_theme, import_theme_file, list_themes, save_css_file, theme_settings, use_theme
from peargarden.app.extras import set_theme_mode as set_mode
from peargarden.app.play import save_file
from peargarden.formats import dumps_json

from ._app import app, state

theme_app = typer.Typer(help="酒馆主题（美化）：导入、导出、选用、明暗、自定义 CSS。", no_args_is_help=True)
app.add_typer(theme_app, name="theme")


def _removed(removed: list[str]) -> None:
    for item in removed:
        print(f"已从自定义 CSS 里去掉：{item}", file=sys.stderr)


@theme_app.command("list")
def list_cmd(as_json: bool = typer.Option(False, "--json", help='打印 {"themes", "active", "mode"}。')) -> None:
    """主题列表（* 是正在用的），和明暗模式。"""
    cfg = theme_settings(state.home)
    found = list_themes(state.home)
    if as_json:
        print(dumps_json({"themes": found, "active": cfg.name, "mode": cfg.mode}, indent=2))
        return
    for theme in found:
        print(f"{'*' if theme['active'] else ' '} {theme['name']}{'  ' + theme['error'] if theme['error'] else ''}")
    print(f"模式：{cfg.mode}；{'梨园自己的样子' if not cfg.name else '主题：' + cfg.name}", file=sys.stderr)


@theme_app.command("import")
def import_cmd(file: Path = typer.Argument(..., help="酒馆导出的主题文件（.json）。")) -> None:
    """导入一个酒馆主题文件（同名的替换）。"""
    done = import_theme_file(state.home, file)
    print(done["name"])
    _removed(done["removed"])


@theme_app.command("export")
def export_cmd(
    name: str | None = typer.Argument(None, help="主题名；默认正在用的（没有就是梨园自己的样子）。"),
    out: Path = typer.Option(..., "--out", help="写到这个文件（酒馆的主题格式）。"),
) -> None:
    """把主题导出成酒馆的主题文件。"""
    found, data = export_theme(state.home, name)
    save_file(out, data)
    print(f"{out}（{found}）", file=sys.stderr)


@theme_app.command("use")
def use_cmd(name: str = typer.Argument("", help="主题名；不写就回到梨园自己的样子。")) -> None:
    """选用一个主题。"""
    use_theme(state.home, name)


@theme_app.command("mode")
def mode_cmd(mode: str = typer.Argument(..., help="light、dark 或 auto（跟随系统）。")) -> None:
    """明暗：light、dark、auto。"""
    set_mode(state.home, mode)


@theme_app.command("css")
def css_cmd(file: Path = typer.Argument(..., help="CSS 文件（- 从标准输入读）。")) -> None:
    """自定义 CSS：存进正在用的主题（没有就存成「我的主题」）。"""
    done = save_css_file(state.home, file)
    print(done["name"])
    _removed(done["removed"])
