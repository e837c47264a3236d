"""Fixtures for tavern tests (builders live in tavern_builders.py)."""

from __future__ import annotations

from tavern_builders import counter, make_state

__all__ = ["counter", "make_state"]
