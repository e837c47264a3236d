"""Pure path handling for the sandbox: normalising a tool's path argument and zone membership.

Resolution of symlinks is not done here: the caller passes a ``realpath`` function (realpath of the
nearest existing ancestor plus the non-existent tail), so the verdict stays a pure function.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from urllib.parse import unquote, urlparse

Realpath = Callable[[str], str]

# Unicode spaces a model sometimes emits instead of a plain space (NBSP, narrow NBSP, ideographic …).
_ODD_SPACES = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]")


def normalize_argument(raw: str, home_dir: str) -> str:
    """A path as the model wrote it → a plain path string (not yet absolute)."""
    text = _ODD_SPACES.sub(" ", raw).strip()
    if text.startswith("@"):
        text = text[1:]
    if text.startswith("file://"):
        text = unquote(urlparse(text).path)
    if text == "~":
        return home_dir
    if text.startswith("~/"):
        return posixpath.join(home_dir, text[2:])
    return text or "."


def absolute(raw: str, cwd: str, home_dir: str) -> str:
    """Join a (normalised) argument onto *cwd*; ``..`` is left for realpath to resolve."""
    path = normalize_argument(raw, home_dir)
    if not path.startswith("/"):
        path = posixpath.join(cwd, path)
    return path


def inside(path: str, root: str) -> bool:
    """True when *path* is *root* or lies below it (both already real and absolute)."""
    root = root.rstrip("/") or "/"
    if root == "/":
        return path.startswith("/")
    return path == root or path.startswith(root + "/")


def relative_to(path: str, root: str) -> str | None:
    if not inside(path, root):
        return None
    rest = path[len(root.rstrip("/")) :].lstrip("/")
    return rest or "."
