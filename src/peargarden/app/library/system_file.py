"""The data folder's ``SYSTEM.md`` for a front without a shell: the warning a stage beat gives when it
is missing or empty (the bundled copy stood in) names a fix, and the fix writes the bundled file into
the data folder after a vault snapshot; undoing it brings back what was there (an empty file) or
removes the written one (none was there).  The folder ``pear serve`` and ``pear chat`` set up has the
file from the start, so the warning is for a user who removed or emptied it."""

from __future__ import annotations

from peargarden.errors import PearError
from peargarden.stage.system import SYSTEM_FALLBACK_WARNING
from peargarden.workspace import atomic
from peargarden.workspace.home import Home
from peargarden.workspace.seed import bundled

from .snapshots import Snapshots, disk_errors, undo_point

#: The fix a page offers beside the warning (``warning_fix``).
SYSTEM_FILE_FIX = "system-file"


def warning_fix(warning: str) -> str:
    """The fix a page can offer for *warning* ("" for none)."""
    return SYSTEM_FILE_FIX if warning == SYSTEM_FALLBACK_WARNING else ""


def write_bundled_system(home: Home) -> dict[str, str]:
    """The bundled ``SYSTEM.md`` into the data folder (a vault snapshot first); ``{"snapshot"}`` undoes it."""
    snapshot = undo_point(home, "写入随包的 SYSTEM.md 之前")
    with disk_errors(home):
        atomic.write_bytes(home.system_file, bundled("SYSTEM.md"))
    return {"snapshot": snapshot}


def undo_bundled_system(home: Home, snapshot: str) -> None:
    """``SYSTEM.md`` as it was in *snapshot*: restored from it, or removed when it had none (the file
    written since stays in the vault's snapshot taken before)."""
    vault = Snapshots(home)
    name = home.system_file.name
    if name in vault.files(snapshot):
        vault.restore(snapshot, name)
        return
    undo_point(home, "撤销写入 SYSTEM.md 之前")
    with disk_errors(home):
        try:
            home.system_file.unlink()
        except FileNotFoundError:
            raise PearError("SYSTEM.md 已经不在了（nothing to undo）") from None
