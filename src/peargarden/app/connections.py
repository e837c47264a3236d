"""Which models a chat talks to — the one place that turns settings into providers.

The main model is a connection given on the command line (``--base-url --model --api-key-env``) or
by the web app, a named one from ``config.toml``, or the embedded local model (the default when
nothing is configured).  The side model (declaration, scene notes, compaction) is ``[side_model]``
when one is configured, else the main model *as it was resolved* — so a chat started with flags has
its side calls on the same endpoint.  Both are built by :func:`connection_spec`, which carries every
field of a configured connection (its ``profile`` included) into the provider.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from peargarden.errors import ProviderError
from peargarden.providers.base import Provider
from peargarden.workspace.config import ModelSettings, Settings

if TYPE_CHECKING:  # the registry is imported on use (the openai SDK behind it is slow to import)
    from peargarden.providers.registry import ConnectionSpec

LOCAL = "local"


@dataclass(frozen=True)
class Connection:
    """A connection named on the command line (``--base-url --model --api-key-env``)."""

    base_url: str = ""
    model: str = ""
    api_key_env: str = ""


@dataclass
class ResolvedProvider:
    provider: Provider
    model: str
    embedded: bool
    # The thinking level config.toml asks for (before the embedded model forces "off").
    thinking: str = "medium"


def connection_spec(settings: Settings, model: ModelSettings) -> ConnectionSpec | None:
    """The connection *model* names in *settings*, as the providers package takes it; ``None`` for
    the embedded model."""
    from peargarden.providers.registry import ConnectionSpec

    conn = settings.provider_settings(model.provider)
    if conn is None:
        return None
    return ConnectionSpec(
        name=conn.name,
        base_url=conn.base_url,
        model=model.model,
        api_key_env=conn.api_key_env,
        api_key=conn.api_key,
        profile=conn.profile,
    )


def _build(spec: ConnectionSpec | None) -> Provider:
    from peargarden.providers.registry import build_provider

    if spec is None:
        return _embedded()
    return build_provider(spec)


def _embedded() -> Provider:
    """The embedded llama.cpp model (one per process, shared by every chat)."""
    try:
        from peargarden.providers.registry import embedded_provider

        return embedded_provider()
    except ImportError:
        raise ProviderError(
            "内置本地模型不可用：请安装可选组件（pip install -e '.[local]'），或用 --base-url/--model 指定一个模型服务"
        ) from None


def resolve_provider(settings: Settings, override: Connection | None = None) -> ResolvedProvider:
    """The main model: *override* (flags) first, then ``[model]`` of *settings*."""
    from peargarden.providers.registry import ConnectionSpec

    main = settings.main()
    if override is not None and override.base_url:
        model = override.model or (main.model if main.provider != LOCAL else "")
        given = ConnectionSpec(name="cli", base_url=override.base_url, model=model, api_key_env=override.api_key_env)
        return ResolvedProvider(_build(given), model, False, main.thinking)
    if override is not None and override.model:
        main = ModelSettings(main.provider, override.model, main.thinking)
    spec = connection_spec(settings, main)
    if spec is None:
        return ResolvedProvider(_embedded(), "", True, "off")
    return ResolvedProvider(_build(spec), main.model, False, main.thinking)


def resolve_side(settings: Settings, main: ResolvedProvider | None) -> ResolvedProvider:
    """The side model: ``[side_model]`` when configured, else *main* (the same provider object, so
    the embedded model is loaded once and a flag-given endpoint serves the side calls too); without a
    chat, *main* is ``None`` and the configured main model is resolved when needed."""
    side = settings.side()
    if settings.side_model.provider:
        spec = connection_spec(settings, side)
        if spec is None:
            return ResolvedProvider(_embedded(), "", True, "off")
        return ResolvedProvider(_build(spec), side.model, False, side.thinking)
    main = main or resolve_provider(settings)
    return ResolvedProvider(main.provider, settings.side_model.model or main.model, main.embedded, side.thinking)
