"""Shared fixtures. Tests never touch the real ~/.peargarden: PEARGARDEN_HOME points at a temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
THIRDPARTY = SHARED / "fixtures" / "thirdparty"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("pearhome")
    monkeypatch.setenv("PEARGARDEN_HOME", str(home))
    return home


@pytest.fixture
def home_dir(_isolated_home: Path) -> Path:
    return _isolated_home


def thirdparty(*parts: str) -> Path:
    """A file under ../shared/fixtures/thirdparty, or skip the test when ../shared is absent."""
    path = THIRDPARTY.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"third-party fixture not available: {path.name}")
    return path
