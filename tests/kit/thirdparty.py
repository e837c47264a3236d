"""Third-party fixtures live in ``../shared`` beside the repository; tests that use them skip without it."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED = REPO_ROOT.parent / "shared"
THIRDPARTY = SHARED / "fixtures" / "thirdparty"


def thirdparty(*parts: str) -> Path:
    """A file under ../shared/fixtures/thirdparty, or skip the test when ../shared is absent."""
    path = THIRDPARTY.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"third-party fixture not available: {path.name}")
    return path
