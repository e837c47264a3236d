"""The script's side of the runtime: one QuickJS context with lodash and the prelude, driven by
commands (run a script, emit an event, resolve a promise, run a timer, read the page object).

After each command the context runs its jobs until none is left and answers with a report: the
promised calls it is waiting for, the emits that finished, errors, console lines, toasts, the next
timer.  A call the script makes to a function answered at once goes through ``call`` while the
command runs.  This module only drives the engine; it runs in the runtime's own process (started by
``app/play/script_process.py``), which bounds its CPU, and ``memory_limit`` bounds its heap.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

MEMORY_LIMIT_BYTES = 128 * 1024 * 1024


@cache
def _sources() -> tuple[str, str]:
    """lodash (the XStatic package's build, as the status-bar frames get it) and our prelude."""
    lodash = (resources.files("xstatic.pkg.lodash") / "data" / "lodash.min.js").read_text(encoding="utf-8")
    prelude = (resources.files(__package__) / "prelude.js").read_text(encoding="utf-8")
    return lodash, prelude


class JsSide:
    """A QuickJS context for a card's scripts: ``call(request_json) -> answer_json`` answers the
    functions that answer at once; ``exported`` names the API's functions (``api.exported()``)."""

    def __init__(
        self, call: Callable[[str], str], exported: dict[str, Any], *, memory_limit: int = MEMORY_LIMIT_BYTES
    ) -> None:
        import quickjs

        self._errors = (quickjs.JSException, quickjs.StackOverflow)
        self.context = quickjs.Context()
        self.context.set_memory_limit(memory_limit)
        self.context.add_callable("__th_call", call)
        lodash, prelude = _sources()
        self.context.eval("var window = globalThis, self = globalThis;")
        self.context.eval(lodash)
        self.context.eval(prelude)
        self.context.eval(f"__th.define({json.dumps(exported, ensure_ascii=False)})")

    def handle(self, command: dict[str, Any]) -> dict[str, Any]:
        """Run one command; the report afterwards (``read`` answers ``{"value_json": …}``)."""
        op = command.get("op")
        q = json.dumps
        if op == "read":
            return {"value_json": self.context.eval(f"__th.read({q(q(command.get('path') or []))})")}
        if op == "script":
            code = f"__th.runScript({q(command['id'])}, {q(command.get('name') or '')}, {q(command['code'])})"
        elif op == "emit":
            code = f"__th.hostEmit({q(command['id'])}, {q(command['event'])}, {q(command.get('args_json') or '[]')})"
        elif op == "resolve":
            code = f"__th.resolve({q(command['ticket'])}, {q(q(command['answer']))})"
        elif op == "tick":
            code = "__th.tick()"
        else:
            return {"errors": [{"script": None, "where": "runtime", "message": f"unknown command {op!r}"}]}
        failure = self._run(code)
        report: dict[str, Any] = json.loads(str(self.context.eval("__th.report()")))
        if failure:
            report.setdefault("errors", []).append({"script": command.get("id"), "where": op, "message": failure})
        return report

    def _run(self, code: str) -> str | None:
        failure = None
        try:
            self.context.eval(code)
        except self._errors as error:
            failure = _first_line(error)
        while True:  # every job runs, even after one failed (out of memory, a stack overflow)
            try:
                if not self.context.execute_pending_job():
                    return failure
            except self._errors as error:
                failure = failure or _first_line(error)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return "out of memory" if text in ("", "null") else text.splitlines()[0]


__all__ = ["MEMORY_LIMIT_BYTES", "JsSide"]
