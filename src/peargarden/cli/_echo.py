"""One line to the terminal, as ``typer.echo`` writes it, without importing typer.

The hot commands (``pear chat``, ``pear tavern assemble``) run without typer when their command line
is a plain one (:mod:`._light`), so their bodies print through this.  What a user sees must not
change: like click's ``echo`` it adds the newline, flushes, and strips ANSI codes (colours, cursor
moves) where the stream is no terminal — a reply a model wrote with escape codes in it reads the same
in a file as it did when typer printed it.
"""

from __future__ import annotations

import re
import sys

# The codes click strips: CSI sequences (ESC [ parameters, a final letter).
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")


def echo(message: str = "", *, err: bool = False) -> None:
    """*message* and a newline on stdout (on stderr with *err*), flushed."""
    stream = sys.stderr if err else sys.stdout
    text = message + "\n"
    if not _is_terminal(stream):
        text = _ANSI.sub("", text)
    stream.write(text)
    stream.flush()


def _is_terminal(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except Exception:  # a stream without isatty (or a closed one) is no terminal, as click decides
        return False
