"""Shared fixtures. Tests never touch the real ~/.peargarden: PEARGARDEN_HOME points at a temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("pearhome")
    monkeypatch.setenv("PEARGARDEN_HOME", str(home))
    return home


@pytest.fixture
def home_dir(_isolated_home: Path) -> Path:
    return _isolated_home
