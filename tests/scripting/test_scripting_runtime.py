"""The runtime a card's scripts run in: QuickJS in its own process, every TavernHelper call over one
bridge to the Python implementation, promised calls resolved between the scripts' turns, tavern
events awaited listener by listener, timers on a virtual clock, CPU and memory bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from kit.script_chats import ChatFactory
from peargarden.app.play.script_process import ScriptLimits
from peargarden.text.jsvalue import UNDEFINED


def test_a_script_publishes_on_window_parent_and_reads_variables(chat: ChatFactory) -> None:
    one = chat()
    one.run("""
        const host = () => (window.parent && window.parent !== window ? window.parent : window);
        replaceVariables({ 好感度: 30, 物品: ['折扇'] }, { type: 'chat' });
        host().梨园 = { 好感度: getVariables({ type: 'chat' }).好感度, 名字: getCurrentCharacterName() };
    """)
    assert one.read("梨园") == {"好感度": 30, "名字": "小梨"}
    assert one.state.chat_metadata["variables"] == {"好感度": 30, "物品": ["折扇"]}


def test_promised_calls_resolve_in_order_between_turns(chat: ChatFactory) -> None:
    one = chat()
    one.run("""
        const order = window.parent.order = [];
        createChatMessages([{ role: 'user', message: '唱一段' }])
          .then(() => order.push('created:' + getLastMessageId()));
        order.push('sync');
        triggerSlash('/echo 好').then((pipe) => order.push('slash:' + pipe));
    """)
    assert one.read("order") == ["sync", "created:1", "slash:好"]
    assert [m["mes"] for m in one.state.chat] == ["小梨向你行礼：“师父早！”", "唱一段"]


def test_an_emit_waits_for_every_listener_even_one_that_waits_on_a_timer(chat: ChatFactory) -> None:
    one = chat()
    session = one.run("""
        const log = window.parent.log = [];
        eventOn('自定义', async (x) => {
          log.push('甲' + x);
          await new Promise((r) => setTimeout(r, 5000));
          log.push('甲完');
        });
        eventOnce('自定义', (x) => log.push('乙' + x));
        eventMakeFirst('自定义', () => log.push('先'));
    """)
    session.emit("自定义", [1])
    assert one.read("log") == ["先", "甲1", "甲完", "乙1"]
    session.emit("自定义", [2])
    assert one.read("log") == ["先", "甲1", "甲完", "乙1", "先", "甲2", "甲完"]
    assert session.now == 10_000  # virtual time: nobody waited five seconds twice


def test_message_events_give_listeners_numbers(chat: ChatFactory) -> None:
    one = chat()
    session = one.run("""
        window.parent.seen = [];
        eventOn(tavern_events.MESSAGE_RECEIVED, (id, type) => window.parent.seen.push([typeof id, id, type]));
    """)
    session.emit("message_received", ["0", "first_message"])
    session.emit("message_received", ["不是数字", "normal"])
    assert one.read("seen") == [["number", 0, "first_message"]]


@pytest.mark.parametrize("loop", ["while (true) {}", "while (true) getVariables({ type: 'chat' });"],
                         ids=["silent", "calling-the-host"])  # fmt: skip
def test_a_script_that_loops_forever_is_stopped_and_named(chat: ChatFactory, loop: str) -> None:
    # The wall limit is far: under any load the CPU bound (the scripts' and the host's answering) stops it.
    one = chat(limits=ScriptLimits(cpu_seconds=0.5, wall_seconds=600))
    session = one.run(loop, name="死循环脚本")
    assert session.gone is not None and "CPU" in session.gone
    assert session.errors == [session.gone]
    session.emit("message_received", [0, "normal"])  # a stopped runtime is quiet, not an error
    assert one.read("anything") is UNDEFINED


def test_a_script_that_allocates_without_end_runs_out_of_memory_alone(chat: ChatFactory) -> None:
    one = chat(limits=ScriptLimits(memory_limit=48 << 20))
    session = one.run(
        "const hoard = []; while (true) hoard.push('梨'.repeat(1 << 16) + hoard.length);", name="贪吃脚本"
    )
    assert any("贪吃脚本" in e and "out of memory" in e for e in session.errors), session.errors
    one.run("window.parent.still = 'alive';", name="后来的脚本", script_id="s2")
    assert one.read("still") == "alive"


def test_what_needs_a_page_or_is_refused_says_so_in_one_line(chat: ChatFactory) -> None:
    one = chat()
    session = one.run("""
        const out = window.parent.out = {};
        try { $('body').append('<div>面板</div>'); } catch (e) { out.jquery = e.message; }
        try { createCharacter('新角色'); } catch (e) { out.refused = e.message; }
        try { notAFunction(); } catch (e) { out.unknown = e.message; }
    """)
    out = one.read("out")
    assert "需要网页" in out["jquery"]
    assert out["refused"].startswith("createCharacter 不可用：")
    assert "notAFunction" in out["unknown"]
    assert session.needs_page == {"测试脚本"} and session.refused == {"createCharacter": 1}


def test_a_remote_import_is_refused_with_its_address(chat: ChatFactory) -> None:
    one = chat()
    session = one.run(
        "import { 不存在 } from 'https://testingcf.jsdelivr.net/gh/某人/某库/dist/index.js';\nwindow.parent.ran = 1;"
    )
    assert any("https://testingcf.jsdelivr.net/gh/某人/某库/dist/index.js" in e for e in session.errors)
    assert one.read("ran") is UNDEFINED


def test_an_uncaught_error_names_its_script(chat: ChatFactory) -> None:
    one = chat()
    session = one.run("await Promise.resolve(); throw new Error('台词忘了');", name="忘词")
    assert session.errors == ["脚本「忘词」出错（run）：台词忘了"]


def test_inject_prompts_gives_back_its_uninject(chat: ChatFactory) -> None:
    one = chat()
    one.run("""
        const prompt = { id: '锣鼓', position: 'in_chat', depth: 0, role: 'system', content: '锣鼓点起。' };
        const handle = injectPrompts([prompt]);
        window.parent.before = Object.keys(handle);
        handle.uninject();
    """)
    assert one.read("before") == ["uninject"]
    assert "锣鼓" not in one.state.table.entries
    one.run("injectPrompts([{ id: '胡琴', content: '胡琴拉起。', depth: 2 }]);", script_id="s2")
    assert one.state.table.entries["胡琴"].value == "胡琴拉起。"


def test_an_injected_prompts_filter_is_asked_when_a_generation_starts(chat: ChatFactory) -> None:
    # kai's 「立即事件」: a prompt for the world-info scan only, in force while its filter (a function,
    # which never crosses to the host) says so — asked as a generation starts, not for a dry run.
    one = chat()
    session = one.run("""
        eventOn('设依存度', (value) => replaceVariables({ 依存度: value }, { type: 'chat' }));
        injectPrompts([{ id: '冲动', position: 'none', depth: 0, role: 'system', content: '【冲动啊，请平息吧】',
          should_scan: true, filter: () => getVariables({ type: 'chat' }).依存度 === 100 }]);
    """)
    session.emit("generation_started", ["normal", {}, False])
    assert "冲动" not in one.state.table.entries
    session.emit("设依存度", [100])
    session.emit("generation_started", ["normal", {}, True])  # a dry run: not asked
    assert "冲动" not in one.state.table.entries
    session.emit("generation_started", ["normal", {}, False])
    entry = one.state.table.entries["冲动"]
    assert (entry.value, entry.position, entry.scan) == ("【冲动啊，请平息吧】", -1, True)
    session.emit("设依存度", [40])
    session.emit("generation_started", ["normal", {}, False])
    assert "冲动" not in one.state.table.entries


def test_a_looping_script_does_not_outlive_a_killed_parent() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(0.3)  # the child is in its loop now
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    survived = _alive(child)
    if survived:
        os.kill(child, signal.SIGKILL)  # not left spinning when the test fails
    assert not survived


_PARENT = """
from peargarden.app.play.script_process import ScriptLimits, ScriptProcess
process = ScriptProcess(ScriptLimits(cpu_seconds=120, wall_seconds=120))
print(process.proc.pid, flush=True)
process.request({"op": "script", "id": "s", "name": "死循环", "code": "while (true) {}"}, lambda request: "{}")
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
