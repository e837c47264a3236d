"""``pear card expand|check|apply|undo NAME``: the card project 创作/ (work mode from the shell)."""

from __future__ import annotations

import typer

from peargarden.app.cards import CardProject, open_project
from peargarden.formats import dumps_json

from ._app import app, state

card_app = typer.Typer(
    help="创作/：把卡展开成一槽一文件，检查，写回，撤销（card authoring project）。", no_args_is_help=True
)
app.add_typer(card_app, name="card")


def _project(name: str) -> CardProject:
    return open_project(state.home, name)


@card_app.command("expand")
def expand_command(
    name: str,
    force: bool = typer.Option(False, "--force", help="Overwrite edited files and drop unapplied edits."),
) -> None:
    """Expand the card into cards/<card>/创作/: one file per slot plus manifest.json."""
    project = _project(name)
    written = project.expand(force=force)
    typer.echo(f"{project.root}: {len(written)} 个文件已写出（files written）")


@card_app.command("check")
def check_command(name: str, as_json: bool = typer.Option(False, "--json")) -> None:
    """Show what changed in 创作/ and any syntax problems; exit 1 when apply would refuse."""
    report = _project(name).check()
    if as_json:
        typer.echo(dumps_json(report.to_json()))
    else:
        for change in report.changes:
            typer.echo(f"改动 {change.label}  ({change.file})")
        for problem in report.problems:
            typer.echo(f"问题 {problem}")
        if report.stale:
            typer.echo("原卡在展开后被修改：" + ("、".join(report.changed_underneath) or "仅格式或图片"))
        if not report.changes and not report.problems and not report.stale:
            typer.echo("没有改动（no changes）")
    if report.problems or report.stale:
        raise typer.Exit(1)


@card_app.command("apply")
def apply_command(name: str) -> None:
    """Write the changed slots back into the card file (only those)."""
    changes = _project(name).apply()
    if not changes:
        typer.echo("没有改动，卡文件未动（nothing to apply）")
        return
    for change in changes:
        typer.echo(f"已写回 {change.label}")


@card_app.command("undo")
def undo_command(name: str) -> None:
    """Put back the card as it was before the last apply."""
    _project(name).undo()
    typer.echo("已撤销上一次写回（undone）")
