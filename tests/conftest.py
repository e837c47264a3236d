"""Shared fixtures. Tests never touch the real ~/.peargarden: PEARGARDEN_HOME points at a temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check behaviour, never speed: Hypothesis' per-example deadline (200 ms) and its
# "too slow" health check are timings, and on a loaded 2-core machine they failed correct code.
settings.register_profile("pear", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("pear")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("pearhome")
    monkeypatch.setenv("PEARGARDEN_HOME", str(home))
    return home


@pytest.fixture
def home_dir(_isolated_home: Path) -> Path:
    return _isolated_home
