"""``pear tavern …``: SillyTavern-exact prompt assembly from the command line."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path
from typing import Any

import typer

from peargarden.app import ChatOptions, PearApp
from peargarden.app.cards import set_card_preset, set_control, set_regex, set_scripts
from peargarden.app.play import TAVERN, hosts_state, set_host
from peargarden.errors import BadInput
from peargarden.formats import dumps_json

from ._app import app, state

tavern_app = typer.Typer(help="SillyTavern 兼容的提示词拼装 (tavern mode).", no_args_is_help=True)
app.add_typer(tavern_app, name="tavern")


def _width(text: str) -> int:

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
    if as_json and ledger:
        raise BadInput("--json 与 --ledger 只能选一个")
    if chat:
        if preset is not None or st_version is not None:
            raise BadInput(
                "--chat 显示这段对话下一拍真正发送的请求（用卡的预设和版本），不能再加 --preset 或 --st-version"
            )
        _print_assembly(*_chat_preview(card, chat, message or ""), ledger=ledger)
        return
    _print_assembly(*_new_chat_preview(card, message or "", preset, st_version, seed), ledger=ledger)


def _chat_preview(card: str, chat: str, message: str) -> tuple[dict[str, Any], Any, list[str]]:
    """The next tavern beat of *chat* exactly as ``pear chat`` would send it (the service's preview)."""
    preview = PearApp(state.home).open_chat(card, chat, ChatOptions(mode=TAVERN)).preview(TAVERN, message)
    return preview.inspect["body"], preview.inspect["assembly"], preview.warnings


def _new_chat_preview(
    card: str, message: str, preset: str | None, st_version: str | None, seed: int | None
) -> tuple[dict[str, Any], Any, list[str]]:
    """The first tavern beat of a new chat with *card*, exactly as ``pear chat`` would send it (the
    service's preview of a chat that lives only in memory)."""
    options = ChatOptions(mode=TAVERN, preset=preset, st_version=st_version)
    preview = PearApp(state.home).draft_chat(card, options, seed=seed).preview(TAVERN, message)
    return preview.inspect["body"], preview.inspect["assembly"], preview.warnings


def _print_assembly(body: dict[str, Any], assembly: Any, warnings: list[str], *, ledger: bool) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if ledger:
        print(format_ledger(assembly))
    else:
        print(dumps_json(body, indent=2))


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
