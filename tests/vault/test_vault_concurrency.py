"""Two processes taking snapshots of one data folder at once (e.g. `pear serve` and `pear vault snapshot`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from vault_test_library import make_library, tree_bytes

from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault
from peargarden.workspace.vault._store import ObjectStore, snapshot_sort_key

ROUNDS = 8

CHILD = r"""
import sys
from pathlib import Path
from peargarden.workspace import atomic
from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault

home = Home(Path(sys.argv[1]))
vault = Vault(home)
made = 0
for i in range(int(sys.argv[3])):
    atomic.write_text(home.lorebooks_dir / f"{sys.argv[2]}.json", f'{{"round": {i}}}')
    made += vault.snapshot(f"{sys.argv[2]}-{i}") is not None
print(made)
"""


def test_concurrent_snapshots_leave_a_consistent_vault(home_dir: Path, tmp_path: Path) -> None:
    make_library(home_dir)
    script = tmp_path / "snapper.py"
    script.write_text(CHILD, encoding="utf-8")
    children = [
        subprocess.Popen(
            [sys.executable, str(script), str(home_dir), name, str(ROUNDS)], stdout=subprocess.PIPE, text=True
        )
        for name in ("甲", "乙")
    ]
    made = 0
    for child in children:
        out, _ = child.communicate(timeout=120)
        assert child.returncode == 0
        made += int(out)

    vault = Vault(Home(home_dir))
    snapshots = vault.snapshots()
    # Unserialised, both processes would pick the same id within one second and one manifest would
    # overwrite the other; serialised, every snapshot a process was told it made is there.
    assert len(snapshots) == made
    ids = [s.id for s in snapshots]
    assert ids == sorted(ids, key=snapshot_sort_key) and len(set(ids)) == len(ids)
    objects = ObjectStore(home_dir / "vault" / "objects")
    for snapshot_id in ids:
        for entry in vault.manifest(snapshot_id).files.values():
            assert objects.read(entry.sha256)  # present and matching its hash
    # The newest snapshot is the final state, and restoring any kept snapshot works.
    assert vault.snapshot() is None
    final = tree_bytes(home_dir)
    vault.restore(ids[0])
    vault.restore(vault.snapshots()[-1].id)
    assert tree_bytes(home_dir) == final
