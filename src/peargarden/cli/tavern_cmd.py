"""``pear tavern …``: SillyTavern-exact prompt assembly from the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from peargarden.app.cards import set_card_preset, set_control, set_regex, set_scripts
from peargarden.app.play import hosts_state, set_host
from peargarden.errors import BadInput
from peargarden.formats import dumps_json

from . import _assemble
from ._app import app, state
from ._assemble import format_ledger

tavern_app = typer.Typer(help="SillyTavern 兼容的提示词拼装 (tavern mode).", no_args_is_help=True)
app.add_typer(tavern_app, name="tavern")


@tavern_app.command("replay")
def replay_cmd(
    case_dir: Path = typer.Argument(..., help="Oracle case folder (settings.json, card.json, preset.json, …)."),
    ledger: bool = typer.Option(False, "--ledger", help="Print the ledger table instead of the request body."),
    st_version: str | None = typer.Option(
        None, "--st-version", help="SillyTavern release to match: 1.12 or 1.18 (default: the case's settings.json)."
    ),
) -> None:
    """Replay an oracle case's steps and print the request body of the last generation (a group
    case: a JSON array of every request body, in order)."""
    # On demand: a case's replay is SillyTavern's whole host (STscript, the group replay), which
    # `pear tavern assemble` of a chat never needs.
    from peargarden.app.play import is_group_case, replay_tavern_case

    result = replay_tavern_case(case_dir, st_version)
    for warning in dict.fromkeys(result.warnings):
        print(f"warning: {warning}", file=sys.stderr)
    if result.body is None or result.assembly is None:
        raise BadInput("案例的步骤里没有任何一次生成", path=case_dir)
    group = is_group_case(result)
    if ledger and group:
        for number, assembly in enumerate(result.assemblies, 1):
            print(f"== 第 {number} 次生成 ==")
            print(format_ledger(assembly))
    elif ledger:
        print(format_ledger(result.assembly))
    else:
        print(dumps_json(result.generations if group else result.body, indent=2))


# -- the user's own data folder ------------------------------------------------------------------


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
    # The work is _assemble's, which ._light also calls when it reads a plain command line itself.
    _assemble.assemble(
        card=card,
        preset=preset,
        chat=chat,
        message=message,
        as_json=as_json,
        ledger=ledger,
        st_version=st_version,
        seed=seed,
    )


@tavern_app.command("hosts")
def hosts_cmd(
    card: str = typer.Option(..., "--card", help="Card name (folder) in the data folder."),
    as_json: bool = typer.Option(False, "--json", help="Print {card, hosts, pins} as JSON."),
) -> None:
    """The hosts the card may load remote modules from (the answers) and the modules it plays from the
    data folder (each address pinned to its bytes' sha256)."""
    found = hosts_state(state.home, card)
    if as_json:
        print(dumps_json(found, indent=2))
        return
    if not found["hosts"] and not found["pins"]:
        print(f"卡「{found['card']}」没有回答过远程模块的主机，也没有钉住的模块")
    for host, allowed in sorted(found["hosts"].items()):
        print(f"{host}\t{'允许' if allowed else '不允许'}")
    for item in found["pins"]:
        print(f"{item['sha256'][:12]}\t{item['url']}")


@tavern_app.command("set")
def set_cmd(
    key: str = typer.Argument(..., help="What to set (context, response, prompt.<id>, order, note.prompt, …)."),
    value: str = typer.Argument(..., help="The new value."),
    card: str | None = typer.Option(None, "--card", help="Card whose 卡.json holds the setting."),
    chat: str | None = typer.Option(None, "--chat", help="Chat id: the Author's Note of this chat only."),
    preset: str | None = typer.Option(None, "--preset", help="Write preset-level settings into this preset."),
) -> None:
    """Change a tavern-mode control where SillyTavern keeps it (preset, card, chat metadata)."""

    home = state.home
    if key == "regex":
        if card is None:
            raise BadInput("设置 regex 需要 --card")
        allowed = set_regex(home, card, value)
        print(f"卡「{card}」自带的正则脚本：{'允许运行' if allowed else '不运行'}（保存在卡.json 的 regex_allowed）")
        return
    if key == "scripts":
        if card is None:
            raise BadInput("设置 scripts 需要 --card")
        allowed = set_scripts(home, card, value)
        print(f"卡「{card}」的 TavernHelper 脚本：{'变量系统（MVU）运行' if allowed else '变量系统（MVU）不运行'}"
              "（保存在卡.json 的 scripts_allowed；脚本自己的代码从不运行）")  # fmt: skip
        return
    if key.startswith("host."):
        if card is None:
            raise BadInput(f"设置 {key} 需要 --card")
        host, allowed, dropped = set_host(home, card, key.removeprefix("host."), value)
        said = "允许加载（第一次用到时下载一次，之后离线用数据文件夹里的同一份）" if allowed else "不加载"
        gone = f"；删掉了 {dropped} 个已钉住的模块" if dropped else ""
        print(f"卡「{card}」从 {host} 的远程模块：{said}（保存在卡.json 的 remote_hosts）{gone}")
        return
    if key == "preset":
        if card is None:
            raise BadInput("设置 preset 需要 --card")
        set_card_preset(home, card, value)
        print(f"卡「{card}」改用预设「{value}」")
        return
    where = set_control(home, key, value, card=card, chat=chat, preset=preset)
    print(f"{key} = {value}（保存在{where}）")
