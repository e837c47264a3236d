"""The asset vault while a long-running command (``pear chat``, ``pear serve``) is open."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import typer

from peargarden.workspace.home import Home

log = logging.getLogger(__name__)


def tidy(home: Home) -> None:
    """Temp files crashed writes left behind go on the next start, and the user is told how many."""
    from peargarden.workspace.vault import clear_crash_debris

    try:
        debris = clear_crash_debris(home)
    except OSError as error:
        log.warning("could not clear crash leftovers: %s", error)
        return
    if debris.files:
        typer.echo(debris.describe(), err=True)


@contextlib.contextmanager
def vault_snapshots(home: Home) -> Iterator[None]:
    """Snapshot the data folder now (before anything of this run can change it), every 10 minutes,
    and after writes; the last writes are snapshotted on the way out."""
    from peargarden.workspace.vault import start_background_snapshots

    tidy(home)
    try:
        background = start_background_snapshots(home)
    except Exception as error:  # the vault must never stop a chat; say so and go on
        log.warning("asset vault not running: %s", error)
        yield
        return
    try:
        background.wait_for_startup(timeout=60)
        yield
    finally:
        background.stop()
