"""Benchmark: card templates in QuickJS (first-run and per-template cost) and MVU's update per reply.

Run from the repository root::

    .venv/bin/python bench/bench_variables.py [--runs 200]

First-run cost is measured in fresh child processes (the median of 5): importing the engine
(``quickjs``) and the first render, which pays for the import, the first context and the compile.
Per-template cost is the median and 90th percentile wall time of ``render_template`` in this
process on a template like a real card's (an ``if`` on an MVU variable read with ``getvar``, an
output, a ``setvar``), every render in a fresh QuickJS context as the product does.  The MVU update
is ``update_variables`` on a reply with six commands and a JSON Patch block over a 40-leaf state.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from peargarden.variables.templates_js import render_template
from peargarden.variables.update import update_variables

TEMPLATE = """<%_ const phase = getvar('stat_data.系统.当前阶段', { defaults: '磨合期' }); _%>
<%_ if (phase === '磨合期') { _%>
二人仍在磨合：小梨的好感度是 <%= getvar('stat_data.小梨.好感度[0]') %>。
<%_ } else { _%>
二人已是<%= phase %>。
<%_ } _%>
<%_ for (const item of getvar('stat_data.小梨.物品', { defaults: [] })) { _%>
- <%- item %>
<%_ } _%>
<% setvar('stat_data.访问次数', (getvar('stat_data.访问次数') || 0) + 1) %>"""

FIRST_RUN = """
import time
t0 = time.perf_counter()
import quickjs
t1 = time.perf_counter()
from peargarden.variables.templates_js import render_template
render_template("<%= getvar('a', {defaults: 1}) %>", {"message": {}})
t2 = time.perf_counter()
print((t1 - t0) * 1000, (t2 - t0) * 1000)
"""


def _state() -> dict[str, object]:
    stat = {f"角色{i}": {"好感度": [i, "0~100"], "心情": "平静", "物品": ["折扇", "茶壶"]} for i in range(10)}
    stat["世界"] = {"时间": "2024-01-01T08:00:00.000Z", "地点": "梨园", "天数": 1}
    return {"stat_data": stat, "schema": {"type": "object", "properties": {}}, "display_data": {}, "delta_data": {}}


REPLY = """小梨笑着接过茶。
<UpdateVariable>
_.set('世界.地点', '后台');//去后台
_.add('角色1.好感度', 5);//喝茶
_.add('世界.时间', 3600000);//一小时
_.set('角色2.心情', '开心');
_.add('角色3.好感度', -2);
_.set('角色4.心情', '生气');//没练功
<JSONPatch>[{"op": "replace", "path": "/世界/天数", "value": 2}]</JSONPatch>
</UpdateVariable>"""


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.9) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    imports, firsts = [], []
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", FIRST_RUN], capture_output=True, text=True, check=True).stdout
        engine_import, first = map(float, out.split())
        imports.append(engine_import)
        firsts.append(first)
    print(f"engine import: median {statistics.median(imports):.1f} ms")
    print(f"import + first render: median {statistics.median(firsts):.1f} ms")
    variables = {"message": {"stat_data": {"小梨": {"好感度": [10, "d"], "物品": ["折扇", "茶壶", "笛子"]}}}}
    render_template(TEMPLATE, variables)
    samples = []
    for _ in range(args.runs):
        start = time.perf_counter()
        result = render_template(TEMPLATE, variables)
        samples.append((time.perf_counter() - start) * 1000)
    assert result.warning is None, result.warning
    p50, p90 = _percentiles(samples)
    print(f"render (fresh context each): p50 {p50:.3f} ms, p90 {p90:.3f} ms over {args.runs}")
    samples = []
    for _ in range(args.runs):
        state = _state()
        start = time.perf_counter()
        update_variables(REPLY, state)
        samples.append((time.perf_counter() - start) * 1000)
    p50, p90 = _percentiles(samples)
    print(f"MVU update_variables (7 commands, 43 leaves): p50 {p50:.3f} ms, p90 {p90:.3f} ms over {args.runs}")


if __name__ == "__main__":
    main()
