"""The mode tables make a mode's row when a chat first plays in it (modes.base.ModeTable)."""

from __future__ import annotations

from peargarden.modes.base import ModeTable, PlayMode
from peargarden.modes.group.table import GROUP_MODES
from peargarden.modes.table import MODES, WORK


def test_a_row_is_made_once_on_first_use_and_naming_loads_nothing() -> None:
    made: list[str] = []

    def loader(name: str) -> PlayMode:
        made.append(name)
        return PlayMode(WORK.setup, tool_mode="tavern" if name == "酒馆" else "stage")

    table = ModeTable({"舞台": lambda: loader("舞台"), "酒馆": lambda: loader("酒馆")})
    assert "酒馆" in table and "工作" not in table
    assert list(table) == ["舞台", "酒馆"] and len(table) == 2
    assert made == []
    assert table["酒馆"] is table["酒馆"]
    assert table["酒馆"].tool_mode == "tavern"
    assert made == ["酒馆"]
    assert table.get("工作") is None


def test_the_tables_name_their_modes_and_each_row_plays_its_tool_mode() -> None:
    assert list(MODES) == ["stage", "tavern", "work"]
    assert {name: MODES[name].tool_mode for name in MODES} == {"stage": "stage", "tavern": "tavern", "work": "work"}
    assert list(GROUP_MODES) == ["stage", "tavern"]
    assert GROUP_MODES["stage"].after_reply is not None and GROUP_MODES["tavern"].tool_mode == "tavern"
