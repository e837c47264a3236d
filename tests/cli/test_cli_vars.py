"""``pear vars apply``: one reply's MVU commands applied to a variables file (the contract in docs/cli.md)."""

from __future__ import annotations

import json
from pathlib import Path

from kit.cli import pear_in_process

RECORD = {
    "initialized_lorebooks": {"小梨变量书": []},
    "stat_data": {
        "世界": {"地点": "梨园", "时间": "2024-01-01T08:00:00.000Z"},
        "小梨": {"好感度": [10, "0~100"], "物品": ["折扇"]},
    },
    "schema": {
        "type": "object",
        "properties": {
            "世界": {
                "type": "object",
                "properties": {
                    "地点": {"type": "string", "required": True},
                    "时间": {"type": "string", "required": True},
                },
                "extensible": False,
                "recursiveExtensible": False,
                "required": True,
            },
            "小梨": {
                "type": "object",
                "properties": {
                    "好感度": {
                        "type": "array",
                        "extensible": False,
                        "elementType": {"type": "number"},
                        "required": True,
                    },
                    "物品": {"type": "array", "extensible": False, "elementType": {"type": "string"}, "required": True},
                },
                "extensible": False,
                "recursiveExtensible": False,
                "required": True,
            },
        },
        "extensible": False,
        "recursiveExtensible": False,
    },
    "display_data": {},
    "delta_data": {},
}
REPLY = (
    "小梨笑着接过茶。\n<UpdateVariable>\n"
    "_.set('世界.地点', '后台');//去后台\n_.add('小梨.好感度', 5);//喝茶\n"
    "_.add('世界.时间', 3600000);//一小时\n_.insert('小梨.物品', '笛子');//新得\n</UpdateVariable>"
)


def _files(tmp_path: Path, record: object, reply: str = REPLY) -> tuple[Path, Path]:
    variables = tmp_path / "变量.json"
    variables.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    reply_file = tmp_path / "回复.txt"
    reply_file.write_text(reply, encoding="utf-8")
    return variables, reply_file


def test_apply_prints_the_variables_after_the_reply(home_dir: Path, tmp_path: Path) -> None:
    variables, reply = _files(tmp_path, RECORD)
    result = pear_in_process(
        home_dir, "vars", "apply", "--variables", variables, "--reply", reply, "--json", check=True
    )
    after = json.loads(result.stdout)
    assert after["stat_data"]["世界"] == {"地点": "后台", "时间": "2024-01-01T09:00:00.000Z"}
    assert after["stat_data"]["小梨"]["好感度"] == [15, "0~100"]
    # the array is not extensible: MVU refuses the insert and says so on stderr
    assert after["stat_data"]["小梨"]["物品"] == ["折扇"]
    assert "笛子" in result.stderr and "non-extensible" in result.stderr
    assert after["delta_data"]["世界"]["地点"] == "梨园->后台 (去后台)"
    assert after["display_data"]["小梨"]["好感度"] == "10->15 (喝茶)"
    assert "小梨笑着" not in result.stdout


def test_apply_without_json_lists_the_changes(home_dir: Path, tmp_path: Path) -> None:
    variables, reply = _files(tmp_path, RECORD)
    result = pear_in_process(home_dir, "vars", "apply", "--variables", variables, "--reply", reply, check=True)
    assert "世界.地点: 梨园->后台 (去后台)" in result.stdout.splitlines()


def test_bare_stat_data_is_seeded_with_its_markers(home_dir: Path, tmp_path: Path) -> None:
    bare = {"小梨": {"物品": ["折扇", "$__META_EXTENSIBLE__$"]}}
    variables, reply = _files(tmp_path, bare, "_.insert('小梨.物品', '笛子');//新得")
    result = pear_in_process(
        home_dir, "vars", "apply", "--variables", variables, "--reply", reply, "--json", check=True
    )
    after = json.loads(result.stdout)
    assert after["stat_data"] == {"小梨": {"物品": ["折扇", "笛子"]}}
    assert after["schema"]["properties"]["小梨"]["properties"]["物品"]["extensible"] is True


def test_a_missing_or_broken_file_is_one_line_naming_it(home_dir: Path, tmp_path: Path) -> None:
    variables, reply = _files(tmp_path, RECORD)
    missing = pear_in_process(home_dir, "vars", "apply", "--variables", tmp_path / "无.json", "--reply", reply)
    assert missing.returncode != 0 and missing.stdout == ""
    assert missing.stderr.strip().count("\n") == 0 and "无.json" in missing.stderr
    broken = tmp_path / "坏.json"
    broken.write_text("{坏", encoding="utf-8")
    result = pear_in_process(home_dir, "vars", "apply", "--variables", broken, "--reply", reply, "--json")
    assert result.returncode != 0 and "坏.json" in result.stderr and result.stderr.strip().count("\n") == 0
    not_object = tmp_path / "数组.json"
    not_object.write_text("[1, 2]", encoding="utf-8")
    result = pear_in_process(home_dir, "vars", "apply", "--variables", not_object, "--reply", reply, "--json")
    assert result.returncode != 0 and "数组.json" in result.stderr
    result = pear_in_process(home_dir, "vars", "apply", "--variables", variables, "--reply", tmp_path / "无.txt")
    assert result.returncode != 0 and "无.txt" in result.stderr
