"""The embedded models for the fronts: which exist, which are fetched, and fetching one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput
from peargarden.providers.model_catalog import CATALOG, DEFAULT
from peargarden.providers.model_fetch import fetch, installed_path


def embedded_models() -> list[dict[str, Any]]:
    """One row per embedded model: name, model, default, fetched, license."""
    return [
        {
            "name": model.key,
            "model": model.display,
            "default": model is DEFAULT,
            "fetched": installed_path(model) is not None,
            "license": model.license,
        }
        for model in CATALOG.values()
    ]


def fetch_embedded(name: str, progress: Callable[[str], None] | None = None) -> Path:
    """The verified GGUF of the embedded model *name*, fetched when missing."""
    model = CATALOG.get(name)
    if model is None:
        raise BadInput(f"没有名为 {name!r} 的内置模型（known: {', '.join(CATALOG)}）")
    return fetch(model, progress=progress)
