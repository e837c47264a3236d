"""A record the embedded model keeps in its models folder (the self-test's results, the model choice),
written whole: a temp file beside it, fsync, rename — a crash leaves the old record or the new one.

The providers sit below the data folder's package (``workspace.atomic`` is the app's writer), and
these records live in the models folder, not in a data folder: hence their own small writer."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json_record(path: Path, data: Any, *, prefix: str) -> Path:
    """Write *data* as indented JSON to *path* atomically (temp names start with *prefix*)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=prefix, suffix=".json", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(data, stream, ensure_ascii=False, indent=2)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return path
