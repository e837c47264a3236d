"""The embedded model's faults through the real CLI: `pear models --check`, `pear chat --once`, `pear chat`.

Each `pear` is a real process whose worker imports the fake runtime (``kit/fake_runtime``): the exit
codes, the one line on stderr and the chat file are what a user would get.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kit.cli import pear_process
from kit.fake_llama import FAKE_REPLY, fake_fetched, fake_model, loads, misbehave
from peargarden.providers.model_catalog import QWEN_05B, QWEN_15B

QUESTION = "掌柜，今晚还有空房吗？"


@pytest.fixture
def model(tmp_path: Path) -> Path:
    return fake_model(tmp_path)


def _session_text(home: Path) -> str:
    (chat,) = (home / "cards" / "青梧" / "chats").iterdir()
    return (chat / "session.jsonl").read_text(encoding="utf-8")


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("pear: ")]


def test_models_check_runs_both_configurations_and_keeps_the_record(
    home_dir: Path, fake_runtime: Path, model: Path
) -> None:
    done = pear_process(home_dir, "models", "--check", "--local-model", model, "--json", check=True)
    result = json.loads(done.stdout)
    assert result["chosen"] == "fast" and result["fresh"] and not result["rebuild"]
    assert result["config"] == {"use_extra_bufts": True}
    assert [(t["config"], t["outcome"]) for t in result["trials"]] == [("fast", "ok"), ("safe", "ok")]
    assert all(t["gen_tok_s"] > 0 and t["prompt_tok_s"] > 0 for t in result["trials"])
    assert Path(result["record"]) == fake_runtime / "models" / "runtime.json"
    assert len(loads(fake_runtime)) == 2
    quiet = pear_process(home_dir, "models", "--check", "--if-needed", "--local-model", model, check=True)
    assert len(loads(fake_runtime)) == 2 and quiet.stdout == ""  # the record still holds: nothing ran, nothing said
    shown = pear_process(home_dir, "models", "--check", "--if-needed", "--json", "--local-model", model, check=True)
    assert json.loads(shown.stdout)["fresh"] is False and len(loads(fake_runtime)) == 2
    again = pear_process(home_dir, "models", "--check", "--local-model", model, check=True)
    assert len(loads(fake_runtime)) == 4  # on demand: tested again
    lines = again.stdout.splitlines()
    assert lines[0].startswith("内置模型自检：青梧测试模型")
    assert lines[1].startswith("  fast（CPU extra buffer types 开）：通过，prompt ")
    assert lines[-1].startswith("选用 fast：both passed") and "刚刚测过" in lines[-1]


def test_models_check_falls_back_when_the_fast_configuration_crashes(
    home_dir: Path, fake_runtime: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    misbehave(monkeypatch, "crash_extra_bufts")
    done = pear_process(home_dir, "models", "--check", "--local-model", model, check=True)
    assert "  fast（CPU extra buffer types 开）：失败：crash（SIGSEGV）" in done.stdout.splitlines()
    assert done.stdout.splitlines()[-1].startswith("选用 safe：only safe passed (fast: crash (SIGSEGV))")


def test_models_check_with_every_configuration_crashing_exits_5(
    home_dir: Path, fake_runtime: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    misbehave(monkeypatch, "crash_probe")
    done = pear_process(home_dir, "models", "--check", "--local-model", model)
    assert done.returncode == 5
    (error,) = _errors(done.stderr)
    assert "scripts/setup.sh --local --portable" in error and "Traceback" not in done.stderr


def test_chat_once_after_a_crash_mid_reply_exits_non_zero_keeps_the_message_and_the_next_beat_works(
    home_dir: Path, fake_runtime: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pear_process(home_dir, "models", "--check", "--local-model", model, check=True)
    # The crash comes after the reply's first sentence was shown (the guards hold the opening).
    misbehave(monkeypatch, "reply=有的，楼上还空着一间。临河，推窗就是柳树。;crash_at=16;once")
    done = pear_process(home_dir, "chat", "--once", QUESTION, "--local-model", model)
    assert done.returncode == 4
    (error,) = _errors(done.stderr)
    assert "llama.cpp: SIGSEGV" in error and "安全配置" in error
    assert "Traceback" not in done.stderr
    assert done.stdout.startswith("有的，楼上还空着一间。") and "柳树" not in done.stdout
    session = _session_text(home_dir)
    assert QUESTION in session and "有的，楼上还空着一间。" in session  # the message and the partial reply kept
    misbehave(monkeypatch, "")
    (chat_folder,) = (home_dir / "cards" / "青梧" / "chats").iterdir()
    chat_id = chat_folder.name
    again = pear_process(home_dir, "chat", "--once", "那就要一间。", "--chat", chat_id, "--local-model", model)
    assert again.returncode == 0, again.stderr
    assert FAKE_REPLY in again.stdout
    assert FAKE_REPLY in _session_text(home_dir)


def test_interactive_chat_keeps_running_after_a_hang(
    home_dir: Path, fake_runtime: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In one `pear chat`: the hung worker is stopped after --idle-timeout, the next line is answered."""
    pear_process(home_dir, "models", "--check", "--local-model", model, check=True)
    misbehave(monkeypatch, "hang_at=2;once")
    command = [sys.executable, "-m", "peargarden", "--home", str(home_dir), "chat", "--local-model", str(model),
               "--idle-timeout", "2"]  # fmt: skip
    done = subprocess.run(
        command, input=f"{QUESTION}\n那就要一间。\n/quit\n", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    (error,) = _errors(done.stderr)
    assert "2 秒没有任何输出" in error
    assert FAKE_REPLY in done.stdout
    session = _session_text(home_dir)
    assert QUESTION in session and "那就要一间。" in session and FAKE_REPLY in session


def test_models_check_on_a_busy_machine_says_what_got_in_the_way_and_the_chat_still_answers(
    home_dir: Path, fake_runtime: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both configurations miss the load limit (a busy machine): no rebuild is asked for, nothing is
    recorded against the CPU, and a chat answers at once (it failed in 1.2 s on a null record)."""
    misbehave(monkeypatch, "hang_at_start")
    done = pear_process(home_dir, "models", "--check", "--local-model", model, "--first-byte-timeout", "1")
    assert done.returncode == 4 and "Traceback" not in done.stderr
    (error,) = _errors(done.stderr)
    assert error.startswith("pear: 内置模型的自检没有结论（not concluded (fast: hang (1 秒内没有加载完成，load ")
    assert "不说明这台 CPU 不能运行它" in error and "--portable" not in done.stdout + done.stderr
    assert "  safe（CPU extra buffer types 关）：失败：hang（1 秒内没有加载完成，load " in done.stdout
    again = pear_process(home_dir, "models", "--check", "--if-needed", "--json", "--local-model", model,
                         "--first-byte-timeout", "1")  # fmt: skip
    shown = json.loads(again.stdout)
    assert again.returncode == 4 and shown["fresh"]  # a provisional record is tested again when asked
    assert shown["provisional"] and shown["chosen"] == "fast" and not shown["rebuild"]
    assert "自检没有结论" in shown["unsure"]
    misbehave(monkeypatch, "")
    chat = pear_process(home_dir, "chat", "--once", QUESTION, "--local-model", model)
    assert chat.returncode == 0, chat.stderr
    assert FAKE_REPLY in chat.stdout
    assert len(loads(fake_runtime)) == 1  # the chat's worker, with llama.cpp's default; no self-test before it
    assert loads(fake_runtime)[0][1]


def test_models_check_refuses_a_limit_that_is_not_positive(home_dir: Path, fake_runtime: Path, model: Path) -> None:
    done = pear_process(home_dir, "models", "--check", "--local-model", model, "--idle-timeout", "0")
    assert done.returncode == 2 and _errors(done.stderr) == ["pear: --idle-timeout 应为正数（秒），不是 0"]


def test_interactive_chat_answers_the_next_line_when_the_worker_was_killed_as_its_reply_ended(
    home_dir: Path, fake_runtime: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One `pear chat`: the worker is killed right after the first reply (shown, its end sent); the
    second line is answered by a fresh worker, with no error line — not "send it again"."""
    pear_process(home_dir, "models", "--check", "--local-model", model, check=True)
    misbehave(monkeypatch, "kill_after_reply;once")
    command = [sys.executable, "-m", "peargarden", "--home", str(home_dir), "chat", "--local-model", str(model)]
    done = subprocess.run(
        command, input=f"{QUESTION}\n那就要一间。\n/quit\n", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert _errors(done.stderr) == [] and "SIGKILL" not in done.stderr
    assert done.stdout.count(FAKE_REPLY) == 2
    session = _session_text(home_dir)
    assert session.count(FAKE_REPLY) == 2 and "那就要一间。" in session
    assert len(loads(fake_runtime)) == 4  # two for the self-test, the killed worker, the fresh one


def test_chat_once_shows_a_sentence_taken_back_and_keeps_the_rest(
    home_dir: Path, fake_runtime: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 49: a sentence the guard let out clause by clause and then rejected is taken back where
    the reader sees it: a ``text_retract`` line with ``--json``, a line on stderr in the terminal."""
    reply = "有的，楼上还空着一间。我是这里的掌柜，管着这间客栈，也是阿里云开发的模型。热水在灶上，客官先坐。"
    kept = "有的，楼上还空着一间。热水在灶上，客官先坐。"
    misbehave(monkeypatch, f"reply={reply}")
    done = pear_process(home_dir, "chat", "--once", QUESTION, "--local-model", model, "--json", check=True)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert {"type": "text_retract", "text": "我是这里的掌柜，", "reason": "claim"} in events
    streamed = [e["text"] for e in events if e["type"] == "text_delta"]
    assert "我是这里的掌柜，" in "".join(streamed)  # it went out first
    assert kept in _session_text(home_dir) and "阿里云" not in _session_text(home_dir)
    plain = pear_process(home_dir, "chat", "--once", QUESTION, "--local-model", model, check=True)
    assert "↺ 收回「我是这里的掌柜，」（跳出了角色），改写：" in plain.stderr
    assert plain.stdout.replace("\n", "") == "有的，楼上还空着一间。我是这里的掌柜，热水在灶上，客官先坐。"


def test_models_choose_measures_both_packaged_models_and_chats_run_the_choice(
    home_dir: Path, fake_runtime: Path
) -> None:
    """Issue 49, item 1: the set-up's `pear models --choose` self-tests both packaged models, picks
    one with one line, and a chat with no `local_path` runs it; `--use` switches, `--use auto` goes back."""
    models = fake_runtime / "models"  # $PEARGARDEN_MODELS of the fake runtime
    small, large = fake_fetched(models, QWEN_05B), fake_fetched(models, QWEN_15B)
    done = pear_process(home_dir, "models", "--choose", "--json", check=True)
    choice = json.loads(done.stdout)
    # The fake runtime does the same work whatever the file: the 1.5B is as fast, so it is kept.
    assert choice["model"] == "qwen-1.5b" and choice["fresh"]
    assert [s["model"] for s in choice["speeds"]] == ["qwen-0.5b", "qwen-1.5b"]
    assert all(s["gen_tok_s"] > 0 and s["prompt_tok_s"] > 0 and not s["predicted"] for s in choice["speeds"])
    assert choice["reason"].startswith("内置模型选用 qwen-1.5b：") and "按每 CPU 秒折算" in choice["reason"]
    assert len(loads(fake_runtime)) == 4  # both configurations of both models
    quiet = pear_process(home_dir, "models", "--choose", "--if-needed", check=True)
    assert quiet.stdout == "" and len(loads(fake_runtime)) == 4  # still holds: nothing ran, nothing said
    listed = json.loads(pear_process(home_dir, "models", "--json", check=True).stdout)["embedded"]
    assert [row["name"] for row in listed if row["default"]] == ["qwen-1.5b"]
    chat = pear_process(home_dir, "chat", "--once", QUESTION, check=True)
    assert FAKE_REPLY in chat.stdout
    assert _last_loaded(fake_runtime) == str(large)  # the chat ran the choice
    # The user's switch wins, in config.toml; "auto" gives the set-up's choice back.
    used = pear_process(home_dir, "models", "--use", "qwen-0.5b", check=True)
    assert "qwen-0.5b" in used.stdout and 'local_path = "qwen-0.5b"' in (home_dir / "config.toml").read_text("utf-8")
    pear_process(home_dir, "chat", "--once", QUESTION, check=True)
    assert _last_loaded(fake_runtime) == str(small)
    pear_process(home_dir, "models", "--use", "auto", check=True)
    assert 'local_path = ""' in (home_dir / "config.toml").read_text("utf-8")
    refused = pear_process(home_dir, "models", "--use", "smollm2")
    assert refused.returncode != 0 and _errors(refused.stderr) == [
        "pear: 模型 smollm2 还没有下载（not fetched）：先运行 pear models --fetch smollm2"
    ]


def _last_loaded(state: Path) -> str:
    """The model file the last worker loaded (the fake runtime's trace)."""
    return (state / "paths").read_text(encoding="utf-8").splitlines()[-1]
