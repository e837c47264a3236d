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
from peargarden.providers.runtime_check import (
    CHECK_LIMITS,
    CheckResult,
    CheckUnsure,
    recorded_check,
    run_check,
    unsafe_error,
    unsure_error,
)
from peargarden.providers.worker_client import WorkerLimits
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
    home: Home,
    local_model: str = "",
    *,
    if_needed: bool = False,
    progress: Callable[[str], None] | None = None,
    limits: WorkerLimits = CHECK_LIMITS,
) -> dict[str, Any]:
    """The self-test of the embedded model on this machine (:mod:`peargarden.providers.runtime_check`):
    *local_model* (a GGUF path or an embedded model's name; "" = ``[model] local_path``, else the
    default).  With *if_needed*, a record still valid for this machine, runtime and model is shown
    instead of testing again (a provisional one is tested again).  *limits*: the workers' (by the
    model's size and the machine's load where not given).  The answer is ``CheckResult.to_json()``
    plus ``name`` (the model's) and ``fresh`` (tested now)."""

    name = local_model or load_settings(home.config_file).main().local_path
    provider = embedded_provider(name)
    path = provider.traits().path
    result: CheckResult | None = recorded_check(path) if if_needed else None
    if result is not None and result.provisional:
        result = None
    fresh = result is None
    if result is None:
        threads = (provider.n_threads, provider.n_threads_batch)
        result = run_check(path, threads, progress=progress, limits=limits)
        provider.forget_configuration()  # a worker started later in this process uses the new choice
    answer = {**result.to_json(), "name": provider.model_name, "fresh": fresh}
    if result.provisional and not any(trial.passed for trial in result.trials):
        answer["unsure"] = str(unsure_error(result))
    return answer


def require_safe(check: dict[str, Any]) -> None:
    """``RuntimeUnsafe`` (exit 5, rebuild) when every configuration failed by what the CPU cannot do;
    ``CheckUnsure`` (exit 4, what got in the way) when nothing passed but that proves nothing."""

    if check.get("chosen") is None:
        raise unsafe_error(str(check.get("reason") or ""))
    if check.get("unsure"):
        raise CheckUnsure(str(check["unsure"]))


def check_limits(start: float | None = None, silence: float | None = None) -> WorkerLimits:
    """The self-test's worker limits from ``--first-byte-timeout`` / ``--idle-timeout`` (seconds;
    ``None``: by the model's size and the machine's load)."""
    for flag, value in (("--first-byte-timeout", start), ("--idle-timeout", silence)):
        if value is not None and not value > 0:
            raise BadInput(f"{flag} 应为正数（秒），不是 {value:g}")
    return WorkerLimits(start=start, silence=silence)
