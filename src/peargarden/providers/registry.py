"""Build providers from connection settings.

A connection is plain values (this package does not read ``config.toml``; the workspace layer
does and hands the values over).  No connection — or the name ``local`` — means the embedded
model, the zero-configuration default.  The side model (declaration, bookkeeping) defaults to the
main one and then shares its provider object, so the embedded model is loaded only once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

import msgspec
from msgspec.structs import replace

from .base import Provider, Timeouts

if TYPE_CHECKING:
    from .embedded import EmbeddedProvider

LOCAL = "local"


class ConnectionSpec(msgspec.Struct, frozen=True):
    """One named OpenAI-compatible connection (or ``name == "local"`` for the embedded model)."""

    name: str = LOCAL
    base_url: str = ""
    model: str = ""
    # The key is read from this environment variable when the provider is built (never stored).
    api_key_env: str = ""
    # A key written directly into the settings (discouraged, but SillyTavern users do it).
    api_key: str = ""
    # Force a profile (openai, deepseek, openrouter, ollama, vllm, llamacpp, generic) instead of
    # guessing it from the base URL.
    profile: str = ""
    # Connect / first-byte / idle / total limits (None: the defaults of ``Timeouts``).
    timeouts: Timeouts | None = None
    # False: the whole reply in one answer (``"stream": false``), not as server-sent events.
    stream: bool = True

    @property
    def is_local(self) -> bool:
        return self.name == LOCAL and not self.base_url


def embedded_provider(local_model: str = "", timeouts: Mapping[str, float] | None = None) -> EmbeddedProvider:
    """The process-wide embedded model provider for *local_model* (a GGUF path or an embedded
    model's name; "" = the default): one worker, one loaded model, one KV cache.  *timeouts* (given
    by flag, by ``Timeouts`` name) bound its worker: ``first_byte`` the start (the model's load),
    ``idle`` the longest silence once it works."""
    # On demand: the embedded model's worker, catalog and guards are 17 modules a chat on an
    # endpoint never loads.
    from .embedded import resolve_local_model, shared_embedded_provider

    provider = shared_embedded_provider(resolve_local_model(local_model) if local_model else None)
    given = {"start": (timeouts or {}).get("first_byte"), "silence": (timeouts or {}).get("idle")}
    if any(value is not None for value in given.values()):
        provider.limits = replace(provider.limits, **{k: v for k, v in given.items() if v is not None})
    return provider


def build_provider(spec: ConnectionSpec | None, environ: Mapping[str, str] | None = None) -> Provider:
    """The provider for *spec*; the embedded model when *spec* is ``None`` or local."""
    if spec is None or spec.is_local:
        return embedded_provider()
    # Imported on use: the embedded default does not need the HTTP client.
    from .openai_compat import OpenAICompatProvider

    env = os.environ if environ is None else environ
    key = spec.api_key or (env.get(spec.api_key_env, "") if spec.api_key_env else "")
    return OpenAICompatProvider(
        spec.base_url,
        spec.model,
        key or None,
        api_key_env=spec.api_key_env or None,
        profile=spec.profile or None,
        name=spec.name if spec.name != LOCAL else None,
        timeouts=spec.timeouts,
        stream=spec.stream,
    )


def build_pair(
    main: ConnectionSpec | None,
    side: ConnectionSpec | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Provider, Provider]:
    """Main and side providers; the side one is the main one unless it names another endpoint."""
    main_provider = build_provider(main, environ)
    if side is None or side == main or (side.is_local and (main is None or main.is_local)):
        return main_provider, main_provider
    return main_provider, build_provider(side, environ)
