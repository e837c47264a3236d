"""The pages' scripts, styles and pictures under a versioned path the browser keeps without asking again.

Served plainly (``/static/chat.js``), a file was either asked for again on a page load (a conditional
request answered 304, sixteen for the chat page) or, when its Last-Modified was old — as an installed
package's files are — kept by the browser on heuristic freshness without asking: after an upgrade a
page could then run old modules beside new ones (tests/web/test_web_static_files.py shows it).  Pages
now name their files under ``/static/<version>/``,
where the version is a hash of the folder's files: a path there never changes what it answers, so it
is sent with ``Cache-Control: immutable`` and a year's ``max-age``, and a changed file (a new release,
an edited script) gives every file a new path.  The modules' relative imports (``./common.js``) stay
under the page's version.  ``/static/<file>`` still answers, revalidated as before, for links made
elsewhere.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Scope

FOREVER = "public, max-age=31536000, immutable"


def static_version(folder: Path) -> str:
    """A short hash of every file under *folder*: its path and its bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


class ImmutableStatic(StaticFiles):
    """StaticFiles whose answers the browser keeps: the path they are mounted under names the version."""

    def file_response(self, full_path: PathLike, stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:  # fmt: skip
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = FOREVER
        return response
