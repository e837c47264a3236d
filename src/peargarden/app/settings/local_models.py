"""The embedded models for the fronts: which exist, which are fetched, fetching one, and the
runtime's self-test on this machine (``pear models --check``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput
from peargarden.providers.model_catalog import CATALOG, DEFAULT
from peargarden.providers.model_fetch import fetch, installed_path
from peargarden.providers.registry import embedded_provider
from peargarden.providers.runtime_check import recorded_check, run_check, unsafe_error
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home


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


def check_embedded(
    home: Home, local_model: str = "", *, if_needed: bool = False, progress: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """The self-test of the embedded model on this machine (:mod:`peargarden.providers.runtime_check`):
    *local_model* (a GGUF path or an embedded model's name; "" = ``[model] local_path``, else the
    default).  With *if_needed*, a record still valid for this machine, runtime and model is shown
    instead of testing again.  The answer is ``CheckResult.to_json()`` plus ``name`` (the model's)
    and ``fresh`` (tested now)."""

    name = local_model or load_settings(home.config_file).main().local_path
    provider = embedded_provider(name)
    path = provider.traits().path
    result = recorded_check(path) if if_needed else None
    fresh = result is None
    if result is None:
        result = run_check(path, (provider.n_threads, provider.n_threads_batch), progress=progress)
        provider.forget_configuration()  # a worker started later in this process uses the new choice
    return {**result.to_json(), "name": provider.model_name, "fresh": fresh}


def require_safe(check: dict[str, Any]) -> None:
    """``RuntimeUnsafe`` (exit 5, what to do) when the self-test found no configuration that works."""

    if check.get("chosen") is None:
        raise unsafe_error(str(check.get("reason") or ""))
