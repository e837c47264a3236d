"""The host's side of the runtime: the event loop between the card's scripts and the API.

The scripts run on the other side of a :class:`Channel` (QuickJS in its own process, see
``quickjs_side.py``).  A command sent there runs until the script's side is idle; while it runs,
every function TavernHelper answers at once is answered here through the API.  The report that
ends a command lists the promised calls the scripts now wait for: this loop runs them one at a
time, in order, and resolves their promises — so a generation, or new messages with their events,
happens between the scripts' turns as in a browser, and an event emitted here (``emit``) returns
only when every listener has finished, as SillyTavern's ``eventSource.emit`` awaits each.

Time on the scripts' side is virtual: a timer runs when the loop is waiting for something (an
event's listeners, the published object saying ``done``) and nothing else can move, at most
``wait_ms`` of virtual time per wait.  Pure: no clock, no process; the channel is given.
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from peargarden.text.jsvalue import UNDEFINED, json_stringify
from peargarden.variables.jsvalues import from_json
from peargarden.variables.schema_script import script_body

from .api import ASYNC, SYNC, TavernHelperApi
from .host import ScriptError, ScriptHost

WAIT_MS = 60_000
MAX_TICKS = 20_000


class RuntimeGone(Exception):
    """The scripts' side stopped (a script used too much CPU or memory, or the process died);
    the message says which and what happened, in one line."""


class Channel(Protocol):
    def request(self, command: dict[str, Any], answer: Callable[[str], str]) -> dict[str, Any]:
        """Send one command; answer each call made while it runs (``answer(request_json)``); return
        its report.  Raises :class:`RuntimeGone`."""
        ...

    def close(self) -> None: ...


class Op(msgspec.Struct, frozen=True):
    """A promised call a script is waiting for."""

    ticket: int
    script: str | None
    name: str
    args: list[Any]


class ScriptSession:
    """The card's scripts over one channel and one host."""

    def __init__(
        self, channel: Channel, host: ScriptHost, *, pick: Callable[[int], int] | None = None, wait_ms: int = WAIT_MS
    ) -> None:
        self.channel = channel
        self.api = TavernHelperApi(host, self.emit, pick=pick)
        self.wait_ms = wait_ms
        self.queue: deque[Op] = deque()
        self.done: set[int] = set()
        self.next_timer: float | None = None
        self.now = 0.0
        self.names: dict[str, str] = {}
        self.errors: list[str] = []
        self.logs: list[dict[str, Any]] = []
        self.toasts: list[dict[str, Any]] = []
        self.refused: dict[str, int] = {}
        self.needs_page: set[str] = set()
        self.gone: str | None = None
        self._ids = itertools.count(1)
        self._script: str | None = None

    # -- commands ----------------------------------------------------------------------------------

    def start(self, script_id: str, name: str, code: str) -> None:
        """Run one script (a TavernHelper script's content, an ES module) until its side is idle."""
        self.names[script_id] = name
        self._send({"op": "script", "id": script_id, "name": name, "code": script_body(code)}, script_id)
        self._settle(None)

    def emit(self, event: str, args: list[Any]) -> None:
        """A tavern event: every listener run, each awaited in turn (waiting on timers if they wait)."""
        if self.gone:
            return
        emit_id = next(self._ids)
        args_json = json_stringify(args) or "[]"
        self._send({"op": "emit", "id": emit_id, "event": event, "args_json": args_json}, None)
        self._settle(lambda: emit_id in self.done)

    def wait(self, ready: Callable[[], bool]) -> bool:
        """Run promised calls and timers until ``ready()`` (at most ``wait_ms`` of virtual time)."""
        self._settle(ready)
        return not self.gone and ready()

    def read(self, path: list[str]) -> Any:
        """A value the scripts put on ``window.parent`` (JSON; ``UNDEFINED`` when absent)."""
        if self.gone:
            return UNDEFINED
        try:
            report = self.channel.request({"op": "read", "path": path}, self._answer)
        except RuntimeGone as error:
            self._lost(str(error))
            return UNDEFINED
        text = report.get("value_json")
        return UNDEFINED if text is None else from_json(json.loads(text))

    def close(self) -> None:
        self.channel.close()

    # -- the loop ----------------------------------------------------------------------------------

    def _send(self, command: dict[str, Any], script: str | None) -> None:
        if self.gone:
            return
        previous, self._script = self._script, script
        try:
            report = self.channel.request(command, self._answer)
        except RuntimeGone as error:
            self._lost(str(error))
            return
        finally:
            self._script = previous
        self._absorb(report)

    def _lost(self, reason: str) -> None:
        self.gone = reason
        self.queue.clear()
        self.errors.append(reason)

    def _absorb(self, report: dict[str, Any]) -> None:
        for op in report.get("ops") or []:
            self.queue.append(Op(int(op["ticket"]), op.get("script"), str(op["name"]), list(op.get("args") or [])))
        self.done.update(int(i) for i in report.get("emitsDone") or [])
        for error in report.get("errors") or []:
            who = self.names.get(str(error.get("script")), "")
            where = f"脚本「{who}」" if who else "脚本运行时"
            self.errors.append(f"{where}出错（{error.get('where')}）：{error.get('message')}")
        self.logs.extend(report.get("logs") or [])
        self.toasts.extend(report.get("toasts") or [])
        for item in report.get("refused") or []:
            self.refused[str(item.get("name"))] = self.refused.get(str(item.get("name")), 0) + 1
        self.needs_page.update(self.names.get(str(s), str(s)) for s in report.get("needsPage") or [])
        self.now = float(report.get("now") or self.now)
        due = report.get("nextTimer")
        self.next_timer = float(due) if due is not None else None

    def _settle(self, ready: Callable[[], bool] | None) -> None:
        """Run promised calls in order until ``ready()``; while waiting with nothing else to run,
        let the next timer fire (within the virtual time budget)."""
        started = self.now
        ticks = 0
        while not self.gone:
            if ready is not None and ready():
                return
            if self.queue:
                self._run(self.queue.popleft())
                continue
            if ready is None or self.next_timer is None:
                return
            if self.next_timer - started > self.wait_ms or ticks >= MAX_TICKS:
                return
            ticks += 1
            self._send({"op": "tick"}, None)

    def _run(self, op: Op) -> None:
        answer = self._call(op.name, op.args, op.script, ASYNC)
        self._send({"op": "resolve", "ticket": op.ticket, "answer": answer}, op.script)

    def _answer(self, request_json: str) -> str:
        request = from_json(json.loads(request_json))
        script = request.get("script")
        return json.dumps(self._call(str(request.get("name")), list(request.get("args") or []), script, SYNC))

    def _call(self, name: str, args: list[Any], script: str | None, table: dict[str, Any]) -> dict[str, Any]:
        if name not in table:
            return {"error": f"{name} 不能这样调用"}
        try:
            value = self.api.call(name, args, script)
        except ScriptError as error:
            return {"error": str(error)}
        except Exception as error:  # a bug of ours: the script gets an error, the report says so
            message = f"{name} 内部错误（{type(error).__name__}: {error}）"
            self.errors.append(message)
            return {"error": message}
        text = json_stringify(value)
        return {} if text is None else {"json": text}


__all__ = ["WAIT_MS", "Channel", "Op", "RuntimeGone", "ScriptSession"]
