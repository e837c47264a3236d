"""How busy this machine is, and so how long the embedded model may take before its silence means a hang.

A fixed limit (the self-test's was 120 s for the load, 60 s of silence) called a working model hung on
a machine other work kept busy: at a load average of 22 on two cores, a 1.1 GB model did not load in
120 s in either configuration, and the self-test recorded that the CPU could run neither.  The
limits here grow with the model file's size (reading and repacking its weights) and with the share
of a core the worker can expect: the one-minute load average per core (processes running or waiting
for one), at least one.  They stay bounded (:data:`MOST`): a worker stuck for good is still stopped.
"""

from __future__ import annotations

import os

import msgspec

# Seconds on an idle machine: the runtime's import and a small model's load, with room to spare
# (a 491 MB model loaded in 2-3 s on the quiet 2-core VM), plus this much per GB of model file.
START_BASE = 120.0
START_PER_GB = 60.0
# The longest silence of a working worker on an idle machine (it speaks after every batch or token).
SILENCE_BASE = 120.0
# No limit grows past half an hour, however busy the machine.
MOST = 1800.0
# From this share (the load average per core) on, a machine counts as busy in what we tell people.
BUSY = 1.5


class Load(msgspec.Struct, frozen=True):
    """The one-minute load average and the cores this process may run on."""

    average: float
    cores: int

    @property
    def share(self) -> float:
        """How many processes want each core (at least 1): how much slower than alone a worker may run."""
        return max(1.0, self.average / max(1, self.cores))

    @property
    def busy(self) -> bool:
        return self.share >= BUSY

    def describe(self) -> str:
        return f"load {self.average:.1f}，{self.cores} 核"


def measure() -> Load:
    """The machine's load now (0 where the system does not say)."""
    try:
        average = os.getloadavg()[0]
    except OSError:
        average = 0.0
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return Load(average, cores)


def start_limit(model_bytes: int, load: Load) -> float:
    """Seconds a worker may take to import the runtime and load a model of *model_bytes* under *load*."""
    idle = START_BASE + START_PER_GB * max(0, model_bytes) / 1e9
    return round(min(MOST, idle * load.share), 1)


def silence_limit(load: Load) -> float:
    """The longest silence of a working worker under *load* (seconds)."""
    return round(min(MOST, SILENCE_BASE * load.share), 1)
