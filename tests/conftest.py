"""Shared fixtures. Tests never touch the real ~/.peargarden: PEARGARDEN_HOME points at a temp folder."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from kit.examples import examples

# Property tests check behaviour, never speed: Hypothesis' per-example deadline (200 ms) and its
# "too slow" health check are timings, and on a loaded 2-core machine they failed correct code.
# A test that names no count draws Hypothesis' default hundred, or a third of it in a quick run.
settings.register_profile(
    "pear", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=examples(100)
)
settings.load_profile("pear")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("pearhome")
    monkeypatch.setenv("PEARGARDEN_HOME", str(home))
    return home


@pytest.fixture
def home_dir(_isolated_home: Path) -> Path:
    return _isolated_home


@pytest.fixture
def fake_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The embedded model's workers started by this test import the fake llama.cpp of
    ``kit/fake_runtime`` (see ``kit.fake_llama``); the folder of its traces and ``runtime.json``."""
    from kit.fake_llama import use_fake_runtime

    folder = tmp_path / "fake-state"
    use_fake_runtime(monkeypatch, folder)
    return folder


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The real-model tests (`slow`: a minute of llama.cpp where its runtime is installed) start first.
    # pytest-xdist hands each worker a run of tests in this order, so a long test placed by its
    # file name may start last and leave the other workers idle while it runs alone; started first,
    # it overlaps with everything else.  The sort is stable: the rest keep their order.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_collection_finish(session: pytest.Session) -> None:
    # The cyclic garbage collector walks every tracked object a process holds: after collection that
    # is hundreds of thousands (the package, FastAPI, Playwright, Hypothesis, the test items), none of
    # which will ever be garbage.  Frozen, they are left out of every later collection, and a larger
    # first-generation threshold makes collections rarer.  Measured over a whole run with three
    # workers: 11.7 s of the workers' CPU went to collections, 3.7 s with this (docs/benchmarks/test-suite.md).
    # The package's own processes (`pear` started by tests) keep Python's defaults.
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)
