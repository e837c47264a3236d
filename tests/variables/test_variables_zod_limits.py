"""A zod-schema script that misbehaves (issue 46, point 1): it keeps the job queue busy, runs out of
memory, throws what cannot be read, or changes the page our own code runs in.  Each use has a CPU
budget for all its calls together and the beat one for all its uses; what stops a script is said in
one line naming it; no answer from the engine reaches Python unchecked."""

from __future__ import annotations

import time
from typing import Any

import pytest

from peargarden.variables.script_budget import ScriptBudget
from peargarden.variables.zod_schema import MvuSchema, SchemaScript

ZOD = "https://testingcf.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js"
HEAD = f"import {{ registerMvuSchema }} from '{ZOD}';\n"
REGISTER = "registerMvuSchema(z.object({ 金钱: z.coerce.number().prefault(0) }));\n"


SCRIPT = "「小梨的变量结构」"


def schema(code: str, budget: ScriptBudget | None = None, **options: Any) -> MvuSchema:
    scripts = (SchemaScript("小梨的变量结构", HEAD + code),)
    return MvuSchema(scripts, budget or ScriptBudget(time.thread_time), **options)


def seed(found: MvuSchema) -> tuple[list[str], dict[str, Any]]:
    record: dict[str, Any] = {"stat_data": {"金钱": "5"}}
    run = found.initialized(record, 0)
    assert all("\n" not in warning for warning in run.warnings)
    return run.warnings, record


# Each job is one call into the engine, and the engine's own limit counted per call: a script that
# awaits a little work at a time passed any per-call limit however long it ran (the old code gave up
# after 10,000 jobs, without a word).  Counted in work, not in wall time: a busy machine changes
# neither what the script does nor what it costs in CPU.
WORK = "const work = () => Promise.resolve().then(() => { let x = 0; for (let k = 0; k < 100000; k++) x += k; });\n"
BUSY = WORK + "for (;;) await work();\n" + REGISTER
SOME_WORK = WORK + "for (let i = 0; i < 10; i++) await work();\n" + REGISTER


def test_a_script_keeping_the_job_queue_busy_is_stopped_by_the_use_and_then_the_beat() -> None:
    budget = ScriptBudget(time.thread_time, per_use=0.25, per_beat=0.4)
    busy = schema(BUSY, budget)
    first, record = seed(busy)
    assert first == [f"变量结构脚本{SCRIPT}运行失败（没有生效）：CPU 时间用完了（这一次最多 0.25 秒 CPU），已停止"]
    assert record["stat_data"] == {"金钱": "5"}  # nothing registered: MVU's classic rules
    second, _ = seed(busy)
    stopped = f"变量结构脚本{SCRIPT}运行失败（没有生效）：CPU 时间用完了（这一拍的 0.4 秒 CPU 已用完），已停止"
    assert second == [stopped]
    third, _ = seed(busy)
    assert third == [f"变量结构脚本{SCRIPT}没有运行：这一拍的 0.4 秒 CPU 已用完（这一步按 MVU 的经典规则）"]
    budget.start_beat()  # the next beat: the script runs again (and is stopped again)
    again, _ = seed(busy)
    assert "这一次最多 0.25 秒" in again[0]


def test_a_beat_with_too_little_left_to_load_the_page_says_the_script_did_not_run() -> None:
    # What is left may not cover even our own library (≈ 10 ms): that is the beat's budget at its
    # end, said as such, not "the sandbox could not start".
    warnings, _ = seed(schema(REGISTER, ScriptBudget(time.thread_time, per_use=5, per_beat=0.001)))
    assert warnings == [f"变量结构脚本{SCRIPT}没有运行：这一拍的 0.001 秒 CPU 已用完（这一步按 MVU 的经典规则）"]


def test_a_script_within_its_budget_registers_as_before() -> None:
    warnings, record = seed(schema(SOME_WORK, ScriptBudget(time.thread_time, per_use=30, per_beat=30)))
    assert warnings == [] and record["stat_data"] == {"金钱": 5}


@pytest.mark.parametrize(
    "allocation",
    [
        "const m = new Map(); for (let i = 0; ; i++) m.set(i, { i });",
        "await 0; const a = []; for (;;) a.push(new Array(9999).fill(1));",
    ],
    ids=["map", "arrays-after-await"],
)
def test_running_out_of_memory_is_said_in_those_words(allocation: str) -> None:
    warnings, _ = seed(schema(allocation, memory_limit=8 * 1024 * 1024))
    assert warnings == [f"变量结构脚本{SCRIPT}运行失败（没有生效）：内存用完了（上限 8 MB）"]


@pytest.mark.parametrize(
    "thrown",
    [
        "new Proxy({}, { get() { throw new Error('读我就炸'); } })",
        "new Proxy(new Error('x'), { get: () => new Proxy({}, { get() { throw 1; } }) })",
    ],
    ids=["getter-throws", "nested-proxies"],
)
def test_a_thrown_value_that_cannot_be_read_is_still_a_failure_said(thrown: str) -> None:
    warnings, _ = seed(schema(f"{REGISTER}throw {thrown};"))
    unreadable = "抛出的值读不出来（a thrown value that cannot be read）"
    assert warnings == [f"变量结构脚本{SCRIPT}运行失败（没有生效）：{unreadable}"]


@pytest.mark.parametrize(
    "tampering",
    [
        "__pear.result = () => 'not json {';",
        "try { __pear.result = () => Symbol('x'); } catch (e) {}",
        "JSON.stringify = () => '['.repeat(200000) + ']'.repeat(200000);",
        "JSON.parse = () => 42; Promise.prototype.then = function () { return this; };",
    ],
    ids=["result-replaced", "result-symbol", "stringify-deep", "parse-and-then-replaced"],
)
def test_a_script_cannot_replace_what_hands_the_result_back(tampering: str) -> None:
    warnings, record = seed(schema(REGISTER + tampering))
    assert warnings == [] and record["stat_data"] == {"金钱": 5}


@pytest.mark.parametrize("levels", [300, 2_000, 200_000])
def test_a_result_nested_too_deep_leaves_the_variables_as_they_were(levels: int) -> None:
    # What the schema's own transform gives back goes through JSON; too deep is said, never raised.
    code = (
        f"registerMvuSchema(z.object({{ 金钱: z.any().transform(() => {{ let v = 1; "
        f"for (let i = 0; i < {levels}; i++) v = [v]; return v; }}) }}));"
    )
    warnings, record = seed(schema(code))
    assert record["stat_data"] == {"金钱": "5"} and len(warnings) == 1
    assert "变量结构" in warnings[0] and "variables unchanged" in warnings[0]
