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
from peargarden.formats import card_to_object, read_card
from peargarden.formats.groups import read_group
from peargarden.tavern.group_replay import replay_group
from peargarden.tavern.replay import CaseData, replay
from peargarden.workspace.config import check_st_version
from peargarden.workspace.inputs import read_json


def _read_json(path: Path) -> Any:

    return read_json(path)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise BadInput(f"无法读取：{error.strerror}", path=path) from None


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


def _read_card(case_dir: Path, stem: str) -> Any:
    """``<stem>.json`` (the card as SillyTavern holds it), else the PNG it was placed as."""
    json_path = case_dir / f"{stem}.json"
    if json_path.exists():
        return _read_json(json_path)
    png = case_dir / f"{stem}.png"
    if not png.exists():
        pngs = sorted(case_dir.glob("*.png")) if stem == "card" else []
        if not pngs:
            raise NotFound(f"案例里没有 {stem}.json 或 {stem}.png", path=case_dir)
        png = pngs[0]

    return card_to_object(read_card(png.read_bytes(), str(png)), "v2")


def _group_members(case_dir: Path, settings: dict[str, Any]) -> dict[str, Any]:
    """A group case's member cards by avatar file name (``settings.json → members``)."""
    members = settings.get("members")
    if not isinstance(members, list) or not members:
        raise FormatError("群聊案例的 settings.json 缺少 members（card、file）", path=case_dir / "settings.json")
    cards: dict[str, Any] = {}
    for member in members:
        if not isinstance(member, dict) or not isinstance(member.get("card"), str):
            raise FormatError("settings.json 的 members 每一项都要有 card 和 file", path=case_dir / "settings.json")
        card = _read_card(case_dir, member["card"])
        name = card.get("name") if isinstance(card, dict) else None
        cards[str(member.get("file") or f"{name}.png")] = card
    return cards


def load_case(case_dir: Path) -> Any:
    """Read an oracle case folder into :class:`peargarden.tavern.replay.CaseData` (a group case —
    ``group.json`` with member cards ``card1.json`` … — fills ``group`` and ``members``)."""

    if not case_dir.is_dir():
        raise NotFound(f"找不到案例文件夹 {case_dir}")
    settings = _read_json(case_dir / "settings.json")
    if not isinstance(settings, dict):
        raise FormatError("settings.json 必须是 JSON 对象", path=case_dir / "settings.json")
    group_path = case_dir / str(settings.get("group_file") or "group.json")
    group = None
    members: dict[str, Any] = {}
    if group_path.is_file():
        group = read_group(_read_bytes(group_path), str(group_path)).raw
        members = _group_members(case_dir, settings)
        card = next(iter(members.values()))
        chat_path = case_dir / str(settings.get("group_chat_file") or "group_chat.jsonl")
    else:
        card = _read_card(case_dir, "card")
        chat_path = case_dir / "chat.jsonl"
    preset_path = case_dir / "preset.json"
    preset = _read_json(preset_path) if preset_path.exists() else None
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
    if not isinstance(card, dict) or not all(isinstance(c, dict) for c in members.values()):
        raise FormatError("角色卡必须是 JSON 对象", path=case_dir)
    return CaseData(
        settings=settings,
        card=card,
        preset=preset,
        chat_header=header,
        chat=chat,
        worlds=worlds,
        group=group,
        members=members,
    )


def replay_case(case_dir: Path, version: str | None = None) -> Any:
    """Replay the case's steps (as *version* of SillyTavern, default the case's own): the
    ``ReplayResult`` with the body and assembly of the last generation, every generation's body
    (``generations``) and the warnings.  A group case is replayed as the group it records."""

    checked = check_st_version(version) if version else None  # a bad flag is said before the case is read
    case = load_case(case_dir)
    if case.group is not None:
        return replay_group(case, version=checked)
    return replay(case, version=checked)


def is_group_case(result: Any) -> bool:
    """Whether a replay result came from a group case (its state has a cast)."""
    return getattr(result.state, "cast", None) is not None
