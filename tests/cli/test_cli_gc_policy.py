"""The collector settings of a `pear` process (issue 32, point 7): a command run as its own process
collects less often (a beat on a long chat spent 0.2 – 0.3 s walking its objects); called from inside
another program (the tests), it leaves that program's settings alone."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from kit.cli import pear_in_process as pear

PROBE = (
    "import gc, runpy, sys; sys.argv = ['pear', '--home', sys.argv[1], 'cards']; "
    "import atexit; atexit.register(lambda: print(gc.get_threshold(), gc.get_freeze_count() > 0)); "
    "runpy.run_module('peargarden', run_name='__main__')"
)


def test_a_pear_process_collects_less(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    pear(home, "init", check=True)
    out = subprocess.run([sys.executable, "-c", PROBE, str(home)], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "(10000, 10, 10) True"


def test_pear_inside_another_program_leaves_its_collector_alone(tmp_path: Path) -> None:
    before = (gc.get_threshold(), gc.get_freeze_count())
    pear(tmp_path / "数据", "init", check=True)
    pear(tmp_path / "数据", "cards", check=True)
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
