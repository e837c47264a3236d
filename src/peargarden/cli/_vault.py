"""The asset vault while a long-running command (``pear chat``, ``pear serve``) is open."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from peargarden.app import Home
from peargarden.app.library import background_snapshots, clear_leftovers

from ._echo import echo


def tidy(home: Home) -> None:
    """Temp files crashed writes left behind go on the next start, and the user is told how many."""
    said = clear_leftovers(home)
    if said:
        echo(said, err=True)


@contextlib.contextmanager
def vault_snapshots(home: Home) -> Iterator[None]:
    """Crash leftovers cleared, then the vault's snapshots for as long as the command runs."""
    tidy(home)
    with background_snapshots(home):
        yield
