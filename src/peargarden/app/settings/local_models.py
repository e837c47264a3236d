"""The embedded models for the fronts: which exist, which are fetched, fetching one, and the
runtime's self-test on this machine (``pear models --check``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput, PearError
from peargarden.providers.model_catalog import CATALOG, DEFAULT, QWEN_05B, QWEN_15B, CatalogModel
from peargarden.providers.model_choice import (
    Choice,
    Speed,
    choose,
    predicted_large,
    read_choice,
    worth_fetching,
    write_choice,
)
from peargarden.providers.model_fetch import fetch, installed_path
from peargarden.providers.registry import embedded_provider
from peargarden.providers.runtime_check import (
    CHECK_LIMITS,
    CheckResult,
    CheckUnsure,
    Trial,
    recorded_check,
    run_check,
    unsafe_error,
    unsure_error,
)
from peargarden.providers.runtime_record import machine_identity
from peargarden.providers.worker_client import WorkerLimits
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home

from .config_edit import set_values


def embedded_models() -> list[dict[str, Any]]:
    """One row per embedded model: name, model, default (what a chat without ``local_path`` runs:
    the set-up's choice for this machine when it made one), fetched, license; ``chosen``: the line
    that says why, on the model the set-up chose."""
    choice = read_choice(str(machine_identity()["flags_sha"]))
    chosen = CATALOG.get(choice.model) if choice is not None else None
    default = chosen if chosen is not None and installed_path(chosen) is not None else DEFAULT
    return [
        {
            "name": model.key,
            "model": model.display,
            "default": model is default,
            "fetched": installed_path(model) is not None,
            "license": model.license,
            "chosen": choice.reason if choice is not None and model is chosen else "",
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


def choose_embedded(
    *,
    if_needed: bool = False,
    progress: Callable[[str], None] | None = None,
    limits: WorkerLimits = CHECK_LIMITS,
) -> dict[str, Any]:
    """Which packaged model this machine runs by default (:mod:`peargarden.providers.model_choice`):
    both measured by the self-test (recorded results reused), the 1.5B fetched first when the 0.5B's
    rates say it may be fast enough.  With *if_needed*, a choice recorded for this machine whose model
    is still here is kept.  The answer: ``model``, ``reason`` (the one line), ``speeds``, ``fresh``."""
    machine = str(machine_identity()["flags_sha"])
    recorded = read_choice(machine)
    if if_needed and recorded is not None and installed_path(CATALOG[recorded.model]) is not None:
        return {**msgspec.to_builtins(recorded), "fresh": False}
    small = _speed(QWEN_05B, progress, limits)
    large: Speed | None
    if installed_path(QWEN_15B) is None and not worth_fetching(small, QWEN_15B.key):
        large = predicted_large(small, QWEN_15B.key)  # far from the bar: not worth 1.1 GB
    else:
        try:
            if installed_path(QWEN_15B) is None:
                fetch(QWEN_15B, progress=progress)
            large = _speed(QWEN_15B, progress, limits)
        except PearError as error:  # no network, a busy machine: the small model it is
            if progress is not None:
                progress(f"{QWEN_15B.key} 没有测成（{error}）")
            large = None
    model, reason = choose(small, large)
    speeds = [small] if large is None else [small, large]
    choice = Choice(model, reason, speeds, machine, time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    write_choice(choice)
    return {**msgspec.to_builtins(choice), "fresh": True}


def _speed(model: CatalogModel, progress: Callable[[str], None] | None, limits: WorkerLimits) -> Speed:
    """*model*'s rates from its self-test (the recorded one when it has CPU rates, else run now)."""
    path = installed_path(model) or fetch(model, progress=progress)
    result = recorded_check(path)
    trial = _trial(result)
    if trial is None or trial.gen_cpu_tok_s <= 0:
        provider = embedded_provider(str(path))
        if progress is not None:
            progress(f"测 {model.key} 的速度…")
        result = run_check(path, (provider.n_threads, provider.n_threads_batch), progress=progress, limits=limits)
        provider.forget_configuration()
        trial = _trial(result)
    if trial is None:
        return Speed(model.key, 0.0, 0.0)
    return Speed(model.key, trial.prompt_cpu_tok_s, trial.gen_cpu_tok_s, trial.prompt_tok_s, trial.gen_tok_s)


def _trial(result: CheckResult | None) -> Trial | None:
    """The trial of the configuration the self-test chose (its rates are what chats get)."""
    if result is None:
        return None
    return next((t for t in result.trials if t.config == result.chosen and t.passed), None)


def local_path_value(name: str) -> str:
    """What ``[model] local_path`` takes for *name*: a fetched catalog key or a GGUF file as given,
    "" for ``auto`` (the set-up's choice); ``BadInput`` (one line) for anything else."""
    value = "" if name.strip() in ("", "auto") else name.strip()
    model = CATALOG.get(value)
    if model is not None and installed_path(model) is None:
        raise BadInput(f"模型 {value} 还没有下载（not fetched）", hint=f"先运行 pear models --fetch {value}")
    if value and model is None and not Path(value).expanduser().is_file():
        raise BadInput(f"没有这个内置模型或 GGUF 文件：{value}（known: {', '.join(CATALOG)}）")
    return value


def use_local_model(home: Home, name: str) -> str:
    """``[model] local_path`` of *home*'s config.toml set to *name* (a catalog key, a GGUF path, or
    ``auto``: empty, the set-up's choice), with ``provider = "local"``; the line that says so."""
    value = local_path_value(name)
    set_values(home.config_file, {("model", "provider"): "local", ("model", "local_path"): value})
    if value:
        return f"聊天改用内置模型 {value}（写在 {home.config_file} 的 [model] local_path）"
    return f"聊天用设置自动选的内置模型（{home.config_file} 的 [model] local_path 已清空）"
