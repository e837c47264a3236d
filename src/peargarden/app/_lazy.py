"""A face's names, each imported from its module when a front first asks for it (PEP 562).

The fronts import ``peargarden.app`` and its rooms' packages only; a room's ``__init__`` lists
what the fronts use in a ``_LAZY`` table and gets its module ``__getattr__`` from :func:`lazy_names`,
so a light command such as ``pear cards`` loads only the modules of the names it imports.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of *package*'s face.  *table* maps each name to its module, relative
    to the package: ``".module"``, or ``".module:name"`` for a name the face gives under another one
    (``edit_entry`` of the lorebooks is ``edit_lore_entry`` beside the prompt files' own)."""

    def __getattr__(name: str) -> Any:
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, own = where.partition(":")
        value = getattr(import_module(module, package), own or name)
        setattr(sys.modules[package], name, value)  # the next use is a plain attribute
        return value

    return __getattr__
