"""``scripts/test.sh`` fails when the browser tests would be skipped (issue 43): it asks for them
(``PEARGARDEN_BROWSER=required``, unless ``PEARGARDEN_NO_BROWSER=1``), and then a missing browser
fails tests/web's browser fixture instead of skipping every page test.  Run here on one page test
with a browser path that does not exist, in a pytest of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pytest_without_browser(tmp_path: Path, browser: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PEARGARDEN_TEST_CHROMIUM": str(tmp_path / "没有浏览器"), "PEARGARDEN_BROWSER": browser}
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "tests/web/test_web_vault.py"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_a_missing_browser_fails_the_browser_tests_when_they_are_asked_for(tmp_path: Path) -> None:
    run = _pytest_without_browser(tmp_path, "required")
    assert run.returncode == 1, run.stdout
    assert "1 error" in run.stdout and "the browser tests cannot run (PEARGARDEN_NO_BROWSER=1" in run.stdout


def test_a_missing_browser_skips_them_when_the_user_said_so(tmp_path: Path) -> None:
    run = _pytest_without_browser(tmp_path, "optional")
    assert run.returncode == 0, run.stdout
    assert "1 skipped" in run.stdout and "no browser at" in run.stdout
