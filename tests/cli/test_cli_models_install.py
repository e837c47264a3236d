"""``pear models --install``: the embedded model's whole set-up (what ``scripts/setup.sh --local``
runs and the web's home page starts), with its progress on stderr; stand-in steps here
(tests/kit/fake_setup.py): nothing is built or downloaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit.cli import pear_in_process
from kit.fake_setup import FakeSetup
from peargarden.cli import models_cmd
from peargarden.providers.runtime_build import tools_error


def use(monkeypatch: pytest.MonkeyPatch, fake: FakeSetup) -> None:
    monkeypatch.setattr(models_cmd, "real_steps", lambda _home: fake.steps())


def test_install_says_each_stage_and_its_progress(home_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeSetup(unsafe_until="portable")
    use(monkeypatch, fake)
    done = pear_in_process(home_dir, "models", "--install", check=True)
    lines = done.stderr.splitlines()
    assert any(line.startswith("models: 编译 llama.cpp：8/40 个文件，约 2 分钟") for line in lines), lines
    assert any("下载模型" in line and "MB" in line for line in lines)
    assert lines[-3:] == ["models: 运行时：完成（0 秒）", "models: 模型：完成（0 秒）", "models: 自检：完成（0 秒）"]
    assert fake.calls == ["build:native", "fetch:qwen-0.5b", "check", "build:portable", "check"]


def test_install_with_everything_there_only_runs_the_self_test_quietly(
    home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeSetup(runtime=True, model=True)
    use(monkeypatch, fake)
    done = pear_in_process(home_dir, "models", "--install", check=True)
    assert fake.calls == ["check"] and "运行时" not in done.stderr  # setup.sh runs it on every chat.sh


def test_install_on_a_machine_that_cannot_build_fails_in_one_line(
    home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, FakeSetup(fail={"build": tools_error(["cmake"])}))
    done = pear_in_process(home_dir, "models", "--install", "--portable")
    assert done.returncode != 0
    assert done.stderr.splitlines()[-1].startswith("pear: 这台机器缺少编译内置模型运行时所需的工具（cmake）")
    assert "运行时：失败" in done.stderr and "Traceback" not in done.stderr
