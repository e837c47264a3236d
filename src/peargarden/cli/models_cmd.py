"""``pear models``: what an endpoint offers (its ``/v1/models`` list), or the embedded models and
which of them are fetched; ``--fetch NAME`` downloads and verifies one."""

from __future__ import annotations

import json
from typing import Any

import typer

from peargarden.app.settings.local_models import fetch_embedded
from peargarden.app.settings.model_lists import list_models

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
) -> None:
    """List the models an endpoint offers (default: the main connection in config.toml)."""
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
