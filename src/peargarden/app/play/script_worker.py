"""The card scripts' own process: QuickJS with TavernHelper's world (``scripting/quickjs_side.py``),
one JSON object a line on stdin and stdout (``script_process.py`` is the other end).

First line in: ``{"op": "start", "exported": …, "memory_limit": n}``, answered ``{"ev": "ready"}``.
Then each command (``script``, ``emit``, ``resolve``, ``tick``, ``read``) is answered by one
``{"ev": "report", …}``; while it runs, a call the script makes is sent as
``{"ev": "call", "request_json": …}`` and answered by ``{"op": "answer", "answer_json": …}``.
``{"op": "stop"}``, the end of stdin or the parent's death (``PR_SET_PDEATHSIG``) ends the process.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, BinaryIO

from peargarden.providers.llama_worker import die_with_parent
from peargarden.scripting.quickjs_side import JsSide


def _write(out: BinaryIO, message: dict[str, Any]) -> None:
    out.write((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8", errors="replace"))
    out.flush()


def _read(stdin: BinaryIO) -> dict[str, Any]:
    line = stdin.readline()
    if not line:
        os._exit(0)  # the parent is gone
    message = json.loads(line.decode("utf-8", errors="replace"))
    return message if isinstance(message, dict) else {}


def main() -> None:
    # A script looping when the parent dies would never read its stdin again: the kernel ends it.
    die_with_parent(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else None)
    # Our answers go to a copy of stdout; fd 1 becomes stderr, so nothing else can write to the pipe.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    stdin = sys.stdin.buffer

    def call(request_json: str) -> str:
        _write(out, {"ev": "call", "request_json": request_json})
        return str(_read(stdin).get("answer_json") or "{}")

    start = _read(stdin)
    side = JsSide(call, start.get("exported") or {}, memory_limit=int(start.get("memory_limit") or 0) or 128 << 20)
    _write(out, {"ev": "ready"})
    while True:
        command = _read(stdin)
        if command.get("op") == "stop":
            return
        _write(out, {"ev": "report", **side.handle(command)})


if __name__ == "__main__":
    main()
