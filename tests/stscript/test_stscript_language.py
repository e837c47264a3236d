"""The language as SillyTavern reads and runs it: parsing quirks, errors with their position, scopes,
closures, loops, the pipe, abort and break — with Chinese text where text matters."""

from __future__ import annotations

import pytest

from conftest import Runner
from peargarden.stscript.commands import default_registry
from peargarden.stscript.parser import parse
from peargarden.stscript.syntax import ExecutionError, ParserError


def test_a_newline_is_not_a_separator(run: Runner) -> None:
    done = run("/setvar key=甲 一\n/setvar key=乙 二")
    assert done.local == {"甲": "一\n/setvar key=乙 二"}


def test_words_with_an_equals_sign_are_named_arguments(run: Runner) -> None:
    assert run("/pass 前 | /pass x=1").pipe == "前"  # x=1 was read as an argument: nothing left
    assert run("/pass 前 | /pass 天气=晴").pipe == "天气=晴"  # names are ASCII words: this is text
    assert run('/pass 前 | /pass "x=1"').pipe == "x=1"


def test_double_bar_keeps_the_pipe_from_the_next_command(run: Runner) -> None:
    assert run("/pass 上一个 | /pass").pipe == "上一个"
    assert run("/pass 上一个 || /pass").pipe == ""


def test_a_backslash_makes_a_bar_text_in_the_loose_mode(run: Runner) -> None:
    assert run(r"/pass 左\|右").pipe == "左|右"


def test_strict_escaping_counts_backslashes_in_pairs(run: Runner) -> None:
    assert run("/parser-flag STRICT_ESCAPING |\n/pass 甲\\\\| /pass 乙{{pipe}}").pipe == "乙甲\\"


def test_closure_braces_can_be_escaped(run: Runner) -> None:
    assert run(r"/pass \{: 不是闭包 :\}").pipe == "{: 不是闭包 :}"


def test_unknown_command_error_names_the_position() -> None:
    with pytest.raises(ParserError) as error:
        parse("/pass 好 | /不存在 的命令", default_registry())
    # SillyTavern counts from after the space that follows the name, minus the name's length.
    assert error.value.message == 'Unknown command at position 12: "/不存在"'
    assert error.value.line == 0 and error.value.column == 12


def test_parser_error_excerpt_points_under_the_position() -> None:
    with pytest.raises(ParserError) as error:
        parse('/pass 第一行 |\n/pass "没有结尾', default_registry())
    text = error.value.toast_text()
    assert text.startswith("Unexpected end of quoted value at position")
    assert "Line: 1" in text and text.endswith("\n\nClick to see details")
    assert "^^^^^" in text


def test_parser_errors_are_toasts_by_default_and_thrown_on_request(run: Runner) -> None:
    shown = run("/if left=1 {: /pass 没有结尾")
    assert shown.outcome.result is not None and shown.outcome.result.pipe is not None
    assert [t["title"] for t in shown.host.toasts] == ["SlashCommandParserError"]
    thrown = run("/if left=1 {: /pass 没有结尾", parser_errors=False)
    assert isinstance(thrown.outcome.error, ParserError)
    assert thrown.outcome.error.message.startswith("Unclosed closure at position")


def test_execution_errors_are_thrown_by_default_and_toasted_on_request(run: Runner) -> None:
    thrown = run("/pass 好 | /var 未声明")
    assert isinstance(thrown.outcome.error, ExecutionError)
    assert thrown.outcome.error.message == 'No such variable: "未声明"'
    handled = run("/pass 好 | /var 未声明", execution_errors=True)
    assert handled.outcome.result is not None and handled.outcome.result.is_error
    assert handled.host.toasts[0]["title"] == "SlashCommandExecutionError"


def test_let_shadows_in_a_closure_and_var_reaches_out(run: Runner) -> None:
    done = run('/let 名 外 | /let 色 外 | /run {: /let 名 内 | /var 色 改 :} | /pass "{{var::名}}/{{var::色}}"')
    assert done.pipe == "外/改"


def test_closure_parameters_and_run_arguments(run: Runner) -> None:
    script = (
        "/let 问候 {: who=世界 /pass 你好，{{var::who}} :} | /run 问候 | /let 甲 {{pipe}} | "
        "/run who=青梧 问候 | /pass {{var::甲}}；{{pipe}}"
    )
    assert run(script).pipe == "你好，世界；你好，青梧"
    # A parameter name must be an ASCII word: 谁=青梧 is part of the name to run.
    done = run("/let 问候 {: /pass 你好 :} | /run 谁=青梧 问候")
    assert done.outcome.error is not None
    name = "谁=青梧 问候"
    assert done.outcome.error.message == f'Error running Quick Reply "{name}": No Quick Reply found for "{name}".'


def test_an_immediate_closure_is_its_result(run: Runner) -> None:
    assert run("/pass {: /pass 里面 :}() 外面").pipe == "里面 外面"


def test_times_counts_from_zero(run: Runner) -> None:
    assert run('/setvar key=s "" | /times 3 {: /addvar key=s 第{{timesIndex}} :} | /getvar s').pipe == "第0第1第2"


def test_while_stops_at_the_guard_unless_switched_off(run: Runner) -> None:
    assert run("/setvar key=k 0 | /while left=1 right=2 rule=lt {: /incvar k :} | /getvar k").pipe == "100"
    done = run("/setvar key=k 0 | /while left=k right=150 rule=lt guard=off {: /incvar k :} | /getvar k")
    assert done.pipe == "150"


def test_break_leaves_the_loop_with_its_value(run: Runner) -> None:
    done = run(
        "/setvar key=i 0 | "
        "/while left=i right=9 rule=lt {: /incvar i | /if left=i right=3 rule=eq {: /break 停在三 :} :}"
    )
    assert done.pipe == "停在三"
    assert done.local["i"] == 3


def test_if_else_and_the_truthy_test(run: Runner) -> None:
    assert run("/if left=2 right=1 rule=lt else={: /pass 否 :} {: /pass 是 :}").pipe == "否"
    assert run("/if left=有字 {: /pass 真 :}").pipe == "真"
    assert run("/if left=off {: /pass 真 :}").pipe == ""
    assert run("/setvar key=名 青梧 | /if left=名 right=青梧 {: /pass 同名 :}").pipe == "同名"


def test_return_does_not_stop_the_closure(run: Runner) -> None:
    assert run("/let f {: /pass 一 | /return 早 | /pass 晚 :} | /run f").pipe == "晚"


def test_abort_stops_everything_with_the_pipe_as_reason(run: Runner) -> None:
    done = run("/setvar key=前 1 | /pass 理由 | /abort | /setvar key=后 1")
    result = done.outcome.result
    assert result is not None and result.is_aborted and result.is_quiet
    assert result.abort_reason == "理由"
    assert done.local == {"前": "1"}
    inner = run("/pass 理由 | /run {: /abort :} | /setvar key=后 1")  # first in its closure: no pipe
    assert inner.outcome.result is not None and inner.outcome.result.abort_reason == "/abort command executed"
    assert "后" not in inner.local
    loud = run("/abort quiet=false 停下")
    assert loud.host.toasts == [{"type": "warning", "title": "Command execution aborted", "message": "停下"}]


def test_a_closure_that_calls_itself_without_end_is_an_error_not_a_crash(run: Runner) -> None:
    done = run("/let f {: /run f :} | /run f")
    assert isinstance(done.outcome.error, ExecutionError)
    assert done.outcome.error.message == "Maximum call stack size exceeded"


def test_macros_see_what_earlier_commands_did(run: Runner) -> None:
    done = run(
        "/setvar key=心情 平静 | /pass {{getvar::心情}} | /setvar key=旧 | /setvar key=心情 欢喜 | "
        "/pass {{getvar::旧}}→{{getvar::心情}}"
    )
    assert done.pipe == "平静→欢喜"


def test_char_and_user_macros(run: Runner) -> None:
    assert run("/pass {{char}}对{{user}}说").pipe == "Ava对User说"


def test_closure_serialize_round_trip(run: Runner) -> None:
    script = (
        "/closure-serialize {: /pass 序列化 :} | /setvar key=c | /closure-deserialize {{getvar::c}} | "
        "/let key=f | /run f"
    )
    assert run(script).pipe == "序列化"


def test_a_bar_inside_a_macro_does_not_end_the_command() -> None:
    closure = parse("/pass {{甲|乙}} | /pass 丙", default_registry())
    assert [e.name for e in closure.executors] == ["pass", "pass"]
    assert closure.executors[0].unnamed[0].value == "{{甲|乙}}"
    still_open = parse("/pass }} {{a | b", default_registry())  # an unclosed {{ swallows the rest
    assert len(still_open.executors) == 1


def test_getvar_is_not_rewritten_under_the_new_macro_engine() -> None:
    flags = {"REPLACE_GETVAR": True}
    new = parse("/pass {{getvar::x}}", default_registry(), flags=flags, new_macro_engine=True)
    assert [e.name for e in new.executors] == ["pass"]
    old = parse("/pass {{getvar::x}}", default_registry(), flags=flags)
    assert [e.name for e in old.executors] == ["let", "getvar", "let", "return", "pass"]
