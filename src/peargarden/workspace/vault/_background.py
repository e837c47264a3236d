"""Snapshots taken in the background while ``pear serve`` / ``pear chat`` run.

* :class:`SnapshotDebouncer` — call :meth:`~SnapshotDebouncer.notify` after every write; a burst of
  writes becomes one snapshot once the folder has been quiet for *quiet* seconds (or at the latest
  *max_delay* seconds after the first write of the burst).
* :class:`PeriodicSnapshots` — one snapshot every *interval* seconds (10 minutes by default).
* :func:`start_background_snapshots` — both, plus the snapshot at start-up (after clearing temp
  files that crashed writes left behind more than an hour ago), in one object.

A failed background snapshot is logged and never raised into the app: the vault is a safety net
and must not take the program down with it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from peargarden.errors import PearError, StorageError

from .. import atomic
from ..home import Home

log = logging.getLogger("peargarden.vault")

DEFAULT_INTERVAL = 600.0
DEFAULT_QUIET = 2.0
DEFAULT_MAX_DELAY = 30.0

Monotonic = Callable[[], float]


class Vault(Protocol):
    """What the background needs of the vault (the package's ``Vault``, which re-exports this
    module: it is named here by what it does, so the import goes one way): its data folder, its
    own folder (writes there are no reason for a snapshot) and a snapshot."""

    @property
    def home(self) -> Home: ...

    @property
    def folder(self) -> Path: ...

    def snapshot(self, reason: str = "manual") -> object: ...


def _safe_snapshot(vault: Vault, reason: str) -> None:
    if not vault.home.root.is_dir():
        return  # no data folder yet: nothing to protect, and we must not create one
    try:
        vault.snapshot(reason)
    except StorageError as error:
        # A read-only data folder: the command's own first write says so, in its one line (this
        # one before it was a second line, once a raw "[Errno 30]"); nothing can change there for
        # a snapshot to keep.  A full disk is said: writes may still fit where a snapshot did not.
        (log.info if error.read_only else log.warning)("vault snapshot (%s) failed: %s", reason, error)
    except (PearError, OSError) as error:
        log.warning("vault snapshot (%s) failed: %s", reason, error)


class SnapshotDebouncer:
    """Turn a burst of writes into one snapshot.

    Deterministic when driven by hand (:meth:`notify`, :meth:`run_pending` with an injected
    *monotonic* clock); :meth:`start` runs the same logic on a background thread.
    """

    def __init__(
        self,
        vault: Vault,
        *,
        quiet: float = DEFAULT_QUIET,
        max_delay: float = DEFAULT_MAX_DELAY,
        reason: str = "write",
        monotonic: Monotonic = time.monotonic,
    ) -> None:
        self.vault = vault
        self.quiet = quiet
        self.max_delay = max(max_delay, quiet)
        self.reason = reason
        self._monotonic = monotonic
        self._cond = threading.Condition()
        self._first: float | None = None  # first write of the pending burst
        self._last = 0.0
        self._closed = False
        self._thread: threading.Thread | None = None
        self.taken = 0  # snapshots attempted, for the app's status line and for tests

    def notify(self) -> None:
        """Record that something in the data folder was just written."""
        with self._cond:
            now = self._monotonic()
            if self._first is None:
                self._first = now
            self._last = now
            self._cond.notify_all()

    @property
    def pending(self) -> bool:
        with self._cond:
            return self._first is not None

    def _deadline(self) -> float | None:
        if self._first is None:
            return None
        return min(self._last + self.quiet, self._first + self.max_delay)

    def run_pending(self) -> bool:
        """Take the snapshot if a burst is pending and has gone quiet; True when one was attempted."""
        with self._cond:
            deadline = self._deadline()
            if deadline is None or self._monotonic() < deadline:
                return False
            self._first = None
        self._take()
        return True

    def flush(self) -> bool:
        """Take the pending snapshot now, quiet or not; True when one was pending."""
        with self._cond:
            if self._first is None:
                return False
            self._first = None
        self._take()
        return True

    def _take(self) -> None:
        self.taken += 1
        _safe_snapshot(self.vault, self.reason)

    def start(self) -> SnapshotDebouncer:
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pear-vault-debounce", daemon=True)
                self._thread.start()
        return self

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closed:
                    return
                deadline = self._deadline()
                if deadline is None:
                    self._cond.wait()
                    continue
                remaining = deadline - self._monotonic()
                if remaining > 0:
                    self._cond.wait(remaining)
                    continue
            self.run_pending()

    def close(self, *, flush: bool = True) -> None:
        """Stop the thread; with *flush*, a pending burst is snapshotted before returning."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()
        if flush:
            self.flush()


class PeriodicSnapshots:
    """A snapshot every *interval* seconds on a daemon thread (taken only when something changed)."""

    def __init__(self, vault: Vault, *, interval: float = DEFAULT_INTERVAL, reason: str = "interval") -> None:
        self.vault = vault
        self.interval = interval
        self.reason = reason
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds = 0

    def start(self) -> PeriodicSnapshots:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="pear-vault-periodic", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.rounds += 1
            _safe_snapshot(self.vault, self.reason)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


class BackgroundSnapshots:
    """Start-up snapshot, periodic snapshots and write-debounced snapshots for one running app.

    While started, every write through :mod:`peargarden.workspace.atomic` into this data folder
    counts as a write (so the app need not call :meth:`notify_write` for those).  Session appends do
    not, unless *snapshot_on_append*: a chat appends every turn, and a snapshot per turn would push
    the older snapshots (the ones that undo a deleted library) out of the 50 kept within an hour;
    the periodic snapshot covers chats.  Writes the program cannot see (a bash tool, another
    program) need an explicit :meth:`notify_write`.
    """

    def __init__(
        self,
        vault: Vault,
        *,
        interval: float,
        quiet: float,
        max_delay: float,
        snapshot_on_append: bool = False,
    ) -> None:
        self.vault = vault
        self.debouncer = SnapshotDebouncer(vault, quiet=quiet, max_delay=max_delay)
        self.periodic = PeriodicSnapshots(vault, interval=interval)
        self.snapshot_on_append = snapshot_on_append
        self._startup: threading.Thread | None = None
        self._root = os.path.abspath(vault.home.root) + os.sep
        self._vault_dir = os.path.abspath(vault.folder) + os.sep

    def _on_write(self, path: Path, kind: atomic.WriteKind) -> None:
        if kind == "append" and not self.snapshot_on_append:
            return
        where = os.path.abspath(path)
        if where.startswith(self._root) and not where.startswith(self._vault_dir):
            self.debouncer.notify()

    def start(self) -> BackgroundSnapshots:
        # The start-up snapshot can take a while on a big first run; do not hold up the app for it.
        self._startup = threading.Thread(target=self._start_up, name="pear-vault-startup", daemon=True)
        self._startup.start()
        self.debouncer.start()
        self.periodic.start()
        atomic.add_write_listener(self._on_write)
        return self

    def _start_up(self) -> None:
        root = self.vault.home.root
        if root.is_dir():
            # Debris of writes a crash interrupted (never data: the real file was not replaced).
            try:
                atomic.remove_stale_temp_files(root)
            except OSError as error:
                log.warning("could not clear stale temp files: %s", error)
        _safe_snapshot(self.vault, "startup")

    def wait_for_startup(self, timeout: float | None = None) -> bool:
        """Block until the start-up snapshot is done (e.g. before a tool may first write); False on timeout."""
        if self._startup is None:
            return True
        self._startup.join(timeout)
        return not self._startup.is_alive()

    def notify_write(self) -> None:
        """Call after the program or a tool wrote into the data folder."""
        self.debouncer.notify()

    def stop(self, *, flush: bool = True) -> None:
        """Stop the threads; with *flush*, writes not yet snapshotted are snapshotted now."""
        atomic.remove_write_listener(self._on_write)
        if self._startup is not None:
            self._startup.join()
        self.periodic.stop()
        self.debouncer.close(flush=flush)
