"""``pear group``: group chats as data — make a group of cards, list, edit, mute, delete, and move
groups and their chats in and out of SillyTavern's files.  Play one with ``pear chat --group NAME``."""

from __future__ import annotations

from pathlib import Path

import typer

from peargarden.app.library import (
    GROUP_MODE_NAMES,
    create_group,
    delete_group,
    edit_group,
    export_group,
    group_list,
    import_group_files,
    open_group,
    set_muted,
)
from peargarden.errors import BadInput
from peargarden.formats import dumps_json

from ._app import app, state

group_app = typer.Typer(
    help="群聊：建群、列出、修改、静音成员、删除、导入导出 SillyTavern 群聊。", no_args_is_help=True
)
app.add_typer(group_app, name="group")

_STRATEGY_HELP = (
    "发言策略：natural（点名 + 健谈度）| list（按顺序都说）| manual（只在 /trigger 时说）| pooled（轮流一人）。"
)
_GENERATION_HELP = "角色卡：swap（只用发言者的）| join（合并未静音成员的）| join-muted（合并全部成员的）。"
_MODE_HELP = f"新对话的方式：{' | '.join(GROUP_MODE_NAMES)}。"
_CHOICE_HELP = "舞台模式里谁接着说：strategy（按发言策略）| model（由发言的模型用 next_speaker 指定）。"


@group_app.command("create")
def create_command(
    name: str = typer.Argument(..., help="群聊名。"),
    member: list[str] = typer.Option(..., "--member", help="成员的卡名（可重复，按发言顺序）。"),
    strategy: str | None = typer.Option(None, "--strategy", help=_STRATEGY_HELP),
    generation: str | None = typer.Option(None, "--generation", help=_GENERATION_HELP),
    mode: str | None = typer.Option(None, "--mode", help=_MODE_HELP),
    speaker_choice: str | None = typer.Option(None, "--speaker-choice", help=_CHOICE_HELP),
) -> None:
    """Make a group of cards (groups/NAME/group.json, as SillyTavern writes it)."""
    folder = create_group(
        state.home, name, member, strategy=strategy, generation=generation, mode=mode, speaker_choice=speaker_choice
    )
    typer.echo(f"已建群聊「{folder.folder}」：{'、'.join(member)}（pear chat --group {folder.folder}）")


@group_app.command("list")
def list_command(as_json: bool = typer.Option(False, "--json", help="JSON output (non-ASCII kept readable).")) -> None:
    """List the groups: members (muted ones marked), strategy, card joining, number of chats."""
    rows = group_list(state.home)
    if as_json:
        typer.echo(dumps_json(rows, indent=2))
        return
    if not rows:
        typer.echo("还没有群聊。用 pear group create NAME --member CARD … 建一个。")
        return
    for row in rows:
        if "error" in row:
            typer.echo(f"{row['folder']}\t[损坏] {row['error']}")
            continue
        members = "、".join(
            (m["name"] if m["card"] else f"{m['avatar']}（缺卡）") + ("（静音）" if m["muted"] else "")
            for m in row["members"]
        )
        typer.echo(f"{row['folder']}\t{members}\t{row['strategy']} / {row['generation']}\t{row['chats']} 个对话")


@group_app.command("edit")
def edit_command(
    name: str = typer.Argument(..., help="群聊名。"),
    add: list[str] = typer.Option([], "--add", help="加入成员（卡名，可重复）。"),
    remove: list[str] = typer.Option([], "--remove", help="移出成员（卡名或角色名，可重复）。"),
    title: str | None = typer.Option(None, "--name", help="新的群聊名（文件夹不变）。"),
    strategy: str | None = typer.Option(None, "--strategy", help=_STRATEGY_HELP),
    generation: str | None = typer.Option(None, "--generation", help=_GENERATION_HELP),
    self_responses: bool | None = typer.Option(
        None, "--self-responses/--no-self-responses", help="同一成员能否接着自己说（natural 策略）。"
    ),
    join_prefix: str | None = typer.Option(
        None, "--join-prefix", help="合并角色卡时每段的前缀（<FIELDNAME>、{{char}}）。"
    ),
    join_suffix: str | None = typer.Option(None, "--join-suffix", help="合并角色卡时每段的后缀。"),
    mode: str | None = typer.Option(None, "--mode", help=_MODE_HELP),
    speaker_choice: str | None = typer.Option(None, "--speaker-choice", help=_CHOICE_HELP),
) -> None:
    """Change a group: members, name, strategy, card joining, self-responses, join prefix/suffix, mode."""
    folder = edit_group(
        state.home,
        name,
        add=add,
        remove=remove,
        title=title,
        strategy=strategy,
        generation=generation,
        self_responses=self_responses,
        join_prefix=join_prefix,
        join_suffix=join_suffix,
        mode=mode,
        speaker_choice=speaker_choice,
    )
    typer.echo(f"已修改群聊「{folder.folder}」")


@group_app.command("mute")
def mute_command(
    name: str = typer.Argument(..., help="群聊名。"),
    card: str = typer.Argument(..., help="成员（卡名或角色名）。"),
) -> None:
    """Mute a member: it speaks only when called on (/trigger); its greeting and past lines stay."""
    changed = set_muted(state.home, name, card, True)
    typer.echo(f"已静音「{card}」" if changed else f"「{card}」本来就是静音的")


@group_app.command("unmute")
def unmute_command(
    name: str = typer.Argument(..., help="群聊名。"),
    card: str = typer.Argument(..., help="成员（卡名或角色名）。"),
) -> None:
    """Unmute a member."""
    changed = set_muted(state.home, name, card, False)
    typer.echo(f"已取消静音「{card}」" if changed else f"「{card}」没有被静音")


@group_app.command("delete")
def delete_command(name: str = typer.Argument(..., help="群聊名。")) -> None:
    """Delete a group and its chats (a vault snapshot is taken first: pear vault restore undoes it)."""
    done = delete_group(state.home, name)
    typer.echo(f"已删除 {done['path']}（快照 {done['snapshot']}：pear vault restore {done['snapshot']} 可恢复）")


@group_app.command("chats")
def chats_command(
    name: str = typer.Argument(..., help="群聊名。"),
    as_json: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """The group's chats (ids for pear chat --group NAME --chat ID)."""
    ids = open_group(state.home, name).chat_ids()
    if as_json:
        typer.echo(dumps_json(ids, indent=2))
        return
    for chat_id in ids:
        typer.echo(chat_id)


@group_app.command("import")
def import_command(
    group_file: Path = typer.Argument(..., help="SillyTavern 的群聊文件 groups/<id>.json。"),
    chats: list[Path] = typer.Argument(None, help="它的对话：group chats/<chat id>.jsonl（可多个）。"),
    name: str | None = typer.Option(None, "--name", help="群聊在这里的名字（默认：文件里的 name）。"),
) -> None:
    """Import a SillyTavern group (its members' cards must be imported first) and its chats."""
    folder, ids = import_group_files(state.home, group_file, chats or [], name=name)
    typer.echo(f"已导入群聊「{folder.folder}」" + (f"，对话：{'、'.join(ids)}" if ids else ""))


@group_app.command("export")
def export_command(
    name: str = typer.Argument(..., help="群聊名。"),
    out: Path = typer.Option(..., "-o", "--out", help="输出文件夹（写入 groups/ 和 group chats/）。"),
) -> None:
    """Export a group as SillyTavern's files: OUT/groups/<id>.json and OUT/group chats/<chat>.jsonl."""
    if out.exists() and not out.is_dir():
        raise BadInput("-o 要给一个文件夹", path=out)
    for path in export_group(state.home, name, out):
        typer.echo(str(path))
