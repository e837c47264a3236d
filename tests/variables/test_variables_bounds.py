"""What a reply, a seed or a variables file may make (issue 46, points 2 and 7): YAML aliases counted as
the ``yaml`` package counts them (``maxAliasCount: 100``, which MVU keeps), values at most
``MAX_DEPTH`` levels deep and a message's ``stat_data`` at most ``MAX_CHARS`` characters of JSON, each
refusal said in one line and the variables left as they were.

The alias cases' outcomes (read or refused) are the ``yaml`` package's own, checked with yaml 2.8.0
under Node (``YAML.parse`` and ``YAML.parseDocument(…, {merge: true}).toJS()``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from peargarden.variables.bounds import MAX_CHARS, MAX_DEPTH, TooLarge, check_value
from peargarden.variables.initvar import Lorebook, initialize
from peargarden.variables.jsvalues import json_stringify
from peargarden.variables.update import update_variables
from peargarden.variables.yaml_load import YamlAliasError, load, load_lenient


def laughs(width: int, levels: int) -> str:
    """The "billion laughs": level 0 holds *width* scalars, each next level *width* aliases of the one before."""
    lines = ["l0: &l0 [" + ",".join(["梨"] * width) + "]"]
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def aliases(count: int) -> str:
    return "花: &hua 海棠\n园: [" + ", ".join(["*hua"] * count) + "]\n"


READ = {
    "three levels of nine": laughs(9, 3),
    "99 aliases of a scalar (count 100)": aliases(99),
    "aliases of an empty list (weight 0)": "空: &kong []\n多: [" + ", ".join(["*kong"] * 500) + "]\n",
    "an anchor inside an anchor, aliased 30 and 3 times": (
        "甲: &jia {乙: &yi [1, 2]}\n丙: [" + ",".join(["*yi"] * 30) + "]\n丁: [*jia, *jia, *jia]\n"
    ),
}
REFUSED = {
    "four levels of nine": laughs(9, 4),
    "three levels of ten": laughs(10, 3),
    "five levels of three": laughs(3, 5),
    "100 aliases of a scalar (count 101)": aliases(100),
}


@pytest.mark.parametrize("text", READ.values(), ids=list(READ))
def test_aliases_within_the_yaml_packages_count_are_read(text: str) -> None:
    assert load(text) == load_lenient(text) and load(text)


@pytest.mark.parametrize("text", REFUSED.values(), ids=list(REFUSED))
def test_aliases_past_the_yaml_packages_count_are_refused(text: str) -> None:
    for reader in (load, load_lenient):
        with pytest.raises(YamlAliasError, match=r"别名.*超过 100"):
            reader(text)


def test_merge_keys_count_only_where_the_yaml_package_knows_no_merge() -> None:
    text = "底: &di {价: 1}\n" + "".join(f"茶{i}: {{<<: *di, 名: {i}}}\n" for i in range(150))
    assert load_lenient(text)["茶149"] == {"价": 1, "名": 149}  # parseDocument(…, {merge: true})
    with pytest.raises(YamlAliasError):
        load(text)  # YAML.parse: "<<" is a plain key, its 150 aliases count


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(YamlAliasError, match="recursive"):
        load_lenient("环: &huan [1, *huan]")


def seeded(stat: dict[str, Any]) -> dict[str, Any]:
    book = Lorebook("书", [{"comment": "[initvar]", "content": json.dumps(stat, ensure_ascii=False)}])
    return initialize(None, [book]).variables


def test_the_399_byte_bomb_in_a_reply_is_refused_in_one_line_and_kept_as_text() -> None:
    # The reply: anchors nine wide, nine levels, inside a _.set value.
    inner = ", ".join(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9))
    value = "{l0: &l0 [梨,梨,梨,梨,梨,梨,梨,梨,梨], " + inner + "}"
    record = seeded({"地点": "梨园"})
    result = update_variables(f"<UpdateVariable>\n_.set('地点', {value});//炸弹\n</UpdateVariable>", record)
    refusals = [w for w in result.warnings if "别名" in w]
    assert len(refusals) == 1 and "\n" not in refusals[0] and "按原文写入" in refusals[0]
    # MVU's parseCommandValue falls back to the trimmed text when YAML.parse throws: so here.
    assert record["stat_data"]["地点"] == value
    assert len(json_stringify(record) or "") < 10_000


def test_a_json_patch_block_with_a_bomb_is_said_not_run() -> None:
    record = seeded({"地点": "梨园"})
    ops = "".join(f"- {{op: add, path: /花{i}, value: [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]}}\n" for i in range(10))
    patch = f"<JSONPatch>\n- {{op: replace, path: /地点, value: &a [1,1,1,1,1,1,1,1,1,1]}}\n{ops}</JSONPatch>"
    result = update_variables(f"<UpdateVariable>{patch}</UpdateVariable>", record)
    assert record["stat_data"] == {"地点": "梨园"}
    assert len(result.warnings) == 1 and "JSONPatch" in result.warnings[0] and "别名" in result.warnings[0]


def test_an_initvar_bomb_names_its_entry_and_seeds_nothing() -> None:
    book = Lorebook("梨园变量书", [{"comment": "[initvar]初始变量", "content": laughs(9, 9)}])
    init = initialize(None, [book])
    assert init.variables["stat_data"] == {}
    assert len(init.warnings) == 1 and "[initvar]初始变量" in init.warnings[0] and "别名" in init.warnings[0]


def nested(levels: int) -> str:
    return '{"层":' * levels + '"底"' + "}" * levels


def test_a_value_at_the_depth_limit_is_written_one_past_it_is_refused() -> None:
    record = seeded({"档案": {}})
    # stat_data is a level of its own: a value of MAX_DEPTH - 1 levels under it makes MAX_DEPTH.
    ok = update_variables(f"_.set('档案', {nested(MAX_DEPTH - 1)});//记下", record)
    assert ok.modified and ok.warnings == []
    record = seeded({"档案": {}})
    # Refused by the record, by the value, by the text (deep JSON used to end in RecursionError).
    for levels in (MAX_DEPTH, MAX_DEPTH + 1, 100_000):
        refused = update_variables(f"_.set('档案', {nested(levels)});//记下", record)
        assert not refused.modified and record["stat_data"] == {"档案": {}}
        assert len(refused.warnings) == 1 and f"{MAX_DEPTH} 层" in refused.warnings[0]
        assert len(refused.warnings[0]) < 500  # the command is named by its start


def test_a_record_past_the_size_limit_keeps_the_variables_before_the_reply() -> None:
    half = "梨" * (MAX_CHARS // 2)
    record = seeded({"地点": "梨园", "日记": "", "附记": ""})
    one = update_variables(f"_.set('日记', '{half}');", record)
    assert one.modified and record["stat_data"]["日记"] == half  # a 500,000-character value is fine
    before = json_stringify(record)
    two = update_variables(f"_.set('地点', '后台');\n_.set('附记', '{half}');", record)
    assert not two.modified and json_stringify(record) == before  # the first command is undone too
    assert len(two.warnings) == 1 and "没有生效" in two.warnings[0] and f"{MAX_CHARS:,}" in two.warnings[0]


def test_the_size_walk_stops_at_the_limit_on_a_shared_value() -> None:
    shared: list[Any] = ["梨" * 100] * 100
    for _ in range(8):  # 100**9 leaves if written out: judged by what fits, not by what it expands to
        shared = [shared] * 100
    with pytest.raises(TooLarge):
        check_value({"炸弹": shared})
