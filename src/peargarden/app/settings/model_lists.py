"""What models a connection offers, for the fronts (``pear models``, the settings page): an
endpoint's ``/v1/models`` list, or the embedded models and which of them are fetched."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import msgspec

from peargarden.providers.registry import LOCAL, ConnectionSpec
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home

from .local_models import embedded_models

if TYPE_CHECKING:
    from peargarden.providers.registry import ConnectionSpec


class ModelList(msgspec.Struct, frozen=True):
    connection: str  # the connection's name (``--base-url`` for one given by flag, ``local`` embedded)
    base_url: str  # ``embedded`` for the embedded models
    models: list[str]
    # The embedded models (name, model, fetched, default) when the connection is the embedded one.
    embedded: list[dict[str, Any]] | None = msgspec.field(default=None)


def _configured(home: Home, api_key_env: str | None) -> ConnectionSpec:
    """The main connection of config.toml (the embedded model when none is configured)."""

    settings = load_settings(home.config_file)
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


def list_models(home: Home, base_url: str | None = None, api_key_env: str | None = None) -> ModelList:
    """The models of the endpoint *base_url* (its key in the variable *api_key_env*), or of the main
    connection of config.toml when no URL is given; the embedded models for the embedded one."""

    spec = ConnectionSpec("--base-url", base_url, api_key_env=api_key_env or "") if base_url else None
    spec = spec or _configured(home, api_key_env)
    if spec.is_local:
        rows = embedded_models()
        return ModelList("local", "embedded", [str(r["name"]) for r in rows], rows)
    # Imported here: only this command needs the HTTP client.
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
    return ModelList(spec.name, spec.base_url, models)
