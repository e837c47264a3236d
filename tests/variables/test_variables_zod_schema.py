"""A card's ``registerMvuSchema`` script run in the sandbox, and MVU's update with it (``update_variables``
with a schema): the seed parsed, each command checked against the schema — clamps, coercions,
defaults kept, refusals leaving the state as it was — and the record as mvu_zod leaves it."""

from __future__ import annotations

import re
import time
from typing import Any

from kit.jsorder import exact
from peargarden.variables.jsvalues import clone
from peargarden.variables.schema import ZOD_SCHEMA_PLACEHOLDER
from peargarden.variables.script_budget import ScriptBudget
from peargarden.variables.update import update_variables
from peargarden.variables.zod_schema import MvuSchema, SchemaScript, schema_of, script_body

ZOD_URL = "https://testingcf.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js"

# The shapes real cards use: a try/catch dynamic import, z.coerce + clamp transforms, prefault,
# records of objects, arrays, an enum, a read-only `_` key, and `$(() => registerMvuSchema(...))`.
SCRIPT = f"""
let registerMvuSchema;
try {{
  ({{ registerMvuSchema }} = await import('{ZOD_URL}'));
}} catch (error) {{
  ({{ registerMvuSchema }} = await import('https://cdn.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js'));
}}
const 百分 = () => z.coerce.number().transform(v => _.clamp(v, 0, 100)).prefault(0);
export const Schema = z.object({{
  世界: z.object({{
    时段: z.enum(['清晨', '午后', '深夜']).prefault('清晨'),
    天数: z.coerce.number().transform(v => Math.max(1, v)).prefault(1),
  }}).prefault({{}}),
  小梨: z.object({{
    好感度: 百分(),
    体力: 百分(),
    物品: z.array(z.string()).prefault([]),
    _暗线: z.string().prefault('未揭晓'),
  }}).prefault({{}}),
  村民: z.record(z.string(), z.object({{ 身份: z.string().prefault(''), 好感度: 百分() }}).prefault({{}}))
    .prefault({{}}),
}});
$(() => {{ registerMvuSchema(Schema); }});
"""

def budget(**limits: float) -> ScriptBudget:
    return ScriptBudget(time.thread_time, **limits)


SCHEMA = MvuSchema((SchemaScript("变量结构", SCRIPT),), budget(per_beat=1e9))


def seeded() -> dict[str, Any]:
    stat = {"小梨": {"好感度": "120", "物品": ["折扇"]}, "金钱": 5}
    record = {"initialized_lorebooks": {"书": []}, "stat_data": stat}
    run = SCHEMA.initialized(record, 0)
    assert run.registered and run.warnings == []
    return record


def test_the_seed_is_parsed_defaults_filled_and_clamped() -> None:
    record = seeded()
    stat = record["stat_data"]
    # {...stat_data, ...parsed}: the seed's own key order first, keys the schema adds after them.
    assert list(stat) == ["小梨", "金钱", "世界", "村民"]
    assert exact(stat["小梨"]) == exact({"好感度": 100, "体力": 0, "物品": ["折扇"], "_暗线": "未揭晓"})
    assert stat["世界"] == {"时段": "清晨", "天数": 1} and stat["村民"] == {} and stat["金钱"] == 5


def apply(record: dict[str, Any], reply: str) -> tuple[dict[str, Any], list[str]]:
    work = clone(record)
    result = update_variables(reply, work, schema=SCHEMA)
    return work, result.warnings


def test_commands_are_clamped_coerced_and_recorded_as_mvu_zod_leaves_them() -> None:
    record = seeded()
    after, warnings = apply(
        record,
        "<UpdateVariable>\n_.set('小梨.体力', 150);//爆表\n_.add('小梨.好感度', '-30');\n"
        "_.set('stat_data.世界.天数', '5');\n_.set('世界.天数', -3);\n</UpdateVariable>",
    )
    assert warnings == []
    assert after["stat_data"]["小梨"]["体力"] == 100  # clamped
    assert after["stat_data"]["小梨"]["好感度"] == 70  # a string delta read as a number
    assert after["stat_data"]["世界"]["天数"] == 1  # "5" coerced (the stat_data. prefix dropped), then -3 lifted to 1
    assert list(after) == ["initialized_lorebooks", "stat_data", "schema"]
    assert after["schema"] == ZOD_SCHEMA_PLACEHOLDER and "display_data" not in after and "delta_data" not in after


def test_json_patch_on_records_and_arrays_including_move() -> None:
    record = seeded()
    patch = (
        '[{"op":"add","path":"/村民/阿福","value":{"身份":"猎户","好感度":"130"}},'
        '{"op":"add","path":"/小梨/物品/-","value":"笛子"},'
        '{"op":"remove","path":"/小梨/物品/0"},'
        '{"op":"move","from":"/村民/阿福","path":"/村民/福伯"},'
        '{"op":"delta","path":"/小梨/体力","value":12}]'
    )
    after, warnings = apply(record, f"<UpdateVariable><JSONPatch>{patch}</JSONPatch></UpdateVariable>")
    assert warnings == []
    assert after["stat_data"]["村民"] == {"福伯": {"身份": "猎户", "好感度": 100}}
    assert after["stat_data"]["小梨"]["物品"] == ["笛子"]
    assert after["stat_data"]["小梨"]["体力"] == 12


def test_a_value_the_schema_refuses_leaves_the_state_as_it_was_and_is_said() -> None:
    record = seeded()
    after, warnings = apply(
        record,
        "_.set('世界.时段', '黄昏');//不在枚举里\n_.set('小梨.好感度', '很多');\n_.set('小梨._暗线', '揭晓');\n"
        "_.add('世界.时段', 1);\n_.set('小梨.好感度', 60);",
    )
    stat = after["stat_data"]
    assert stat["世界"]["时段"] == "清晨" and stat["小梨"]["_暗线"] == "未揭晓"
    assert stat["小梨"]["好感度"] == 60  # the later command still applies
    assert len(warnings) == 4
    enum, number, readonly, add = warnings
    assert "黄昏" in enum and "Invalid option" in enum and "世界.时段" in enum
    assert "received NaN" in number
    assert "只读" in readonly
    assert "非数字" in add


def test_a_path_outside_the_schema_changes_nothing_at_depth_but_a_new_top_key_stays() -> None:
    record = seeded()
    after, warnings = apply(record, "_.set('小梨.身高', 150);\n_.set('天气', '晴');")
    assert "身高" not in after["stat_data"]["小梨"] and "还原" in warnings[0] and len(warnings) == 1
    assert after["stat_data"]["天气"] == "晴"  # the top level is loose (mvu_zod widens z.object)
    # Setting a value to what it already is changes nothing and says nothing (MVU says nothing either).
    _, quiet = apply(record, "_.set('世界.时段', '清晨');")
    assert quiet == []


def test_the_user_message_and_a_reply_without_commands_keep_the_record_shape() -> None:
    after, warnings = apply(seeded(), "早上好。")
    assert warnings == [] and after["schema"] == ZOD_SCHEMA_PLACEHOLDER and "display_data" not in after


def test_module_syntax_is_read_and_imports_are_recognised_never_fetched() -> None:
    body = script_body(
        f"import {{ registerMvuSchema as 注册 }} from '{ZOD_URL}';\nimport 'https://x/MagVarUpdate/bundle.js';\n"
        "export const S = z.object({});\nexport default S;\nexport { S };\n注册(S);"
    )
    assert not re.search(r"^\s*(?:import|export)\b", body, re.MULTILINE)
    assert '__pear.load("https://x/MagVarUpdate/bundle.js")' in body and "const { registerMvuSchema: 注册 }" in body
    renamed = f"import {{ registerMvuSchema as 注册 }} from '{ZOD_URL}';\n注册(z.object({{}}));"
    found = schema_of([("甲", renamed)], budget())
    assert found is not None and found.check().registered


def test_a_failing_script_is_named_and_mvus_classic_rules_apply() -> None:
    code = f"import {{ registerMvuSchema }} from '{ZOD_URL}';\nthrow new Error('坏了');"
    broken = MvuSchema((SchemaScript("坏脚本", code),), budget())
    record = {"initialized_lorebooks": {}, "stat_data": {"金钱": 1}, "schema": {"type": "object", "properties": {}}}
    result = update_variables("_.set('金钱', 2);//买", record, schema=broken)
    assert result.warnings and "「坏脚本」" in result.warnings[0] and "坏了" in result.warnings[0]
    assert record["stat_data"]["金钱"] == 2 and record["delta_data"] == {"金钱": "1->2 (买)"}
    endless = MvuSchema((SchemaScript("死循环", "while (true) {}"),), budget(per_use=0.2)).check()
    assert not endless.registered and "「死循环」" in endless.warnings[0]


def test_scripts_without_registration_make_no_schema() -> None:
    assert schema_of([("界面", "$('body').append('<div>');")], budget()) is None


def test_a_value_only_yaml_reads_is_parsed_as_mvu_and_zod_would() -> None:
    """``[温热, 香]`` is neither JSON nor a JavaScript literal: MVU reads it with YAML (a list of two
    strings).  Under the schema's time limit QuickJS could not call the YAML reader, so it was kept as
    the text ``"[温热, 香]"`` — accepted silently by a string field, refused by an array field."""
    record = seeded()
    after, warnings = apply(record, "<UpdateVariable>\n_.set('小梨.物品', [温热, 香]);\n</UpdateVariable>")
    assert warnings == []
    assert after["stat_data"]["小梨"]["物品"] == ["温热", "香"]
    after, warnings = apply(record, "<UpdateVariable>\n_.set('小梨._暗线', [温热, 香]);\n</UpdateVariable>")
    assert after["stat_data"]["小梨"]["_暗线"] == "未揭晓"  # a read-only key: unchanged either way
    after, warnings = apply(record, "<UpdateVariable>\n_.set('世界.时段', [清晨, 香]);\n</UpdateVariable>")
    assert after["stat_data"]["世界"]["时段"] == "清晨" and len(warnings) == 1 and "时段" in warnings[0]
