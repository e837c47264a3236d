"""Corners of the update that the recorded cases do not reach, checked against MVU's own code by hand."""

from __future__ import annotations

import pytest

from peargarden.variables.initvar import Lorebook, initialize
from peargarden.variables.update import VariableUpdateError, update_variables


def _seed(stat: dict[str, object]) -> dict[str, object]:
    import json

    book = Lorebook(
        "书", [{"comment": "[InitVar] 初始", "content": json.dumps(stat, ensure_ascii=False), "disable": True}]
    )
    return initialize(None, [book]).variables


def test_a_date_pushed_out_of_range_stops_the_whole_update() -> None:
    variables = _seed({"时间": "2024-01-01T08:00:00.000Z", "金钱": 1})
    with pytest.raises(VariableUpdateError):
        update_variables("_.set('金钱', 2);\n_.add('时间', 1e21);", variables)


def test_a_patch_block_with_words_after_its_array_still_applies() -> None:
    variables = _seed({"金钱": 1})
    result = update_variables(
        '<JSONPatch>[{"op": "delta", "path": "/金钱", "value": 4}] 以上是更新</JSONPatch>', variables
    )
    assert result.modified and variables["stat_data"] == {"金钱": 5}
    assert variables["delta_data"] == {"金钱": "1->5 (json_patch)"}


def test_refused_commands_are_warnings_and_the_rest_applies() -> None:
    variables = _seed({"物品": ["折扇"], "心情": "平静"})
    result = update_variables("_.insert('物品', '笛子');//新得\n_.set('心情', '开心');\n_.set('体力', 5);", variables)
    assert variables["stat_data"] == {"物品": ["折扇"], "心情": "开心"}
    assert len(result.warnings) == 2
    assert "non-extensible array" in result.warnings[0] and "体力" in result.warnings[1]


def test_removing_by_index_in_the_path_bypasses_the_schema_and_leaves_no_line() -> None:
    variables = _seed({"物品": ["折扇", "茶壶"]})
    update_variables("_.remove('物品[0]');//用掉", variables)
    assert variables["stat_data"] == {"物品": ["茶壶"]}
    assert variables["delta_data"] == {}


def test_macros_in_the_reply_are_expanded_first() -> None:
    variables = _seed({"主角": {"名字": "无名"}})
    update_variables(
        "_.set('主角.名字', '{{user}}');", variables, expand_macros=lambda text: text.replace("{{user}}", "阿梨")
    )
    assert variables["stat_data"] == {"主角": {"名字": "阿梨"}}


def test_initvar_reads_disabled_entries_in_order_and_existing_values_win() -> None:
    book = Lorebook(
        "书",
        {
            "1": {"comment": "[initvar]乙", "content": "金钱: 5\n物品: [扇]", "disable": True},
            "0": {"comment": "[initvar]甲", "content": "金钱: 1\n物品: [扇, 壶]\n地点: 梨园"},
            "2": {"comment": "普通条目", "content": "不是变量: 1"},
        },
    )
    init = initialize({"stat_data": {"地点": "后台"}, "schema": {"type": "object", "properties": {}}}, [book])
    # entries merge in key order ("0" then "1"), an array replaced whole; the chat's own value wins
    assert init.variables["stat_data"] == {"金钱": 5, "物品": ["扇"], "地点": "后台"}
    assert init.variables["initialized_lorebooks"] == {"书": []}
    again = initialize(init.variables, [book])
    assert not again.updated
