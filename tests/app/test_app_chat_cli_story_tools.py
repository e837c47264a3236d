"""`pear chat --once` shows what the user reads: sealed draft prose, and the choice card of `ask`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from kit.cli import pear_in_process
from peargarden.testing.fake_openai import FakeOpenAIServer, chunk, sse, text_reply, tool_call_delta


def _tool_turn(*calls: tuple[str, str, dict[str, object]]) -> object:
    items: list[object] = [chunk(role="assistant", content="")]
    for index, (call_id, name, args) in enumerate(calls):
        items.append(chunk(tool_calls=[tool_call_delta(index, id=call_id, name=name,
                                                       arguments=json.dumps(args, ensure_ascii=False))]))  # fmt: skip
    items.append(chunk(finish_reason="tool_calls"))
    return sse(*items)  # type: ignore[arg-type]


def _once(home: Path, server: FakeOpenAIServer, text: str) -> subprocess.CompletedProcess[str]:
    args = ["chat", "--once", text, "--mode", "stage", "--base-url", server.base_url, "--model", "m"]
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
    from peargarden.cli.chat_cmd import _Printer

    printer = _Printer()
    printer.choices = ["跟她去", "留在店里"]
    assert printer.answer("2") == "留在店里"
    assert printer.answer("2") == "2"  # the card is used up by the first answer
    printer.choices = ["跟她去", "留在店里"]
    assert printer.answer("我自己去渡口") == "我自己去渡口"
