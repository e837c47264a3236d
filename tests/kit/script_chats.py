"""A chat to run TavernHelper scripts on: our own small card (小梨) on SillyTavern 1.18's state from
the recordings' common settings and preset (``tests/scripting/common``), the scripts in their own
process, a scripted model."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from peargarden.app.play.script_process import ScriptLimits, ScriptProcess
from peargarden.scripting.replay import case_state
from peargarden.scripting.session import ScriptSession
from peargarden.scripting.st_beat import opened
from peargarden.scripting.st_host import TavernScriptHost

COMMON = Path(__file__).parents[1] / "scripting" / "common"


def own_card(scripts: list[dict[str, Any]] | None = None, *, world: str = "", **data: Any) -> dict[str, Any]:
    """A card of ours in SillyTavern's shape, with TavernHelper scripts."""
    fields = {"name": "小梨", "description": "小梨是梨园的花旦。", "first_mes": "小梨向你行礼：“师父早！”", **data}
    extensions = {"tavern_helper": {"scripts": scripts or [], "variables": {}}, "world": world}
    return {**fields, "data": {**fields, "extensions": extensions}}


class Chat:
    """A chat's state, its host and the scripts' session."""

    def __init__(self, card: dict[str, Any], replies: list[str], limits: ScriptLimits | None, worlds: Any) -> None:
        overrides = json.loads((COMMON / "st_settings_overrides.json").read_text(encoding="utf-8"))
        preset = json.loads((COMMON / "preset.json").read_text(encoding="utf-8"))
        given = {"card": card, "worlds": worlds or {}, "character_file": "xiaoli.png"}
        self.state = case_state(given, overrides, preset)
        self.state.clock = lambda: datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
        opened(self.state)
        self.host = TavernScriptHost(self.state, reply=lambda n: replies[n - 1] if n <= len(replies) else f"回复{n}")
        self.session = ScriptSession(ScriptProcess(limits), self.host)

    def run(self, code: str, name: str = "测试脚本", script_id: str = "s1") -> ScriptSession:
        self.session.start(script_id, name, code)
        return self.session

    def read(self, *path: str) -> Any:
        return self.session.read(list(path))


ChatFactory = Callable[..., Chat]
