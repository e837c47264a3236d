"""Benchmark: a zod-schema MVU card's update (the card's ``registerMvuSchema`` script in QuickJS).

Run from the repository root::

    .venv/bin/python bench/bench_zod_schema.py [--runs 100]

Each use starts a fresh QuickJS context, loads our zod and lodash subsets and MVU's schema handling,
runs the card's schema script and then one MVU step, as the product does: ``initialized`` (a new
chat's seed parsed) and ``update_variables`` with the schema on a reply of six commands (records,
arrays, clamps, one enum refusal).  Median and 90th percentile wall time in this process; the first
use (reading the JavaScript files) is timed on its own.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from peargarden.variables.jsvalues import clone
from peargarden.variables.script_budget import ScriptBudget
from peargarden.variables.update import update_variables
from peargarden.variables.zod_schema import MvuSchema, SchemaScript

SCRIPT = """const { registerMvuSchema } = await import('https://testingcf.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js');
const 百分 = () => z.coerce.number().transform(v => _.clamp(v, 0, 100)).prefault(0);
const 人物 = z.object({
  身份: z.string().prefault(''), 好感度: 百分(), 体力: 百分(), 物品: z.array(z.string()).prefault([]),
}).prefault({});
export const Schema = z.object({
  世界: z.object({
    时段: z.enum(['清晨', '午后', '深夜']).prefault('清晨'), 天数: z.coerce.number().prefault(1),
  }).prefault({}),
  角色: z.record(z.string(), 人物).prefault({}),
  近期事件: z.array(z.string()).prefault([]),
});
$(() => registerMvuSchema(Schema));
"""

REPLY = """小梨笑着接过茶。
<UpdateVariable>
_.set('角色.小梨.好感度', 150);//喝茶
_.add('角色.角色3.体力', '-20');
_.set('世界.时段', '黄昏');//不在枚举里
<JSONPatch>[{"op":"add","path":"/角色/阿福","value":{"身份":"猎户","好感度":"30"}},
{"op":"add","path":"/近期事件/-","value":"喝茶"},{"op":"move","from":"/角色/角色9","path":"/角色/旧友"}]</JSONPatch>
</UpdateVariable>"""


def _record() -> dict[str, Any]:
    people = {f"角色{i}": {"好感度": i * 5, "体力": 80, "物品": ["折扇"]} for i in range(10)}
    people["小梨"] = {"身份": "学徒", "好感度": 40}
    return {"initialized_lorebooks": {}, "stat_data": {"世界": {"时段": "午后"}, "角色": people, "近期事件": []}}


def _times(fn: Any, runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    runs = parser.parse_args().runs
    # Hundreds of uses in one process: a budget per use as in a beat, none across them.
    schema = MvuSchema((SchemaScript("变量结构", SCRIPT),), ScriptBudget(time.thread_time, per_beat=float("inf")))
    start = time.perf_counter()
    schema.check()
    print(f"first use (reads the JS files): {(time.perf_counter() - start) * 1000:.1f} ms")
    seeded = _record()
    assert schema.initialized(seeded, 0).registered
    p50, p90 = _times(lambda: schema.initialized(_record(), 0), runs)
    print(f"initialized (seed parsed), p50 / p90: {p50:.2f} / {p90:.2f} ms")
    p50, p90 = _times(lambda: update_variables(REPLY, clone(seeded), schema=schema), runs)
    print(f"update_variables with the schema, 6 commands, p50 / p90: {p50:.2f} / {p90:.2f} ms")
    p50, p90 = _times(lambda: update_variables(REPLY, clone(seeded)), runs)
    print(f"update_variables without it (classic MVU), p50 / p90: {p50:.2f} / {p90:.2f} ms")


if __name__ == "__main__":
    main()
