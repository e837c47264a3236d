"""The self-test: which configuration of llama.cpp is safe, and fastest, on this machine.

llama-cpp-python is built for the machine it is installed on (``-DGGML_NATIVE=ON``), and its CPU
"extra buffer types" (weights repacked for the AMX / AVX kernels) crashed on the first token of every
generation on an AMX Sapphire Rapids VM (issue 28), while the same build without them worked.  So
before the embedded model runs with a configuration on a machine, each one is tried in a worker
process of its own (:mod:`.worker_client`), which may crash without harm:

* **fast**: extra buffer types on (llama.cpp's default); **safe**: off;
* each loads the model and greedily continues the numbers 1 … :data:`PROBE_NUMBERS` (a prompt of a
  few hundred tokens), twice, timed: prompt tok/s and generation tok/s, the better of the two, on
  the wall clock and per CPU-second of the worker (times the threads doing the work: what the CPU
  does when the machine is quiet — a busy machine stretched the wall clock 2 – 5×, issue 49);
* it passes when the process lives, answers within the limits and writes the next numbers — a
  runtime that computes garbage does not;
* of those that pass, the one with the shorter time for a typical beat (:data:`BEAT_PROMPT` new
  prompt tokens, :data:`BEAT_REPLY` reply tokens; by the CPU rates) is kept; the safe one only when
  it is more than :data:`MARGIN` (20%) faster;
* only what the CPU cannot do counts against a configuration: a native crash or garbage
  (:data:`CANNOT`).  A worker that stayed silent past its limit (``hang``: on a busy machine a
  1.1 GB model can take minutes to load), was killed (memory), stopped by a signal or exited
  proves nothing about the CPU: such a trial is *unsure*;
* every configuration failing by what the CPU cannot do means the build itself does not suit the
  CPU: ``bash scripts/setup.sh --local --portable`` rebuilds it without ``-march=native``
  (:class:`RuntimeUnsafe`);
* a result with an unsure trial is *provisional*: the configuration that passed, or else the one
  no trial ruled out (llama.cpp's default first), is recorded as such, so chats run with it, and
  ``pear models --check --if-needed`` tests again; when none passed, :class:`CheckUnsure` says what
  got in the way (the machine's load, its memory, the runtime) and what to do — never a rebuild.

The limits of each trial grow with the model's size and the machine's load (:mod:`._machine_load`),
measured as the trial starts and kept in it.  The result is recorded (:mod:`.runtime_record`) and
reused until the machine, the runtime or the model changes.  A load error the same for every
configuration (no runtime installed, a file llama.cpp refuses) is not a configuration's fault: it
is raised as it is.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import ProviderError

from . import _machine_load
from .llama_session import LoadSpec
from .runtime_record import find_record, new_record, record_path, write_record
from .worker_client import LlamaWorker, WorkerFault, WorkerLimits

PROBE_NUMBERS = 60
PROBE_TOKENS = 32
PROBE_RUNS = 2
PROBE_CTX = 1024
# A typical warm beat: the new part of the prompt (the last reply and the user's line, the rest is
# llama.cpp's reused prefix) and a short reply of the small-model profile.
BEAT_PROMPT = 300
BEAT_REPLY = 150
# Two probe runs of one configuration on a shared 2-core machine varied by up to 2×, and the two
# configurations measured level on a long alternated benchmark (docs/benchmarks/embedded-model.md): a gap smaller
# than this is noise, and llama.cpp's default stays.
MARGIN = 0.2
# By the model's size and the machine's load, measured at each trial (see ._machine_load).
CHECK_LIMITS = WorkerLimits()
# The outcomes that say the CPU cannot run a configuration; any other failure is unsure.
CANNOT = ("crash", "garbage")

Progress = Callable[[str], None]


class RuntimeUnsafe(ProviderError):
    """No configuration of the installed runtime passed the self-test on this machine."""

    exit_code = 5


class CheckUnsure(ProviderError):
    """The self-test could not tell: no configuration passed, and not every failure was the CPU's."""


class Config(msgspec.Struct, frozen=True):
    name: str
    use_extra_bufts: bool
    label: str


FAST = Config("fast", True, "extra buffer types on (llama.cpp's default)")
SAFE = Config("safe", False, "extra buffer types off")
CONFIGS = (FAST, SAFE)
BY_NAME = {config.name: config for config in CONFIGS}


class Trial(msgspec.Struct):
    """One configuration's run: ``outcome`` is ``ok``, ``garbage``, or how the worker ended
    (``crash``, ``killed``, ``signal``, ``hang``, ``exit``)."""

    config: str
    use_extra_bufts: bool
    outcome: str
    detail: str = ""
    prompt_tok_s: float = 0.0
    gen_tok_s: float = 0.0
    load_seconds: float = 0.0
    text: str = ""
    # The machine's one-minute load average and cores when the trial began (0: not measured).
    load: float = 0.0
    cores: int = 0
    # The same rates by the worker's CPU time (tokens per CPU-second, times the threads doing the work):
    # what the CPU does when the machine is quiet, however busy it was during the trial (issue 49).
    prompt_cpu_tok_s: float = 0.0
    gen_cpu_tok_s: float = 0.0

    @property
    def passed(self) -> bool:
        return self.outcome == "ok"

    @property
    def cannot(self) -> bool:
        """Failed by what the CPU cannot do (not by time, memory or an outside signal)."""
        return self.outcome in CANNOT

    def beat_seconds(self) -> float:
        """What a typical warm beat would take with these rates (see the module's docstring): by the
        CPU-second rates when the trial has them (a busy machine stretches the wall clock by 2 – 5×,
        and by more in one trial than in the next), else by the wall clock."""
        prompt, gen = self.prompt_cpu_tok_s, self.gen_cpu_tok_s
        if prompt <= 0 or gen <= 0:
            prompt, gen = self.prompt_tok_s, self.gen_tok_s
        if prompt <= 0 or gen <= 0:
            return float("inf")
        return BEAT_PROMPT / prompt + BEAT_REPLY / gen


class CheckResult(msgspec.Struct):
    model: str
    trials: list[Trial]
    chosen: str  # a config name, or "" when every configuration failed by what the CPU cannot do
    reason: str
    record: dict[str, Any] = msgspec.field(default_factory=dict)
    path: str = ""
    # A trial was unsure (see the module's docstring): ``chosen`` is what to run with until a check concludes.
    provisional: bool = False

    @property
    def config(self) -> Config | None:
        return BY_NAME.get(self.chosen)

    def to_json(self) -> dict[str, Any]:
        chosen = self.config
        return {
            "model": self.model,
            "machine": self.record.get("machine", {}),
            "runtime": self.record.get("runtime", {}),
            "chosen": self.chosen or None,
            "config": {"use_extra_bufts": chosen.use_extra_bufts} if chosen else None,
            "reason": self.reason,
            "provisional": self.provisional,
            "rebuild": chosen is None,
            "trials": [msgspec.structs.asdict(trial) for trial in self.trials],
            "checked_at": self.record.get("checked_at", ""),
            "record": self.path,
        }


def probe_prompt(count: int = PROBE_NUMBERS) -> str:
    return ", ".join(str(n) for n in range(1, count + 1)) + ","


def continues_counting(text: str, count: int = PROBE_NUMBERS) -> bool:
    """The probe's answer is sane: its first three numbers are the next three of the sequence."""
    numbers = [int(n) for n in re.findall(r"\d+", text)[:3]]
    return numbers == [count + 1, count + 2, count + 3]


def run_trial(model: Path, config: Config, threads: tuple[int, int], limits: WorkerLimits = CHECK_LIMITS) -> Trial:
    """*config* tried in a fresh worker.  A load error every configuration would share (``fatal``)
    is raised, not returned."""
    spec = LoadSpec(str(model), PROBE_CTX, threads[0], threads[1], use_extra_bufts=config.use_extra_bufts)
    worker = LlamaWorker(spec, limits)
    load = _machine_load.measure()
    try:
        worker.start()
        # Twice, the faster of each rate kept: one timing on a busy machine is mostly the other load.
        runs = [worker.probe(probe_prompt(), PROBE_TOKENS) for _ in range(PROBE_RUNS)]
    except WorkerFault as fault:
        if fault.kind == "fatal":
            raise
        return Trial(config.name, config.use_extra_bufts, fault.kind, fault.detail or str(fault),
                     load=round(load.average, 2), cores=load.cores)  # fmt: skip
    finally:
        worker.close()
    texts = [str(run.get("text") or "") for run in runs]
    sane = all(continues_counting(text) for text in texts)
    # Per CPU-second: a prompt's threads all work (n_threads_batch), a reply's token is one thread's.
    cpu_prompt = max(_rate(run, "prompt_tokens", "prompt_cpu") for run in runs) * threads[1]
    cpu_gen = max(_rate(run, "gen_tokens", "gen_cpu") for run in runs) * threads[0]
    trial = Trial(
        config.name,
        config.use_extra_bufts,
        "ok" if sane else "garbage",
        prompt_tok_s=max(_rate(run, "prompt_tokens", "prompt_seconds") for run in runs),
        gen_tok_s=max(_rate(run, "gen_tokens", "gen_seconds") for run in runs),
        load_seconds=worker.load_seconds,
        text=texts[0][:80],
        load=round(load.average, 2),
        cores=load.cores,
        prompt_cpu_tok_s=round(cpu_prompt, 1),
        gen_cpu_tok_s=round(cpu_gen, 1),
    )
    if not trial.passed:
        wrong = next(text for text in texts if not continues_counting(text))
        trial.detail = f"wrote {wrong[:40]!r} after the numbers 1 … {PROBE_NUMBERS}"
    return trial


def _rate(run: dict[str, Any], tokens: str, seconds: str) -> float:
    took = float(run.get(seconds) or 0)
    return round(int(run.get(tokens) or 0) / took, 1) if took > 0 else 0.0


def _failures(trials: list[Trial]) -> str:
    return "; ".join(
        f"{t.config}: {t.outcome}" + (f" ({t.detail})" if t.detail else "") for t in trials if not t.passed
    )


def choose(trials: list[Trial]) -> tuple[str, str]:
    """(the configuration kept, why); ("", why) when none passed."""
    passed = {t.config: t for t in trials if t.passed}
    failed = _failures(trials)
    if not passed:
        return "", f"no configuration passed ({failed})"
    fast, safe = passed.get(FAST.name), passed.get(SAFE.name)
    if fast is not None and safe is not None:
        if safe.beat_seconds() < fast.beat_seconds() * (1 - MARGIN):
            return SAFE.name, "both passed; safe was faster"
        if safe.beat_seconds() < fast.beat_seconds():
            gain = 1 - safe.beat_seconds() / fast.beat_seconds()
            return FAST.name, f"both passed; safe was only {gain:.0%} faster (under the {MARGIN:.0%} margin)"
        return FAST.name, "both passed; fast was as fast or faster"
    only = fast or safe
    assert only is not None
    return only.config, f"only {only.config} passed ({failed})"


def verdict(trials: list[Trial]) -> tuple[str, str, bool]:
    """(the configuration to run with, why, provisional).  ("", why, False): every configuration
    failed by what the CPU cannot do.  Provisional: a trial was unsure (see the module's docstring);
    then, with none passed, the first configuration no trial ruled out (llama.cpp's default first)."""
    chosen, reason = choose(trials)
    unsure = [t for t in trials if not t.passed and not t.cannot]
    if not unsure:
        return chosen, reason, False
    if chosen:
        return chosen, f"{reason}; not concluded for {', '.join(t.config for t in unsure)}", True
    left = unsure[0].config
    return left, f"not concluded ({_failures(trials)}); {left} kept untested", True


def run_check(
    model: Path,
    threads: tuple[int, int],
    *,
    folder: Path | None = None,
    limits: WorkerLimits = CHECK_LIMITS,
    progress: Progress | None = None,
) -> CheckResult:
    """Try every configuration on *model*, keep the best that passes, record it."""
    trials = []
    for config in CONFIGS:
        if progress is not None:
            progress(f"自检 {config.name}（{config.label}）…")
        trials.append(run_trial(model, config, threads, limits))
    chosen, reason, provisional = verdict(trials)
    record = {
        **new_record(model),
        "chosen": chosen or None,
        "reason": reason,
        "provisional": provisional,
        "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "trials": [msgspec.structs.asdict(trial) for trial in trials],
    }
    path = write_record(record, folder)
    return CheckResult(str(model), trials, chosen, reason, record, str(path), provisional)


def recorded_check(model: Path, folder: Path | None = None) -> CheckResult | None:
    """The recorded result for *model* on this machine and runtime, if there is one.  A record without
    a choice whose failures were not all the CPU's (an older version recorded a hang so) is none."""
    record = find_record(model, folder)
    if record is None:
        return None
    fields = set(Trial.__struct_fields__)
    trials = [Trial(**{k: v for k, v in t.items() if k in fields}) for t in record.get("trials") or []
              if isinstance(t, dict)]  # fmt: skip
    chosen = record.get("chosen") or ""
    if chosen not in BY_NAME and not (trials and all(t.passed or t.cannot for t in trials)):
        return None
    return CheckResult(str(model), trials, chosen if chosen in BY_NAME else "", str(record.get("reason") or ""),
                       record, str(record_path(folder)), bool(record.get("provisional")))  # fmt: skip


def unsure_error(result: CheckResult) -> CheckUnsure:
    """What got in the way of a self-test that passed nothing, and what to do: by the unsure trials'
    outcomes (a rebuild never helps these)."""
    unsure = [t for t in result.trials if not t.passed and not t.cannot]
    kinds = {t.outcome for t in unsure}
    load = _machine_load.measure()
    if "hang" in kinds:
        advice = (
            f"机器太忙或模型加载太慢（现在 {load.describe()}），这不说明这台 CPU 不能运行它；"
            "等机器空闲些再运行 `pear models --check`，或用 --first-byte-timeout 给加载更长的时间"
        )
    elif "killed" in kinds:
        advice = "进程被系统强行结束（多半是内存不足）：关掉占内存的程序或换小一点的模型，再运行 `pear models --check`"
    elif "exit" in kinds:
        advice = "进程启动后退出：运行 `bash scripts/setup.sh --local` 重装运行时，再运行 `pear models --check`"
    else:
        advice = "进程被外部信号结束：再运行一次 `pear models --check`"
    return CheckUnsure(
        f"内置模型的自检没有结论（{result.reason}）：{advice}；在那之前聊天先用 {result.chosen} 配置"
    )


def unsafe_error(reason: str) -> RuntimeUnsafe:
    return RuntimeUnsafe(
        f"这台机器上内置模型的运行时自检没有通过（{reason}）：需要不用 -march=native / AMX 重新编译 llama.cpp",
        hint="运行 `bash scripts/setup.sh --local --portable`，再运行 `pear models --check`",
        fix="embedded",
    )


def configuration_for(
    model: Path, threads: tuple[int, int], *, folder: Path | None = None, limits: WorkerLimits = CHECK_LIMITS
) -> Config:
    """The configuration to run *model* with: recorded, else found by the self-test now.
    ``RuntimeUnsafe`` when none works."""
    result = recorded_check(model, folder) or run_check(model, threads, folder=folder, limits=limits)
    if result.config is None:
        raise unsafe_error(result.reason)
    return result.config


def note_crash(model: Path, config: Config, detail: str, folder: Path | None = None) -> Config | None:
    """A worker running *config* crashed in a chat: record the safe configuration for *model* (a
    crash the self-test's short run missed).  Returns the configuration now recorded (None: none left)."""
    if not config.use_extra_bufts:
        return None  # already the safe configuration: nothing safer to fall back to
    record = {
        **new_record(model),
        "chosen": SAFE.name,
        "reason": f"fast crashed during a chat ({detail}); safe kept without a new test",
        "checked_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "trials": [msgspec.structs.asdict(Trial(FAST.name, True, "crash", detail))],
    }
    write_record(record, folder)
    return SAFE
