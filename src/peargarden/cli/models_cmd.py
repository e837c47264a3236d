"""``pear models``: what an endpoint offers (its ``/v1/models`` list), or the embedded models and
which of them are fetched; ``--fetch NAME`` downloads and verifies one."""

from __future__ import annotations

import json
import os

import typer

from peargarden.app.local_models import embedded_models, fetch_embedded
from peargarden.providers.registry import LOCAL, ConnectionSpec
from peargarden.workspace.config import load_settings

from ._app import app, state


def _configured_connection(api_key_env: str | None) -> ConnectionSpec:
    """The main connection from config.toml (the embedded model when none is configured)."""
    settings = load_settings(state.home.config_file)
    main = settings.main()
    found = settings.provider_settings(main.provider)
    if found is None:
        return ConnectionSpec(LOCAL)
    return ConnectionSpec(
        name=found.name,
        base_url=found.base_url,
        model=main.model,
        api_key_env=api_key_env or found.api_key_env,
        api_key="" if api_key_env else found.api_key,
    )


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
        _fetch(fetch_name)
        return
    if base_url:
        spec = ConnectionSpec("--base-url", base_url, api_key_env=api_key_env or "")
    else:
        spec = _configured_connection(api_key_env)
    if spec.is_local:
        _list_embedded(as_json)
        return
    else:
        # Imported here: the openai SDK takes most of a second to import, every `pear` run would pay it.
        from peargarden.providers.openai_compat import OpenAICompatProvider, RetryPolicy

        key = spec.api_key or (os.environ.get(spec.api_key_env, "") if spec.api_key_env else "")
        provider = OpenAICompatProvider(
            spec.base_url,
            spec.model,
            key or None,
            api_key_env=spec.api_key_env or None,
            profile=spec.profile or None,
            timeout=30.0,
            # A listing is interactive: one quick retry, not the chat's patient backoff.
            retry=RetryPolicy(attempts=2, base_delay=1.0),
        )
        try:
            models = provider.list_models()
        finally:
            provider.close()
        where = spec.base_url
    if as_json:
        payload = {"connection": spec.name, "base_url": where, "models": models}
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    if not models:
        typer.echo(f"{where} 没有列出任何模型。")
        return
    for model in models:
        typer.echo(model)


def _fetch(name: str) -> None:
    path = fetch_embedded(name, progress=lambda message: typer.echo(f"models: {message}", err=True))
    typer.echo(str(path))


def _list_embedded(as_json: bool) -> None:
    """The embedded models: key, what it is, whether it is fetched (the default marked)."""
    rows = embedded_models()
    if as_json:
        payload = {"connection": "local", "base_url": "embedded", "models": [r["name"] for r in rows], "embedded": rows}
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    for row in rows:
        state_text = "已下载" if row["fetched"] else "未下载"
        mark = "（默认）" if row["default"] else ""
        typer.echo(f"{row['name']}\t{row['model']}{mark}\t{state_text}")
