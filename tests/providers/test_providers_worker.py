"""The embedded model out of process: the worker stays warm, and every way it can end is one line.

The worker is the real one (``peargarden.providers.llama_worker``, started by the provider); the
runtime it imports is the fake of ``kit/fake_runtime`` (one character a token, misbehaving on demand),
so these run where llama-cpp-python is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from kit.fake_llama import FAKE_REPLY, fake_model, loads, misbehave
from peargarden.errors import ProviderError
from peargarden.providers import _machine_load, runtime_check
from peargarden.providers.base import ChatRequest, Done, StreamEvent, TextDelta, Usage
from peargarden.providers.embedded import EmbeddedProvider
from peargarden.providers.llama_session import LoadSpec
from peargarden.providers.runtime_record import find_record
from peargarden.providers.worker_client import LlamaWorker, WorkerFault, WorkerLimits

QUESTION = [{"role": "user", "content": "掌柜，今晚还有空房吗？"}]
SHORT = WorkerLimits(start=20, silence=2)
# Several clauses: the echo guard lets the first ones through while the rest is still coming.
LONG_REPLY = "有的，楼上还空着一间。临河，推窗就是柳树。热水要等一等，灶上还温着粥。"


def _provider(model: Path, limits: WorkerLimits = SHORT) -> EmbeddedProvider:
    provider = EmbeddedProvider(model, limits=limits, default_max_tokens=64)
    return provider


def _beat(provider: EmbeddedProvider, cancel: threading.Event | None = None) -> list[StreamEvent]:
    return list(provider.stream(ChatRequest(messages=QUESTION), cancel))


def _text(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def _checked(model: Path) -> None:
    """The self-test done beforehand, so a test's fault hits the chat's worker, not the self-test."""
    result = runtime_check.run_check(model, (1, 1), limits=SHORT)
    assert result.chosen == "fast"


def _answers_with_one_worker(model: Path, state: Path) -> None:
    """A new provider answers a beat, loading the model once: no self-test ran before it."""
    before = len(loads(state))
    provider = _provider(model)
    try:
        assert _text(_beat(provider)) == FAKE_REPLY
    finally:
        provider.close()
    assert len(loads(state)) == before + 1


def _partial_then_error(provider: EmbeddedProvider) -> tuple[str, ProviderError]:
    """The text a beat streamed before it failed, and the failure."""
    shown: list[str] = []
    with pytest.raises(ProviderError) as caught:
        for event in provider.stream(ChatRequest(messages=QUESTION)):
            if isinstance(event, TextDelta):
                shown.append(event.text)
    return "".join(shown), caught.value


def _fault_then_next_beat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, directives: str, limits: WorkerLimits = SHORT
) -> tuple[str, ProviderError]:
    """On a self-tested model, the next worker misbehaves as *directives* say: one beat fails with one
    line (returned, with the text shown before it), the beat after it is answered."""
    model = fake_model(tmp_path)
    _checked(model)
    misbehave(monkeypatch, directives)
    provider = _provider(model, limits)
    try:
        shown, error = _partial_then_error(provider)
        assert "\n" not in str(error)
        assert _text(_beat(provider)) == FAKE_REPLY
    finally:
        provider.close()
    return shown, error


def test_two_beats_share_one_warm_worker(fake_runtime: Path, tmp_path: Path) -> None:
    model = fake_model(tmp_path)
    provider = _provider(model)
    try:
        first, second = _beat(provider), _beat(provider)
    finally:
        provider.close()
    assert _text(first) == _text(second) == FAKE_REPLY
    assert first[-2:] == [Usage(prompt_tokens=len(QUESTION[0]["content"]) + 5, completion_tokens=len(FAKE_REPLY)),
                          Done("stop", "青梧测试模型")]  # fmt: skip
    # The self-test tried both configurations in workers of their own, then one worker served both beats.
    assert [extra for _, extra in loads(fake_runtime)] == [True, False, True]
    record = find_record(model)
    assert record is not None and record["chosen"] == "fast"


def test_a_native_crash_mid_stream_is_one_line_and_the_next_beat_runs_safe(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown, error = _fault_then_next_beat(tmp_path, monkeypatch, "crash_at=4;once")
    assert "SIGSEGV" in str(error) and "安全配置" in str(error)
    # The guards hold back the opening; what they let through before the crash stays shown.
    assert FAKE_REPLY.startswith(shown)
    crashed, fresh = loads(fake_runtime)[-2:]
    assert crashed[0] != fresh[0] and crashed[1] and not fresh[1]  # a new worker, without extra buffer types
    record = find_record(tmp_path / "青梧小模型.gguf")
    assert record is not None and record["chosen"] == "safe" and "SIGSEGV" in record["reason"]


def test_an_out_of_memory_kill_says_so_and_keeps_the_configuration(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, error = _fault_then_next_beat(tmp_path, monkeypatch, "kill_at=2;once")
    assert "SIGKILL" in str(error) and "内存" in str(error)
    assert loads(fake_runtime)[-1][1]  # still the fast configuration: memory is not the CPU's fault
    record = find_record(tmp_path / "青梧小模型.gguf")
    assert record is not None and record["chosen"] == "fast"


def _slow_long_replies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pause: float) -> EmbeddedProvider:
    """A provider on a self-tested model whose worker writes LONG_REPLY, its first time a token every
    *pause* seconds (a reply still streaming when the test acts; the later ones need not wait)."""
    model = fake_model(tmp_path)
    _checked(model)
    misbehave(monkeypatch, f"slow={pause};slow_replies=1;reply={LONG_REPLY}")
    return EmbeddedProvider(model, limits=SHORT, default_max_tokens=64)


def test_a_worker_killed_from_outside_mid_stream(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = _slow_long_replies(tmp_path, monkeypatch, 0.1)
    try:
        chunks = 0
        with pytest.raises(ProviderError, match="SIGKILL"):
            for event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "讲个长故事"}])):
                chunks += isinstance(event, TextDelta)
                if chunks == 1:
                    os.kill(loads(fake_runtime)[-1][0], signal.SIGKILL)
        misbehave(monkeypatch, "")
        assert _text(_beat(provider)) == FAKE_REPLY  # a fresh worker reads the directives anew
    finally:
        provider.close()


def test_a_worker_that_never_answers_is_stopped_after_the_silence_limit(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = time.monotonic()
    _, error = _fault_then_next_beat(tmp_path, monkeypatch, "hang_at=2;once")
    assert "2 秒没有任何输出" in str(error) and time.monotonic() - started < 30
    hung_pid = loads(fake_runtime)[-2][0]
    assert not _running(hung_pid)  # the hung worker was killed, not left behind


def test_a_worker_that_exits_at_start_up(fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, error = _fault_then_next_beat(tmp_path, monkeypatch, "exit_at_start;once")
    assert "启动后立即退出" in str(error) and "exit 7" in str(error) and "fake llama_cpp: exit" in str(error)


def test_a_worker_that_hangs_while_loading(fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, error = _fault_then_next_beat(tmp_path, monkeypatch, "hang_at_start;once", WorkerLimits(start=2, silence=2))
    assert "2 秒内没有加载完成" in str(error)


def test_cancel_returns_at_once_and_the_worker_stays_warm(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = _slow_long_replies(tmp_path, monkeypatch, 0.1)
    cancel = threading.Event()
    events: list[StreamEvent] = []
    try:
        for event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "讲个长故事"}]), cancel):
            events.append(event)
            if isinstance(event, TextDelta):
                cancel.set()
        assert events[-1] == Done("aborted", "青梧测试模型")
        assert 0 < len(_text(events)) < len(LONG_REPLY)
        assert _text(_beat(provider)) == LONG_REPLY  # the cancelled reply's end was read first
    finally:
        provider.close()
    assert len(loads(fake_runtime)) == 3  # two for the self-test, one worker for both beats


def test_the_self_test_falls_back_when_extra_buffer_types_crash(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = fake_model(tmp_path)
    misbehave(monkeypatch, "crash_extra_bufts")
    provider = _provider(model)
    try:
        assert _text(_beat(provider)) == FAKE_REPLY
    finally:
        provider.close()
    record = find_record(model)
    assert record is not None and record["chosen"] == "safe"
    fast = record["trials"][0]
    assert (fast["config"], fast["outcome"], fast["detail"]) == ("fast", "crash", "SIGSEGV")
    assert loads(fake_runtime)[-1][1] is False
    # Recorded: the next provider (another process, the next day) skips the self-test.
    _answers_with_one_worker(model, fake_runtime)


def test_the_self_test_falls_back_on_garbage(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = fake_model(tmp_path)
    misbehave(monkeypatch, "garbage_extra_bufts")
    result = runtime_check.run_check(model, (1, 1), limits=SHORT)
    assert result.chosen == "safe" and result.reason.startswith("only safe passed (fast: garbage")
    assert [t.outcome for t in result.trials] == ["garbage", "ok"]


def test_a_crash_in_every_configuration_asks_for_a_portable_build(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = fake_model(tmp_path)
    misbehave(monkeypatch, "crash_probe")
    provider = _provider(model)
    with pytest.raises(runtime_check.RuntimeUnsafe) as caught:
        _beat(provider)
    message = str(caught.value)
    assert "setup.sh --local --portable" in message and "SIGSEGV" in message and "\n" not in message
    assert caught.value.exit_code == 5
    record = find_record(model)
    assert record is not None and record["chosen"] is None


def test_the_record_goes_stale_when_the_model_changes(fake_runtime: Path, tmp_path: Path) -> None:
    model = fake_model(tmp_path)
    _checked(model)
    assert find_record(model) is not None
    os.utime(model, ns=(1, 1))
    assert find_record(model) is None


def test_a_missing_runtime_is_the_setup_hint_and_is_not_recorded(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "no-runtime" / "llama_cpp"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('no llama_cpp here')\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(broken.parent))
    model = fake_model(tmp_path)
    with pytest.raises(ProviderError, match=r"llama-cpp-python.*scripts/chat\.sh"):
        _beat(_provider(model))
    assert find_record(model) is None


def _running(pid: int) -> bool:
    """Whether *pid* is a live process (a zombie nobody reaped yet counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    return "\nState:\tZ" not in status


def test_the_worker_outlives_the_thread_that_started_it(fake_runtime: Path, tmp_path: Path) -> None:
    """PR_SET_PDEATHSIG fires when the starting *thread* ends; the web runs beats on pool threads."""
    worker = LlamaWorker(LoadSpec(str(fake_model(tmp_path)), 512, 1, 1), SHORT)
    thread = threading.Thread(target=worker.start)
    thread.start()
    thread.join()
    time.sleep(0.5)
    try:
        assert worker.alive and worker.count(["你好"]) == [2]
    finally:
        worker.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's")
def test_no_orphan_after_kill_9_of_the_parent(fake_runtime: Path, tmp_path: Path) -> None:
    model = fake_model(tmp_path)
    parent_code = textwrap.dedent(
        f"""
        import sys, time
        from peargarden.providers.llama_session import LoadSpec
        from peargarden.providers.worker_client import LlamaWorker
        worker = LlamaWorker(LoadSpec({str(model)!r}, 512, 1, 1))
        worker.start()
        print(worker.pid, flush=True)
        time.sleep(600)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        worker_pid = int(parent.stdout.readline())
        assert _running(worker_pid)
        parent.kill()
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _running(worker_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(worker_pid)
    finally:
        parent.kill()


def test_what_the_runtime_prints_on_stdout_does_not_break_the_protocol(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's fd 1 points at its stderr once the protocol took its own copy of stdout."""
    misbehave(monkeypatch, "noisy")
    provider = _provider(fake_model(tmp_path))
    try:
        assert _text(_beat(provider)) == FAKE_REPLY
    finally:
        provider.close()


def _real_model() -> Path | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    from peargarden.providers.model_catalog import DEFAULT
    from peargarden.providers.model_fetch import installed_path

    return installed_path(DEFAULT)


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama_cpp is not installed (bash scripts/chat.sh)"
)
def test_the_real_runtime_self_tests_in_children_and_survives_a_killed_worker(tmp_path: Path) -> None:
    """llama.cpp itself: the self-test runs it in child processes, the chat's worker is warm between
    beats, and a worker killed by SIGSEGV mid-reply is one line, then a fresh worker answers."""
    model = _real_model()
    if model is None:
        pytest.skip("the default model is not fetched (pear models --fetch qwen-0.5b)")
    result = runtime_check.run_check(model, (1, 2), folder=tmp_path)
    assert [t.outcome for t in result.trials] == ["ok", "ok"], result.trials  # both work on this CPU
    assert all(t.text.lstrip().startswith(f"{runtime_check.PROBE_NUMBERS + 1},") for t in result.trials)
    provider = EmbeddedProvider(model, models_folder=tmp_path, default_max_tokens=48)
    story = [{"role": "user", "content": "讲一个关于栖水镇雨夜的长故事。"}]
    try:
        first = list(provider.stream(ChatRequest(messages=story, sampler={"temperature": 0})))
        assert _text(first).strip() and first[-1].stop_reason in ("stop", "length")  # type: ignore[union-attr]
        worker = provider._worker
        assert worker is not None and worker.pid != os.getpid()
        pid = worker.pid
        with pytest.raises(ProviderError, match="SIGSEGV"):
            for event in provider.stream(ChatRequest(messages=story, sampler={"temperature": 0, "max_tokens": 200})):
                if isinstance(event, TextDelta):
                    os.kill(pid or 0, signal.SIGSEGV)
        again = list(provider.stream(ChatRequest(messages=QUESTION)))
        assert _text(again).strip()
        assert provider._worker is not None and provider._worker.pid != pid
    finally:
        provider.close()


def test_two_runtime_builds_keep_a_record_each(fake_runtime: Path, tmp_path: Path) -> None:
    """Two virtual environments (two builds of the runtime) share the models folder."""
    from peargarden.providers.runtime_record import new_record, read_records, write_record

    model = fake_model(tmp_path)
    mine = {**new_record(model), "chosen": "fast"}
    other = {**mine, "runtime": {"version": "0.3.36", "build_sha": "another-build"}, "chosen": "safe"}
    write_record(mine)
    write_record(other)
    write_record({**mine, "chosen": "safe"})  # a new test of the same build replaces its own record
    assert sorted(r["chosen"] for r in read_records()) == ["safe", "safe"]
    assert len(read_records()) == 2
    record = find_record(model)
    assert record is not None and record["runtime"] == mine["runtime"]


def test_the_choice_keeps_the_default_unless_safe_is_clearly_faster() -> None:
    def trial(config: str, prompt: float, gen: float) -> runtime_check.Trial:
        return runtime_check.Trial(config, config == "fast", "ok", prompt_tok_s=prompt, gen_tok_s=gen)

    assert runtime_check.choose([trial("fast", 100, 20), trial("safe", 100, 20)]) == (
        "fast", "both passed; fast was as fast or faster")  # fmt: skip
    chosen, reason = runtime_check.choose([trial("fast", 33.7, 11.9), trial("safe", 80.7, 9.4)])
    assert chosen == "fast" and reason == "both passed; safe was only 9% faster (under the 20% margin)"
    assert runtime_check.choose([trial("fast", 20, 5), trial("safe", 40, 10)])[0] == "safe"
    crashed = runtime_check.Trial("fast", True, "crash", "SIGSEGV")
    only_safe = runtime_check.choose([crashed, trial("safe", 40, 10)])
    assert only_safe == ("safe", "only safe passed (fast: crash (SIGSEGV))")


def test_a_worker_killed_just_as_its_reply_ended_is_replaced_and_the_next_beat_answers(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reply was shown and its end sent; the kill is seen only when the next beat asks the worker
    for something (the issue's "the user has to send twice")."""
    model = fake_model(tmp_path)
    _checked(model)
    misbehave(monkeypatch, "kill_after_reply;once")
    provider = _provider(model)
    try:
        assert _text(_beat(provider)) == FAKE_REPLY
        second = _beat(provider)
    finally:
        provider.close()
    assert _text(second) == FAKE_REPLY and second[-1] == Done("stop", "青梧测试模型")
    killed, fresh = loads(fake_runtime)[2:]  # after the self-test's two
    assert killed[0] != fresh[0] and not _running(killed[0])
    assert fresh[1]  # the same configuration: a kill is not the CPU's fault


def test_a_worker_started_for_the_beat_that_dies_before_answering_is_that_beats_failure(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a worker kept from an earlier beat is replaced on the spot: one started for this beat that
    dies is this beat's one line (a model the machine cannot hold is not loaded twice a beat)."""
    model = fake_model(tmp_path)
    _checked(model)
    misbehave(monkeypatch, "kill_at=1")
    provider = _provider(model)
    try:
        for workers in (3, 4):
            shown, error = _partial_then_error(provider)
            assert shown == "" and "SIGKILL" in str(error)
            assert len(loads(fake_runtime)) == workers  # one worker a beat
    finally:
        provider.close()


def test_a_self_test_that_times_out_records_nothing_against_the_cpu_and_chats_still_run(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy machine: both configurations miss the load limit.  A hang is no verdict on the CPU: the
    record keeps llama.cpp's default, provisionally, the line says what got in the way (not a rebuild),
    and the next chat answers (it failed in 1.2 s on a "chosen": null record)."""
    model = fake_model(tmp_path)
    misbehave(monkeypatch, "hang_at_start")
    result = runtime_check.run_check(model, (1, 1), limits=WorkerLimits(start=1, silence=1))
    assert [t.outcome for t in result.trials] == ["hang", "hang"]
    assert all(t.cores > 0 for t in result.trials)  # the load was measured with each trial
    assert (result.chosen, result.provisional) == ("fast", True)
    record = find_record(model)
    assert record is not None and record["chosen"] == "fast" and record["provisional"] is True
    line = str(runtime_check.unsure_error(result))
    assert "--portable" not in line and "load " in line and "pear models --check" in line and "\n" not in line
    assert runtime_check.unsure_error(result).exit_code == 4
    misbehave(monkeypatch, "")
    _answers_with_one_worker(model, fake_runtime)  # no new self-test: the provisional record serves


def test_only_what_the_cpu_cannot_do_decides_against_a_configuration() -> None:
    crash = runtime_check.Trial("fast", True, "crash", "SIGSEGV")
    hang = runtime_check.Trial("safe", False, "hang", "120 秒内没有加载完成，load 22.0，2 核")
    chosen, reason, provisional = runtime_check.verdict([crash, hang])
    assert (chosen, provisional) == ("safe", True)  # fast ruled out; safe not, though not proven either
    hang_detail = "safe: hang (120 秒内没有加载完成，load 22.0，2 核)"
    assert reason == f"not concluded (fast: crash (SIGSEGV); {hang_detail}); safe kept untested"
    killed = runtime_check.Trial("fast", True, "killed", "SIGKILL")
    ok = runtime_check.Trial("safe", False, "ok", prompt_tok_s=50, gen_tok_s=10)
    assert runtime_check.verdict([killed, ok]) == (
        "safe", "only safe passed (fast: killed (SIGKILL)); not concluded for fast", True)  # fmt: skip
    garbage = runtime_check.Trial("fast", True, "garbage", "wrote '的的的'")
    sigill = runtime_check.Trial("safe", False, "crash", "SIGILL")
    assert runtime_check.verdict([garbage, sigill]) == (
        "", "no configuration passed (fast: garbage (wrote '的的的'); safe: crash (SIGILL))", False)  # fmt: skip


def test_the_load_limit_grows_with_the_model_and_the_machines_load_and_the_line_names_the_load(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    busy = _machine_load.Load(22.0, 2)
    assert _machine_load.start_limit(491_000_000, _machine_load.Load(0.3, 2)) == 149.5  # idle: 120 s + 60 s a GB
    assert _machine_load.start_limit(1_100_000_000, busy) == 1800  # 186 s × 11, at most half an hour
    assert _machine_load.silence_limit(busy) == 1320
    # The same rule in a real worker, made small: a base of 0.1 s times a load of 11 a core.
    monkeypatch.setattr(_machine_load, "START_BASE", 0.1)
    monkeypatch.setattr(_machine_load, "START_PER_GB", 0.0)
    monkeypatch.setattr(_machine_load, "measure", lambda: busy)
    misbehave(monkeypatch, "hang_at_start")
    worker = LlamaWorker(LoadSpec(str(fake_model(tmp_path)), 512, 1, 1), WorkerLimits())
    with pytest.raises(WorkerFault) as caught:
        worker.start()
    assert caught.value.kind == "hang"
    assert str(caught.value).startswith("内置模型 1.1 秒内没有加载完成") and "机器很忙（load 22.0，2 核）" in str(
        caught.value
    )
