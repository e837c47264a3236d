"""The pipe protocol between the provider and its llama.cpp worker process: one JSON object a line.

Parent → worker (the worker's stdin):

* ``{"op": "load", "spec": LoadSpec}`` — first and once; answered ``ready`` (``version``, ``seconds``) or
  ``fatal`` (``message``: the model or the runtime cannot be loaded, with the error's ``hint`` and
  ``fix`` when it has them; the worker then exits);
* ``{"op": "count", "id", "texts"}`` → ``{"ev": "counts", "id", "counts"}``;
* ``{"op": "chat", "id", "messages", "options", "copy"}`` → ``started`` (``prompt_tokens``), ``chunk``
  (``text``, ``finish``)…, then ``end`` (``n_tokens``; ``stopped`` when cancelled) or ``error``
  (``message``: llama-cpp-python refused the request, e.g. a prompt longer than the context);
* ``{"op": "probe", "id", "prompt", "max_tokens"}`` → ``{"ev": "probe", "id", ...timings}``;
* ``{"op": "cancel", "id"}`` — stop that generation at the next token (read by the worker's reader
  thread, so it arrives while the model works).

Worker → parent (a copy of the worker's stdout taken before anything else could write to it; the
worker's fd 1 then points at its stderr, so llama.cpp printing to stdout cannot corrupt a line):
the answers above, and ``{"ev": "alive"}`` at most once a second while the model works (after each
evaluated batch or token: a native hang sends none, and the parent's silence limit catches it).

A worker whose stdin closes (its parent exited, even by ``kill -9``) exits at once.
"""

from __future__ import annotations

import json
from typing import Any

# How long a worker may work without a line before it says it is alive (seconds).
ALIVE_EVERY = 1.0


def encode(message: dict[str, Any]) -> bytes:
    """One protocol line.  Lone surrogates (not valid UTF-8) are replaced rather than refused."""
    return (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8", errors="replace")


def decode(line: bytes) -> dict[str, Any]:
    """A line back into its message; anything that is not a JSON object is ``ValueError``."""
    message = json.loads(line.decode("utf-8", errors="replace"))
    if not isinstance(message, dict):
        raise ValueError("not a protocol message")
    return message
