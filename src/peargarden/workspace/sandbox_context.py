"""The I/O edge of the sandbox: real paths on this disk and the context for one card and chat."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from peargarden.sandbox import DEFAULT_BLACKLIST, DEFAULT_NO_ASK, Grants, SandboxContext
from peargarden.workspace.home import Home


def real_existing(path: str) -> str:
    """realpath of the nearest existing ancestor + the tail that does not exist yet.

    So a new file under a symlinked folder is judged where it would really land, and ``..`` after a
    symlink cannot climb out of the zone the symlink points into.
    """
    absolute = os.path.abspath(path) if not os.path.isabs(path) else path
    tail: list[str] = []
    current = absolute
    while True:
        if os.path.lexists(current):
            real = os.path.realpath(current)
            return os.path.normpath(os.path.join(real, *reversed(tail))) if tail else real
        parent, name = os.path.split(current)
        if parent == current:
            return os.path.normpath(os.path.join(parent, *reversed(tail)))
        tail.append(name)
        current = parent


def sandbox_context(
    home: Home,
    card_folder: str,
    *,
    chat_id: str | None = None,
    mounted_books: Iterable[Path] = (),
    grant_paths: Iterable[str] = (),
    bash_granted: bool = False,
    blacklist: Iterable[str] | None = None,
    no_ask: Iterable[str] | None = None,
    paths_relative_to_root: bool = False,
) -> SandboxContext:
    root = real_existing(str(home.root))
    card_dir = real_existing(str(home.card_dir(card_folder)))
    library = Path(root) / "library"
    shared_names = ("lorebooks", "presets", "personas", "skills")
    shared = tuple(real_existing(str(library / name)) for name in shared_names)
    grants = tuple(real_existing(p if os.path.isabs(p) else os.path.join(root, p)) for p in grant_paths)
    return SandboxContext(
        data_root=root,
        card_dir=card_dir,
        home_dir=os.path.expanduser("~"),
        realpath=real_existing,
        is_dir=os.path.isdir,
        current_chat=chat_id,
        path_cwd=root if paths_relative_to_root else None,
        shared_roots=shared,
        mounted_books=tuple(real_existing(str(p)) for p in mounted_books),
        grants=Grants(paths=grants, bash=bash_granted),
        blacklist=tuple(blacklist) if blacklist is not None else DEFAULT_BLACKLIST,
        no_ask=tuple(no_ask) if no_ask is not None else DEFAULT_NO_ASK,
    )
