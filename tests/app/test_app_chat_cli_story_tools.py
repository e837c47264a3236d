"""`pear chat --once` shows what the user reads: sealed draft prose, and the choice card of `ask`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kit.cli import pear_in_process
from peargarden.testing.fake_openai import FakeOpenAIServer, chunk, sse, text_reply, tool_call_delta


def _tool_turn(*calls: tuple[str, str, dict[str, object]]) -> object:
    items: list[object] = [chunk(role="assistant", content="")]
    for index, (call_id, name, args) in enumerate(calls):
        items.append(chunk(tool_calls=[tool_call_delta(index, id=call_id, name=name,
                                                       arguments=json.dumps(args, ensure_ascii=False))]))  # fmt: skip
    items.append(chunk(finish_reason="tool_calls"))
    return sse(*items)  # type: ignore[arg-type]


def _once(home: Path, server: FakeOpenAIServer, text: str, *more: str) -> subprocess.CompletedProcess[str]:
    args = ["chat", "--once", text, "--mode", "stage", "--base-url", server.base_url, "--model", "m", *more]
    return pear_in_process(home, *args)


def test_sealed_draft_is_printed_as_the_reply(home_dir: Path) -> None:
    prose = "青梧把算盘往旁边一推：“镇北渡口？那年的船，早就不走了。”"
    with FakeOpenAIServer() as server:
        server.script([
            _tool_turn(("c1", "draft_write", {"content": prose}), ("c2", "draft_seal", {})),
            text_reply('{"patch": {}}'),
        ])  # fmt: skip
        done = _once(home_dir, server, "掌柜，镇北渡口还有船吗？")
    assert done.returncode == 0, done.stderr
    assert prose in done.stdout
    # pear chat snapshots the data folder when it starts (the asset vault).
    listed = pear_in_process(home_dir, "vault", "list", "--json", check=True)
    assert "startup" in [snap["reason"] for snap in json.loads(listed.stdout)]


def test_ask_prints_a_numbered_choice_card(home_dir: Path) -> None:
    ask = {"question": "要不要跟青梧去渡口看看？", "options": ["跟她去", "留在店里", "先问问周伯"]}
    with FakeOpenAIServer() as server:
        server.script([_tool_turn(("c1", "ask", ask)), text_reply('{"patch": {}}')])
        done = _once(home_dir, server, "我想去看看。")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "【岔口】要不要跟青梧去渡口看看？" in lines
    assert "  1. 跟她去" in lines and "  3. 先问问周伯" in lines


def test_a_bare_number_answers_with_the_option() -> None:
    from peargarden.cli._chat import _Printer

    printer = _Printer()
    printer.choices = ["跟她去", "留在店里"]
    assert printer.answer("2") == "留在店里"
    assert printer.answer("2") == "2"  # the card is used up by the first answer
    printer.choices = ["跟她去", "留在店里"]
    assert printer.answer("我自己去渡口") == "我自己去渡口"


def test_json_gives_the_reply_the_user_reads_as_events_of_its_own(home_dir: Path) -> None:
    """``--json``: the sealed draft is a ``prose`` event and the fork a ``choice`` event, each right
    after its tool's ``tool_end`` (docs/cli.md)."""
    prose = "青梧提起灯笼：“渡口的船，只在月圆夜走。”"
    ask = {"question": "要不要等到月圆？", "options": ["等", "不等"]}
    with FakeOpenAIServer() as server:
        server.script([
            _tool_turn(("c1", "draft_write", {"content": prose}), ("c2", "draft_seal", {})),
            text_reply('{"patch": {}}'),
            _tool_turn(("c3", "ask", ask)),
            text_reply('{"patch": {}}'),
        ])  # fmt: skip
        sealed = _once(home_dir, server, "船什么时候走？", "--json")
        asked = _once(home_dir, server, "那我等等看。", "--json")
    for done in (sealed, asked):
        assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in sealed.stdout.splitlines()]
    at = next(i for i, e in enumerate(events) if e["type"] == "tool_end" and e["name"] == "draft_seal")
    assert events[at + 1] == {"type": "prose", "text": prose, "version": 1}
    events = [json.loads(line) for line in asked.stdout.splitlines()]
    at = next(i for i, e in enumerate(events) if e["type"] == "tool_end" and e["name"] == "ask")
    choice = {"type": "choice", "question": "要不要等到月圆？", "options": ["等", "不等"], "free_text": True}
    assert events[at + 1] == choice


def test_the_printer_reads_the_events_not_the_tools(capsys: pytest.CaptureFixture[str]) -> None:
    """The terminal prints the reader's events; a tool's own result (its name, its details) is only
    a line of the timeline, whatever it carries."""
    from peargarden.agent.events import ChoiceEvent, ProseEvent, ToolEndEvent
    from peargarden.cli._chat import _Printer

    printer = _Printer()
    printer.event(ToolEndEvent(call_id="c1", name="draft_seal", text="已收笔", details={"prose": "不该印出的字"}))
    printer.event(ProseEvent(text="青梧笑了。\n", version=2))
    printer.event(ChoiceEvent(question="去哪？", options=("渡口", "后院"), free_text=False))
    out, err = capsys.readouterr()
    assert out.splitlines() == ["青梧笑了。", "【岔口】去哪？", "  1. 渡口", "  2. 后院"]
    assert "已收笔" in err and "不该印出的字" not in out + err
    assert printer.answer("2") == "后院"
    # Nothing in the terminal's chat knows the stage's tools by name or its details' shapes.
    source = (Path(__file__).parents[2] / "src" / "peargarden" / "cli" / "_chat.py").read_text(encoding="utf-8")
    assert "draft_seal" not in source and '"kind"' not in source and "details" not in source
