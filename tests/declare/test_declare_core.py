"""Declaration core: compile in SillyTavern order, lenient labels, routing (spec liyuan §4.7 vector)."""

from __future__ import annotations

from typing import Any

from peargarden.declare import compile_preset, label_prompt, parse_labels, route
from peargarden.stage.entries import parse_entries

ORDER = ["main", "style", "w1", "worldInfoBefore", "chatHistory", "w2", "cot", "fmt", "off", "pf"]


def vector_preset() -> dict[str, Any]:
    return {
        "prompts": [
            {"identifier": "main", "name": "身份", "role": "system", "content": "你是资深写手。"},
            {"identifier": "style", "name": "文风", "role": "system", "content": "白描为主，少用形容词。"},
            {"identifier": "w1", "name": "w1", "role": "system", "content": "<Lore>"},
            {"identifier": "worldInfoBefore", "name": "World Info (before)", "marker": True},
            {"identifier": "chatHistory", "name": "Chat History", "marker": True},
            {"identifier": "w2", "name": "w2", "role": "system", "content": "</Lore>"},
            {"identifier": "cot", "name": "思考", "role": "system", "content": "先在<think>里想三步。"},
            {"identifier": "fmt", "name": "格式", "role": "system", "content": "正文用<content>包裹，末尾附状态栏。"},
            {"identifier": "off", "name": "关掉的块", "role": "system", "content": "{{setvar::x::1}}不该出现"},
            {"identifier": "pf", "name": "预填", "role": "assistant", "content": "好，开始。"},
        ],
        "prompt_order": [
            {"character_id": 100000, "order": [{"identifier": "main", "enabled": True}]},
            {"character_id": 100001, "order": [{"identifier": i, "enabled": i != "off"} for i in ORDER]},
        ],
    }


def test_spec_vector_compile_and_route() -> None:
    compiled = compile_preset(vector_preset(), char="青梧", user="旅人")
    assert [p.id for p in compiled.pieces] == ["main", "style", "w1", "w2", "cot", "fmt"]
    assert next(p for p in compiled.pieces if p.id == "cot").where == "after"
    status = {b.id: b.status for b in compiled.blocks}
    assert status["off"] == "disabled" and status["pf"] == "prefill" and status["worldInfoBefore"] == "marker"
    labels = parse_labels(
        '[{"id":"main","station":"identity"},{"id":"style","station":"writing"},{"id":"w1","station":"wrapper"},'
        '{"id":"w2","station":"wrapper"},{"id":"cot","station":"thinking"},{"id":"fmt","station":"output"}]',
        compiled.pieces,
    )
    routed = route(compiled.pieces, labels.stations)
    assert routed.append_markdown.startswith("# 预设提示词（预设）\n\n## 身份（预设）\n")
    agents = parse_entries(routed.agents_section)
    assert [(e.name, e.enabled) for e in agents if e.name] == [
        ("文风（预设）", True),
        ("思考（预设）", False),
        ("格式（预设）", False),
    ]
    assert "<!--\n## 思考（预设）" in routed.agents_section
    assert (routed.append_ids, routed.agents_ids, routed.wrapper_ids, routed.disabled_ids) == (
        ["main"], ["style"], ["w1", "w2"], ["cot", "fmt"]
    )


def test_disabled_blocks_are_not_evaluated_and_variables_are_shared() -> None:
    preset = vector_preset()
    preset["prompts"][0]["content"] = "{{setvar::称呼::掌柜}}你是{{char}}。"
    preset["prompts"][1]["content"] = "称{{user}}为客官，{{char}}是{{getvar::称呼}}。{{getvar::x}}"
    compiled = compile_preset(preset, char="青梧", user="旅人")
    texts = {p.id: p.text for p in compiled.pieces}
    assert texts["main"] == "你是青梧。"
    assert texts["style"] == "称旅人为客官，青梧是掌柜。"  # x was only set by the disabled block


def test_unknown_macros_are_removed_and_reported_random_is_stable() -> None:
    preset = vector_preset()
    preset["prompts"][1]["content"] = "{{// 作者注释}}文风{{idle_duration}}{{random::甲::乙::丙}}\n{{trim}}\n结尾"
    first = compile_preset(preset, char="青梧", user="旅人")
    second = compile_preset(preset, char="青梧", user="旅人")
    style = next(p for p in first.pieces if p.id == "style").text
    assert "{{" not in style and style.startswith("文风") and style.endswith("结尾")
    assert style == next(p for p in second.pieces if p.id == "style").text
    assert first.unsupported_macros == ["{{idle_duration}}"]


def test_without_order_the_prompts_array_is_used() -> None:
    preset = {"prompts": [{"identifier": "a", "name": "甲", "content": "一", "enabled": False},
                          {"identifier": "b", "name": "乙", "content": "二"}]}  # fmt: skip
    compiled = compile_preset(preset, char="c", user="u")
    assert [p.id for p in compiled.pieces] == ["b"]
    assert compiled.blocks[0].status == "disabled"


def test_missing_definition_and_in_chat_pieces() -> None:
    preset = vector_preset()
    preset["prompt_order"][1]["order"].insert(0, {"identifier": "ghost", "enabled": True})
    preset["prompts"].append({"identifier": "deep", "name": "深度", "role": "user", "content": "记得下雨。",
                              "injection_position": 1, "injection_depth": 2})  # fmt: skip
    preset["prompt_order"][1]["order"].append({"identifier": "deep", "enabled": True})
    compiled = compile_preset(preset, char="c", user="u")
    assert compiled.blocks[0].status == "missing"
    assert compiled.pieces[-1].id == "deep" and compiled.pieces[-1].where == "depth"
    # A depth piece after history is not a trailing assistant: the prefill is still dropped.
    assert [p.id for p in compiled.dropped_prefill] == ["pf"]


def test_labels_are_read_leniently() -> None:
    pieces = compile_preset(vector_preset(), char="c", user="u").pieces
    reply = '好的，结果如下：\n```json\n[{"identifier":"main","station":"identity","note":"身份"},' \
            '{"id":"style","station":"风格"}]\n```\n以上。'  # fmt: skip
    labels = parse_labels(reply, pieces)
    assert labels.stations["main"] == "identity" and labels.notes["main"] == "身份"
    assert labels.stations["style"] == "writing" and labels.unknown == ["style"]
    assert set(labels.defaulted) == {"w1", "w2", "cot", "fmt"}
    assert all(s == "writing" for s in parse_labels("模型拒绝回答", pieces).stations.values())


def test_label_prompt_names_every_piece() -> None:
    pieces = compile_preset(vector_preset(), char="c", user="u").pieces
    system, user = label_prompt("测试预设", pieces)
    assert all(station in system for station in ("identity", "writing", "wrapper"))
    assert user.startswith("预设「测试预设」")
    assert "⟦片段5｜cot｜system｜历史后｜思考⟧" in user
