"""The one macro entry point: ``expand(text, env, engine=…)`` runs the legacy pipeline or the new engine.

Every caller (tavern assembly, the stage, regex replacements) goes through here, so a setting
picks the engine in one place.  Both engines read the same :class:`MacroEnv`.
"""

from __future__ import annotations

from typing import Literal

from . import macro_engine
from .macros import MacroEnv, substitute

Engine = Literal["legacy", "new"]
ENGINES: tuple[Engine, ...] = ("legacy", "new")


def expand(text: str, env: MacroEnv, *, original: str | None = None, engine: Engine = "legacy") -> str:
    """Substitute the macros of ``text``; ``original`` fills ``{{original}}`` once."""
    if engine == "new":
        return macro_engine.evaluate(text, env, original=original)
    return substitute(text, env, original=original)


__all__ = ["ENGINES", "Engine", "MacroEnv", "expand"]
