"""Stand-ins for the embedded model's installation steps (app/settings/embedded_setup.Steps): nothing
is built or downloaded; each step reports as the real ones do, and a test holds it at a point of its
choosing (``gates``) to look at the work while it runs, or to stop it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from peargarden.app.settings.embedded_setup import Report, Steps, Tell
from peargarden.errors import PearError
from peargarden.providers.runtime_build import BuildCancelled


@dataclass
class FakeSetup:
    """What the stand-in steps do: *files* compiled and *size* bytes downloaded in *parts* reports,
    each step waiting at its gate (when set) after its first reports; *fail* maps a step to the error it
    raises; *unsafe_until* makes the self-test find no configuration until a build of that kind."""

    files: int = 40
    size: int = 491_000_000
    parts: int = 4
    gates: dict[str, threading.Event] = field(default_factory=dict)
    fail: dict[str, PearError] = field(default_factory=dict)
    unsafe_until: str = ""
    runtime: bool = False
    model: bool = False
    calls: list[str] = field(default_factory=list)
    built: list[str] = field(default_factory=list)

    def steps(self) -> Steps:
        return Steps(lambda: self.runtime, lambda: self.model, self._build, self._fetch, self._check)

    def _hold(self, name: str, cancel: threading.Event | None) -> None:
        gate = self.gates.get(name)
        while gate is not None and not gate.wait(0.02):
            if cancel is not None and cancel.is_set():
                raise BuildCancelled("已取消编译（build cancelled）：运行时没有安装")

    def _build(self, kind: str, tell: Tell, cancel: threading.Event) -> None:
        self.calls.append(f"build:{kind}")
        if "build" in self.fail:
            raise self.fail["build"]
        for n in range(1, self.parts + 1):
            done = self.files * n // (self.parts + 1)
            left = 30.0 * (self.parts + 1 - n)
            tell(Report(f"编译 llama.cpp：{done}/{self.files} 个文件", done, self.files, "files", left))
            if n == 2:
                self._hold("build", cancel)
        self.built.append(kind)
        self.runtime = True

    def _fetch(self, name: str, tell: Tell, cancel: threading.Event) -> None:
        self.calls.append(f"fetch:{name}")
        if f"fetch:{name}" in self.fail:
            raise self.fail[f"fetch:{name}"]
        for n in range(1, self.parts + 1):
            done = self.size * n // self.parts
            tell(Report(f"下载模型：{done / 1e6:.0f} / {self.size / 1e6:.0f} MB", done, self.size, "bytes"))
            if n == 2:
                self._hold("fetch", cancel)
        self.model = True

    def _check(self, tell: Tell) -> dict[str, Any]:
        self.calls.append("check")
        tell(Report("自检 fast（extra buffer types on）…"))
        self._hold("check", None)
        if self.unsafe_until and self.unsafe_until not in self.built:
            return {"chosen": None, "reason": "fast: crash (SIGSEGV); safe: crash (SIGSEGV)"}
        return {"chosen": "fast", "reason": "fast passed"}
