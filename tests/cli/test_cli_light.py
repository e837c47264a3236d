"""``pear chat`` and ``pear tavern assemble`` read without typer (``cli/_light.py``) read as typer reads them.

The light table is held equal to typer's converted click commands, option by option, and real command
lines are run both ways into the same function (recorded here instead of run): the same data folder
and the same parameters, values and types.  Lines the light reading leaves to typer are checked to be
left, and typer's own message and exit code to come out for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer._click import types

from peargarden.cli import _light, main
from peargarden.cli._app import load_command, root_command
from peargarden.cli._echo import echo
from peargarden.cli._run import run
from peargarden.cli._state import state

_KINDS = {
    types.StringParamType: _light.STR,
    types.IntParamType: _light.INT,
    types.FloatParamType: _light.FLOAT,
    types.BoolParamType: _light.FLAG,
}


def _click_command(words: tuple[str, ...]) -> Any:
    command = load_command(words[0])
    for word in words[1:]:
        command = command.commands[word]
    return command


def _kind(param: Any) -> str:
    if type(param.type).__name__ == "TyperPath":
        # the path as _light._convert takes it: refused only when it exists and cannot be read
        checks = ("exists", "file_okay", "dir_okay", "readable", "writable", "resolve_path", "allow_dash", "type")
        assert [getattr(param.type, name) for name in checks] == [False, True, True, True, False, False, False, None]
        return _light.PATH
    return _KINDS[type(param.type)]


def _typers_table(command: Any) -> dict[str, tuple[object, ...]]:
    """What the light table must say of each option of *command* (a click command typer made)."""
    table: dict[str, tuple[object, ...]] = {}
    for param in command.params:
        assert param.param_type_name == "option", f"{param.name}: the light reading takes no argument"
        assert param.secondary_opts == [] and param.nargs == 1 and param.envvar is None
        assert param.callback is None and not param.is_eager and not param.count and not param.prompt
        (name,) = param.opts
        table[name] = (param.name, _kind(param), param.default, param.required, param.multiple)
    return table


def _lights_table(options: dict[str, _light.Option]) -> dict[str, tuple[object, ...]]:
    return {name: (o.param, o.kind, o.default, o.required, o.multiple) for name, o in options.items()}


def test_the_root_option_is_typers() -> None:
    root = root_command()
    assert _lights_table(_light.ROOT) == _typers_table(root)
    assert not root.ignore_unknown_options and root.context_settings == {}


@pytest.mark.parametrize("command", _light.LIGHT, ids=lambda c: " ".join(c.words))
def test_the_light_table_is_typers(command: _light.Command) -> None:
    typers = _click_command(command.words)
    assert _lights_table(command.options) == _typers_table(typers)
    # nothing that would make typer read a line otherwise (extra words, unknown options, env variables)
    assert not typers.ignore_unknown_options and not typers.allow_extra_args and not typers.no_args_is_help
    assert typers.context_settings == {}


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Path | None, dict[str, Any]]] = []

    def __call__(self, **params: Any) -> None:
        self.calls.append((state.home_override, params))


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> _Recorder:
    """The commands' work replaced by a recorder: both readings end in the same function."""
    recorder = _Recorder()
    monkeypatch.setattr("peargarden.cli._chat.chat", recorder)
    monkeypatch.setattr("peargarden.cli._assemble.assemble", recorder)
    return recorder


def _typed(call: tuple[Path | None, dict[str, Any]]) -> object:
    home, params = call
    return repr(home), {name: (type(value), value) for name, value in params.items()}  # 1 is not 1.0


LINES = [
    ["chat"],
    ["chat", "--once", "掌柜，还有空房吗？"],
    ["--home", "{home}", "chat", "--card", "青梧", "--once=你好", "--json"],
    ["--home={home}", "chat", "--chat", "对话-1", "--mode", "tavern", "--thinking", "off", "--persona", "阿梨"],
    ["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "假模型", "--api-key-env", "钥匙", "--once", "在吗"],
    ["chat", "--group", "茶馆", "--once", "掌柜？", "--local-model", "qwen-0.5b"],
    ["chat", "--once", "第一句", "--once", "第二句", "--json", "--json", "--card", "甲", "--card=乙"],
    ["chat", "--connect-timeout", "2.5", "--first-byte-timeout=1e2", "--idle-timeout", "3", "--total-timeout", " 7 "],
    ["chat", "--still-waiting", "0", "--once", "嗨", "--"],
    ["chat", "--once", "--json"],  # the next word is the value, whatever it looks like
    ["chat", "--persona", "--", "--once", "-"],
    ["chat", "--once=", "--card", "a=b"],
    ["--home", "{home}", "--home", "{home}/别处", "chat", "--once", "嗯"],
    ["tavern", "assemble", "--card", "青梧"],
    ["--home", "{home}", "tavern", "assemble", "--card=青梧", "--chat", "ID", "--message", "掌柜", "--ledger"],
    ["tavern", "assemble", "--card", "青梧", "--preset", "默认", "--st-version", "1.12", "--seed", "42", "--json"],
    ["tavern", "assemble", "--seed", "-3", "--card", "青梧", "--seed=٣", "--"],  # int() reads Arabic-Indic digits
]


@pytest.mark.parametrize("line", LINES, ids=" ".join)
def test_a_plain_line_reads_the_same_both_ways(line: list[str], home_dir: Path, recorded: _Recorder) -> None:
    argv = [word.replace("{home}", str(home_dir)) for word in line]
    light = _light.read(argv)
    assert light is not None
    run(list(argv))  # through typer
    light.run(list(argv))
    through_typer, read_light = recorded.calls
    assert _typed(read_light) == _typed(through_typer)


TYPERS = [
    (["chat", "--help"], 0, "--still-waiting"),
    (["chat", "--once", "--help"], None, None),  # typer: a message "--help"; any --help is left to it
    (["chat", "--onse", "你好"], 2, "No such option: --onse"),
    (["chat", "--json=1"], 2, "does not take a value"),
    (["chat", "--once"], 2, "requires an argument"),
    (["chat", "--still-waiting", "十秒"], 2, "is not a valid float"),
    (["chat", "多余的话"], 2, "unexpected extra argument"),
    (["chat", "--", "多余的话"], 2, "unexpected extra argument"),
    (["chat", "-"], 2, "unexpected extra argument"),
    (["chat", "--home", "x"], 2, "No such option: --home"),
    (["--home"], 2, "requires an argument"),
    (["--", "chat"], None, None),
    (["tavern", "assemble"], 2, "Missing option '--card'"),
    (["tavern", "assemble", "--card", "青梧", "--seed", "1.5"], 2, "is not a valid int"),
    (["tavern", "--card", "青梧", "assemble"], 2, "No such option: --card"),
    (["tavern", "hosts", "--card", "青梧"], None, None),
    (["cards"], None, None),
]


@pytest.mark.parametrize(("line", "code", "says"), TYPERS, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_any_other_line_is_typers(
    line: list[str], code: int | None, says: str | None, recorded: _Recorder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _light.read(line) is None
    if code is None:  # another command, or a line typer reads its own way: only left to it
        return
    try:
        main(line)
    except SystemExit as done:
        status = done.code
    else:
        status = 0
    captured = capsys.readouterr()
    assert (status, recorded.calls) == (code, [])
    assert says is not None and says in captured.out + captured.err


def test_an_unreadable_data_folder_is_left_to_typer(tmp_path: Path) -> None:
    """typer's path refuses a folder that exists but cannot be read; the light reading leaves it to it."""
    folder = tmp_path / "数据"
    folder.mkdir(mode=0)
    try:
        if _light._convert(_light.PATH, str(folder)) is not None:
            pytest.skip("this user reads every folder (root)")
        assert _light.read(["--home", str(folder), "chat"]) is None
    finally:
        folder.chmod(0o700)


@pytest.mark.parametrize("message", ["客官，楼上请。", "\x1b[31m红灯笼\x1b[0m 亮了", "", "  ↳ 已收笔\n第二行"])
@pytest.mark.parametrize("err", [False, True])
def test_the_light_echo_writes_what_typers_writes(message: str, err: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """The commands' bodies print through cli/_echo.py now: off a terminal the colour codes go, as click's do."""
    typer.echo(message, err=err)
    theirs = capsys.readouterr()
    echo(message, err=err)
    assert capsys.readouterr() == theirs
    assert "\x1b" not in theirs.out + theirs.err
