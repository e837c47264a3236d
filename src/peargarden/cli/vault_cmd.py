"""``pear vault``: snapshots of the whole data folder — take, list, compare, restore."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from peargarden.app.library import Snapshots

from ._app import app, state
from ._vault import tidy

if TYPE_CHECKING:
    from peargarden.app.library import Snapshots

vault_app = typer.Typer(
    name="vault",
    help="资产保险库：整个数据文件夹的快照（世界书、预设、人设、技能、每张卡和对话）。",
    no_args_is_help=True,
)
app.add_typer(vault_app, name="vault")


def _vault() -> Snapshots:
    # Imported here so that `pear --help` does not load the vault.

    tidy(state.home)  # what a killed snapshot left behind goes first, and the user is told
    return Snapshots(state.home)


@vault_app.command("snapshot")
def snapshot_command(
    reason: str = typer.Option("manual", "--reason", help="Why this snapshot was taken (shown in the list)."),
) -> None:
    """Take a snapshot now; nothing is added when nothing changed since the newest one."""
    vault = _vault()
    info = vault.take(reason)
    if info is None:
        latest = vault.latest()
        since = f"快照 {latest.id}" if latest else "上一个快照"
        typer.echo(f"没有变化：与{since}相同，未新建快照")
        return
    typer.echo(f"已存快照 {info.id}：{info.files} 个文件，{_size(info.size)}（{info.reason}）")


@vault_app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print a JSON array, oldest first."),
) -> None:
    """List snapshots, oldest first."""
    snapshots = _vault().snapshots()
    if as_json:
        typer.echo(json.dumps([s.to_json() for s in snapshots], ensure_ascii=False, indent=2))
        return
    if not snapshots:
        typer.echo("还没有快照（pear vault snapshot 存一个）")
        return
    for s in snapshots:
        typer.echo(f"{s.id}\t{s.time}\t{s.files} 个文件\t{_size(s.size)}\t{s.reason}")


@vault_app.command("diff")
def diff_command(
    a: str = typer.Argument(..., metavar="A", help="The older snapshot id (or an unambiguous prefix)."),
    b: str = typer.Argument(..., metavar="B", help="The newer snapshot id."),
    path: str | None = typer.Argument(
        None, metavar="PATH", help="A file (shows a text diff) or folder inside the data folder."
    ),
) -> None:
    """What changed between two snapshots: added (A), removed (D) and changed (M) files."""
    found = _vault().diff(a, b, path)
    if found.text is not None:  # PATH is a file: its text diff
        typer.echo(found.text if found.text else f"{found.path} 没有变化", nl=not found.text)
        return
    result = found.diff
    for rel in result.added:
        typer.echo(f"A\t{rel}")
    for rel in result.removed:
        typer.echo(f"D\t{rel}")
    for rel in result.changed:
        typer.echo(f"M\t{rel}")
    if result.empty:
        typer.echo(f"{result.a} → {result.b}：没有变化")


@vault_app.command("restore")
def restore_command(
    snapshot_id: str = typer.Argument(..., metavar="ID", help="The snapshot to bring back."),
    path: str | None = typer.Argument(
        None, metavar="PATH", help="Restore only this file or folder (relative to the data folder)."
    ),
) -> None:
    """Bring back a snapshot (or one file or folder of it); the current state is snapshotted first."""
    result = _vault().restore(snapshot_id, path)
    what = result.path or "整个数据文件夹"
    typer.echo(
        f"已从快照 {result.snapshot_id} 恢复 {what}：写回 {len(result.written)} 个文件，"
        f"删除 {len(result.removed)} 个，{result.unchanged} 个本来就相同"
    )
    if result.before:
        typer.echo(f"恢复之前的状态在快照 {result.before}（pear vault restore {result.before} 可撤销）")


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"
