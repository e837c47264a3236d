"""The ``pear`` command line: a thin front over the app services.

The commands are listed in :mod:`._commands`; each one's module is imported only when that command
runs, so a light command (``pear cards``) does not load the chat, the web server or the model libraries.
``pear --help`` alone does not even load typer: :mod:`._help` writes the same text from the table;
nor do ``pear chat`` and ``pear tavern assemble`` when :mod:`._light` can read their command line
exactly as typer would.  Everything else runs through typer in :mod:`._run`.

``pear`` runs in Python's UTF-8 mode: started where the file-system encoding is not UTF-8 (``LANG=C``
with ``PYTHONUTF8=0``, a Latin-1 locale), it starts itself again with ``-X utf8`` before anything
else (:func:`_utf8_or_exit`): card, chat and data-folder names are Chinese, and with an ASCII
file-system encoding Python can neither make them nor open them (``pear init`` ended in a
``UnicodeEncodeError``, ``pear chat --card 青梧`` said a false "no such card").
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import os
import sys
import threading
from typing import NoReturn

from ._light import read


def main(argv: list[str] | None = None) -> None:
    """The ``pear`` command; *argv* given: a call from inside another program (the tests), which
    keeps its own garbage-collector settings."""
    if argv is None:
        _utf8_or_exit()
    args = sys.argv[1:] if argv is None else argv
    if args == ["--help"]:
        from ._help import help_width, root_help

        try:
            print(root_help(help_width()))
            sys.stdout.flush()
        except BrokenPipeError:
            sys.exit(0)
        return
    light = read(args)  # `pear chat`, `pear tavern assemble` on a plain line: without typer
    if light is not None:
        run = light.run
    else:
        from ._run import run
    if argv is not None:
        run(args)
        return
    try:
        run(args, own_process=True)
    except SystemExit as done:
        _leave(_status(done.code))
    _leave(0)


def _utf8_or_exit() -> None:
    """Go on in UTF-8 mode: at once when the file-system encoding is UTF-8, else by starting this
    command again with ``-X utf8`` (and ``PYTHONUTF8=1`` for the processes it starts: the model's
    worker, a child ``pear``).  The arguments go over as the bytes they came as.  When that cannot
    be done, one line says what to set."""
    if _file_names_in_utf8():
        return
    env = {**os.environ, "PYTHONUTF8": "1"}
    args = [sys.executable, "-X", "utf8", "-m", "peargarden", *sys.argv[1:]]
    try:
        if sys.executable:
            os.execve(sys.executable, args, env)
    except OSError:
        pass
    encoding = sys.getfilesystemencoding()
    sys.stderr.write(
        f"pear: Python 的文件名编码是 {encoding}，不是 UTF-8，中文的卡名和文件名无法读写"
        f"（file-system encoding {encoding}）：请设置 PYTHONUTF8=1（或 LANG=C.UTF-8）再运行\n"
    )
    sys.stderr.flush()
    os._exit(2)


def _file_names_in_utf8() -> bool:
    return bool(sys.flags.utf8_mode) or codecs.lookup(sys.getfilesystemencoding()).name == "utf-8"


def _status(code: object) -> int:
    """The exit status ``SystemExit(code)`` gives (a message is printed, as Python prints it)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _leave(status: int) -> NoReturn:
    """End the command without tearing down what it made.

    Python's own exit frees every object one by one: after a beat on a 20,000-message chat, tens of
    thousands of entries and messages, ~20-30 ms of CPU for nothing (the kernel takes the memory
    back whole).  What an exit must still do is done: the exit functions run (a local model's worker
    is closed), stdout and stderr are flushed.  Every file the program writes is already closed and
    synced by then (``workspace.atomic``).  A thread that is not a daemon would have been waited
    for: then the usual exit."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if any(thread.is_alive() for thread in others):
        sys.exit(status)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`pear … | head`): no reader left
            stream.flush()
    os._exit(status)


def __getattr__(name: str) -> object:
    # `peargarden.cli.app` (the root typer app) without importing typer for `pear --help`; nor `typing`
    # for the annotation (with dataclasses, typing was a third of what `pear --help` imported).
    if name == "app":
        from ._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
