"""What the root ``pear`` options set for the command that runs: the data folder.

Typer-free, so that a hot command read by :mod:`._light` and the same command run through typer
(:mod:`._app`'s root callback) open their data folder by the same function, :func:`use_home`.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from peargarden.app import Home, cache_tokenizers_in


class State(msgspec.Struct):
    home_override: Path | None = None
    # Set when this process is the command (see _guard.collect_less).
    freeze_after_import: bool = False

    @property
    def home(self) -> Home:
        return Home.resolve(self.home_override)


state = State()


def use_home(home: Path | str | None) -> None:
    """The root ``--home`` option: the data folder of this run, its tokenizer cache set up (a name
    from :mod:`._light`, which imports no ``pathlib``)."""
    state.home_override = Path(home) if isinstance(home, str) else home
    try:
        data_folder = state.home
    except RuntimeError:  # no HOME and no --home: a command that needs the folder says so itself
        return
    cache_tokenizers_in(data_folder)
