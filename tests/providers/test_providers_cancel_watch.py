"""The watcher that wakes a blocked read (providers/_cancel.py): it interrupts at its deadline, and
never once its block has been left — a late interrupt used to close the HTTP client a retry had
already taken up again, and the retry failed with "the client has been closed" instead of the
timeout (seen once in nine suite runs in test_timeouts_exhausted)."""

from __future__ import annotations

import threading
import time

from peargarden.providers._cancel import CancelWatch


def test_the_watch_interrupts_once_its_deadline_has_passed() -> None:
    woken = threading.Event()
    with CancelWatch(None, interrupt=woken.set, deadline=time.monotonic() + 0.1, deadline_reason="first_byte") as watch:
        assert woken.wait(5)
    assert watch.fired == "first_byte"


class _LookingSlowly(CancelWatch):
    """A watcher caught between its look at the clock and its interrupt while the reader leaves."""

    def __init__(self, looking: threading.Event, go_on: threading.Event, **kw: object) -> None:
        super().__init__(None, **kw)  # type: ignore[arg-type]
        self.looking, self.go_on = looking, go_on

    def _reason(self) -> str | None:
        self.looking.set()
        self.go_on.wait(5)
        return super()._reason()


def test_no_interrupt_runs_after_the_block_is_left() -> None:
    # What a retry needs: once the failed attempt's block is left, its watcher does nothing more
    # (an interrupt already under way finishes first: it retired the old client, so the retry
    # builds a new one).
    happened: list[str] = []
    looking, go_on = threading.Event(), threading.Event()
    watch = _LookingSlowly(looking, go_on, interrupt=lambda: happened.append("interrupt"), deadline=time.monotonic())
    with watch:
        assert looking.wait(5)  # the watcher has begun its look; the deadline has passed
        # The reader leaves now (its request failed by itself); the watcher goes on a moment later.
        threading.Timer(0.2, go_on.set).start()
    happened.append("left")
    time.sleep(0.4)  # time for a late interrupt, had there been one
    assert happened[-1] == "left"
