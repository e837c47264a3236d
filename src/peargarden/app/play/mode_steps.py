"""One runner for a mode's steps around a beat (pi's ``ExtensionRunner``): ``prepare`` before a
reply, ``after_reply`` after each, ``after_beat`` once the last is complete.

A step is the mode's own code running after the user's message (and maybe the reply) is already
saved, so whatever it does wrong must never cost that: any exception — raised when the step is
called, or while its work runs — becomes one warning that names the step, and the beat goes on (a
saved reply stays saved and the beat ends as it would have, ``stop``).  Each step's time, from its
call to the end of its work, goes into the beat's record (``BeatResult.steps``) and so into the beat
log beside the session file.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

from peargarden.agent.result import BeatResult, StepTime
from peargarden.errors import PearError

# A step as the runner calls it: its work (the lines it says), or ``None`` when nothing is due.
Step = Callable[[], Iterable[str] | None]


def step_failed(name: str, error: Exception) -> str:
    """The one line a failing step becomes."""
    detail = str(error) if isinstance(error, PearError) else f"{type(error).__name__}: {error}"
    return f"模式步骤 {name} 出错，已跳过（{detail}）；已写下的对话都在"


class StepRunner:
    """Runs the mode's steps of one beat, each timed into *record* (``speaker``: whose reply)."""

    def __init__(self, record: BeatResult, clock: Callable[[], float] = time.perf_counter) -> None:
        self._record = record
        self._clock = clock

    def start(self, name: str, step: Step, speaker: str = "") -> Iterator[str] | None:
        """Call *step*: ``None`` when it has nothing to do (decided at once), else its lines as its
        work runs; a failure, at the call or in the work, is one line naming the step."""
        began = self._clock()
        try:
            work = step()
        except Exception as error:  # a mode's bug must not cost the beat
            self._timed(name, speaker, began)
            return iter([step_failed(name, error)])
        if work is None:
            self._timed(name, speaker, began)
            return None
        return self._guarded(name, speaker, began, work)

    def run(self, name: str, step: Step, speaker: str = "") -> Iterator[str]:
        """:meth:`start`, with nothing due being no lines."""
        return self.start(name, step, speaker) or iter(())

    def _guarded(self, name: str, speaker: str, began: float, work: Iterable[str]) -> Iterator[str]:
        try:
            yield from work
        except Exception as error:  # the step's work failed half-way: what it wrote stays
            yield step_failed(name, error)
        finally:
            self._timed(name, speaker, began)

    def _timed(self, name: str, speaker: str, began: float) -> None:
        self._record.steps.append(StepTime(name, round(self._clock() - began, 3), speaker))
