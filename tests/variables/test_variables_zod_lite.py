"""Our own zod and lodash subsets (``variables/zod_lite.js``, ``lodash_lite.js``), checked in the schema
sandbox against zod 4's and lodash's documented behaviour: what parses, what comes out (key order
included), what is refused and with which issue."""

from __future__ import annotations

import json
from typing import Any

import pytest

from peargarden.variables.zod_schema import evaluate


def parsed(schema: str, value: Any) -> Any:
    """``schema.safeParse(value)`` as ``{"success", "data"}`` or ``{"success", "issues"}``."""
    result = evaluate(
        f"(r => r.success ? {{success: true, data: r.data}} : {{success: false, issues: r.error.issues}})"
        f"(({schema}).safeParse({json.dumps(value, ensure_ascii=False)}))"
    )
    assert isinstance(result, dict)
    return result


def data(schema: str, value: Any) -> Any:
    result = parsed(schema, value)
    assert result["success"], result
    return result["data"]


def issues(schema: str, value: Any) -> list[dict[str, Any]]:
    result = parsed(schema, value)
    assert not result["success"], result
    return list(result["issues"])


STAT100 = "z.coerce.number().transform(v => _.clamp(v, 0, 100)).prefault(0)"


def test_coerce_number_takes_numeric_strings_and_refuses_the_rest() -> None:
    assert data("z.coerce.number()", "15") == 15
    assert data("z.coerce.number()", " 2.5 ") == 2.5
    assert data("z.coerce.number()", True) == 1
    assert data("z.coerce.number()", None) == 0  # Number(null)
    refused = issues("z.coerce.number()", "十五")
    assert refused[0]["code"] == "invalid_type" and "received NaN" in refused[0]["message"]
    assert issues("z.number()", "15")[0]["message"] == "Invalid input: expected number, received string"


def test_a_clamp_transform_pulls_values_into_range() -> None:
    assert data(STAT100, 150) == 100
    assert data(STAT100, "-20") == 0
    assert data(STAT100, 42) == 42
    assert data("z.number().transform(v => Math.max(1, v))", 0) == 1


def test_prefault_parses_its_value_and_default_does_not() -> None:
    assert data(STAT100, 0) == 0
    assert data(f"z.object({{好感度: {STAT100}}})", {}) == {"好感度": 0}
    # prefault(150) goes through the clamp; default(150) is answered as it is.
    assert data("z.object({a: z.number().transform(v => _.clamp(v, 0, 100)).prefault(150)})", {}) == {"a": 100}
    assert data("z.object({a: z.number().transform(v => _.clamp(v, 0, 100)).default(150)})", {}) == {"a": 150}
    assert evaluate("z.object({名字: z.string().prefault('小梨')}).prefault({}).parse(undefined)") == {"名字": "小梨"}


def test_object_output_follows_the_shape_strips_unknown_keys_and_loose_keeps_them() -> None:
    shape = "{甲: z.number(), 乙: z.string().prefault('')}"
    assert list(data(f"z.object({shape})", {"乙": "x", "丙": 1, "甲": 2})) == ["甲", "乙"]
    assert list(data(f"z.looseObject({shape})", {"丙": 1, "乙": "x", "甲": 2})) == ["甲", "乙", "丙"]
    strict = issues(f"z.strictObject({shape})", {"甲": 1, "乙": "", "丙": 1})
    assert strict[0]["code"] == "unrecognized_keys" and strict[0]["keys"] == ["丙"]
    missing = issues(f"z.object({shape})", {})
    assert missing[0]["path"] == ["甲"] and "received undefined" in missing[0]["message"]
    assert data("z.object({a: z.string().optional()})", {}) == {}


def test_enum_refuses_values_outside_it_with_zods_message() -> None:
    phases = "z.enum(['磨合期', '损友成型', '清算'])"
    assert data(phases, "清算") == "清算"
    refused = issues(f"z.object({{阶段: {phases}}})", {"阶段": "胡闹期"})
    assert refused[0]["code"] == "invalid_value" and refused[0]["path"] == ["阶段"]
    assert refused[0]["message"] == 'Invalid option: expected one of "磨合期"|"损友成型"|"清算"'
    assert evaluate(f"{phases}.options") == ["磨合期", "损友成型", "清算"]


def test_records_and_arrays_parse_every_value() -> None:
    villager = f"z.object({{身份: z.string().prefault(''), 好感度: {STAT100}}}).prefault({{}})"
    record = data(f"z.record(z.string(), {villager})", {"阿福": {"好感度": "120"}, "2": {}, "1": {"身份": "猎户"}})
    # JavaScript's key order: integer-like keys first, ascending.
    assert list(record) == ["1", "2", "阿福"]
    assert record["阿福"] == {"身份": "", "好感度": 100}
    assert data("z.array(z.coerce.number()).prefault([])", ["1", 2]) == [1, 2]
    assert issues("z.array(z.string()).max(1)", ["a", "b"])[0]["code"] == "too_big"
    bad = issues("z.array(z.string())", ["a", 3])
    assert bad[0]["path"] == [1]


def test_checks_unions_literals_and_wrappers() -> None:
    assert issues("z.number().min(0).max(10)", 11)[0]["message"] == "Too big: expected number to be <=10"
    assert issues("z.number().int()", 1.5)[0]["code"] == "invalid_type"
    assert issues("z.string().min(2)", "a")[0]["message"] == "Too small: expected string to have >=2 characters"
    assert data("z.union([z.number(), z.string()])", "x") == "x"
    assert issues("z.union([z.number(), z.boolean()])", "x")[0]["code"] == "invalid_union"
    assert data("z.literal('是')", "是") == "是"
    assert data("z.string().nullable()", None) is None
    assert data("z.number().catch(7)", "x") == 7
    assert data("z.preprocess(v => String(v).trim(), z.string())", " 甲 ") == "甲"
    refined = "z.object({hp: z.number()}).refine(v => v.hp > 0, '要大于 0')"
    assert issues(refined, {"hp": 0})[0]["message"] == "要大于 0"
    assert evaluate(f"{refined} instanceof z.ZodObject") is True  # a refined object keeps its class


def test_prettify_error_lists_each_issue_with_its_path() -> None:
    text = evaluate("z.prettifyError(z.object({a: z.object({b: z.number()})}).safeParse({a: {b: 'x'}}).error)")
    assert text == "✖ Invalid input: expected number, received string\n  → at a.b"


def test_lodash_subset_follows_lodash() -> None:
    assert evaluate("_.clamp(150, 0, 100)") == 100
    assert evaluate("_.clamp(-3, 5)") == -3
    assert evaluate("_.round(1.005, 2)") == 1.01
    assert evaluate("_.floor(4.006, 2)") == 4
    assert evaluate("_.get({甲: [{乙: 1}]}, '甲[0].乙')") == 1
    assert evaluate("_.get({'a.b': 2}, 'a.b')") == 2  # a key with a dot that exists is one key
    assert evaluate("_.set({}, '甲[0].乙', 2)") == {"甲": [{"乙": 2}]}
    assert evaluate("_.has({a: {b: undefined}}, 'a.b')") is True
    assert evaluate("(o => (_.unset(o, '甲.乙'), o))({甲: {乙: 1, 丙: 2}})") == {"甲": {"丙": 2}}
    assert evaluate("(a => [_.pullAt(a, [0, 2]), a])(['a', 'b', 'c', 'd'])") == [["a", "c"], ["b", "d"]]
    assert evaluate("_.isEqual({a: [1, {b: 2}]}, {a: [1, {b: 2}]})") is True
    assert evaluate("_.isEqual({a: 1, b: 2}, {b: 2, a: 1})") is True
    assert evaluate("_.pick({a: 1, b: {c: 2}, d: 3}, ['a', 'b'])") == {"a": 1, "b": {"c": 2}}
    assert evaluate("_.toPath('a[0][\"b c\"].d')") == ["a", "0", "b c", "d"]
    assert evaluate("_([3, 1, 2]).sortBy().last()") == 3
    assert evaluate("_.chain({a: 1}).set('b', 2).value()") == {"a": 1, "b": 2}


def test_the_sandbox_has_no_network_no_files_and_a_time_limit() -> None:
    assert evaluate("[typeof fetch, typeof require, typeof XMLHttpRequest, typeof process]") == ["undefined"] * 4
    with pytest.raises(ValueError, match="interrupted"):
        evaluate("(() => { while (true) {} })()", time_limit=0.2)
