"""The `python cleanup.py` incident: a script deletes every lorebook; the vault brings them back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from vault_test_library import LOREBOOK_NAMES, make_library, pear, pear_inprocess, tree_bytes

CLEANUP_SCRIPT = """
import pathlib, shutil, sys
home = pathlib.Path(sys.argv[1])
for book in (home / "library" / "lorebooks").glob("*.json"):
    book.unlink()
# while at it, it also "cleans up" supplement books and one whole card
for extra in (home / "cards").glob("*/补充设定集.json"):
    extra.unlink()
shutil.rmtree(home / "cards" / "青梧")
"""


def test_restore_undoes_a_script_that_deleted_every_lorebook(home_dir: Path, tmp_path: Path) -> None:
    make_library(home_dir)
    before = tree_bytes(home_dir)
    taken = pear_inprocess(home_dir, "vault", "snapshot", "--reason", "启动")
    assert "启动" in taken.stdout
    snapshot_id = json.loads(pear_inprocess(home_dir, "vault", "list", "--json").stdout)[-1]["id"]

    script = tmp_path / "cleanup.py"
    script.write_text(CLEANUP_SCRIPT, encoding="utf-8")
    subprocess.run([sys.executable, str(script), str(home_dir)], check=True)
    assert not list((home_dir / "library" / "lorebooks").glob("*.json"))
    assert not (home_dir / "cards" / "青梧").exists()

    restored = pear(home_dir, "vault", "restore", snapshot_id)  # the real command, in its own process
    assert restored.returncode == 0

    after = tree_bytes(home_dir)
    assert after == before  # every file back, byte for byte, nothing extra
    for name in LOREBOOK_NAMES:
        assert (home_dir / "library" / "lorebooks" / f"{name}.json").read_bytes() == before[
            f"library/lorebooks/{name}.json"
        ]
    assert (home_dir / "cards" / "青梧" / "补充设定集.json").is_file()

    # The damaged state was snapshotted before the restore, so the restore itself can be undone.
    listing = json.loads(pear_inprocess(home_dir, "vault", "list", "--json").stdout)
    assert listing[0]["id"] == snapshot_id
    damaged = listing[-1]
    assert damaged["reason"] == f"before restore {snapshot_id}"
    survivors = [
        p
        for p in before
        if not p.startswith(("library/lorebooks/", "cards/青梧/")) and not p.endswith("补充设定集.json")
    ]
    assert damaged["files"] == len(survivors)


def test_restore_of_one_lorebook_leaves_the_rest_alone(home_dir: Path) -> None:
    make_library(home_dir)
    pear_inprocess(home_dir, "vault", "snapshot")
    snapshot_id = json.loads(pear_inprocess(home_dir, "vault", "list", "--json").stdout)[-1]["id"]
    book = home_dir / "library" / "lorebooks" / "栖水镇.json"
    original = book.read_bytes()
    book.unlink()
    other = home_dir / "library" / "lorebooks" / "青梧山.json"
    other.write_text("{}", encoding="utf-8")  # a later edit the user wants to keep

    pear_inprocess(home_dir, "vault", "restore", snapshot_id, "library/lorebooks/栖水镇.json")

    assert book.read_bytes() == original
    assert other.read_text(encoding="utf-8") == "{}"
