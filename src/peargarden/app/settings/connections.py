"""Which models a chat talks to — the one place that turns settings into providers.

The main model is a connection given on the command line (``--base-url --model --api-key-env``) or
by the web app, a named one from ``config.toml``, or the embedded local model (the default when
nothing is configured).  The side model (declaration, scene notes, compaction) is ``[side_model]``
when one is configured, else the main model *as it was resolved* — so a chat started with flags has
its side calls on the same endpoint.  Both are built by :func:`connection_spec`, which carries every
field of a configured connection (its ``profile`` included) into the provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from msgspec.structs import replace

from peargarden.errors import PearError, ProviderError
from peargarden.providers.base import Provider, Timeouts
from peargarden.providers.registry import ConnectionSpec, build_provider, embedded_provider
from peargarden.providers.sampled import SampledProvider
from peargarden.workspace.config import ModelSettings, Settings, timeout_seconds

if TYPE_CHECKING:  # the registry is imported on use: a command that talks to no model never loads it
    from peargarden.providers.registry import ConnectionSpec

LOCAL = "local"


class Connection(msgspec.Struct, frozen=True):
    """A connection named on the command line (``--base-url --model --api-key-env``)."""

    base_url: str = ""
    model: str = ""
    api_key_env: str = ""
    # ``--local-model``: a GGUF path or an embedded model's name, run in-process.
    local_model: str = ""
    # Timeout limits given by flag, as (limit, seconds) pairs (``connect``, ``first_byte``, ``idle``,
    # ``total``); they win over the connection's own in config.toml.
    timeouts: tuple[tuple[str, float], ...] = ()


class ResolvedProvider(msgspec.Struct):
    provider: Provider
    model: str
    embedded: bool
    # The thinking level config.toml asks for (before the embedded model forces "off").
    thinking: str = "medium"
    # A local model under a few billion parameters (read from its GGUF header).
    small_model: bool = False


def connection_spec(settings: Settings, model: ModelSettings) -> ConnectionSpec | None:
    """The connection *model* names in *settings*, as the providers package takes it; ``None`` for
    the embedded model."""

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
        timeouts=replace(Timeouts(), **conn.timeouts),
        stream=conn.stream,
    )


def flag_timeouts(flags: dict[str, float | None]) -> tuple[tuple[str, float], ...]:
    """Timeout limits given by flag (``connect``, ``first_byte``, ``idle``, ``total``; None = not
    given), checked, as :attr:`Connection.timeouts` takes them."""

    return tuple(
        (name, timeout_seconds(f"--{name.replace('_', '-')}-timeout", value))
        for name, value in flags.items()
        if value is not None
    )


def _timeouts(spec: ConnectionSpec, override: Connection | None) -> ConnectionSpec:
    """*spec* with the limits given by flag (``--first-byte-timeout`` …) over its configured ones."""
    if override is None or not override.timeouts:
        return spec
    return replace(spec, timeouts=replace(spec.timeouts or Timeouts(), **dict(override.timeouts)))


def _build(spec: ConnectionSpec | None) -> Provider:

    if spec is None:
        return _embedded()
    return build_provider(spec)


def _embedded(local_model: str = "", override: Connection | None = None) -> Provider:
    """The embedded llama.cpp model (one worker per process and GGUF, shared by every chat).

    *local_model* (``--local-model`` or ``[model] local_path``) is a GGUF path or an embedded
    model's name; its header is checked here, so a wrong file is one line before any chat starts.
    ``--first-byte-timeout`` / ``--idle-timeout`` bound its worker's start and silences.
    """
    try:
        provider = embedded_provider(local_model, dict(override.timeouts) if override is not None else None)
        if local_model:
            provider.traits()
        return provider
    except ImportError:
        raise ProviderError(
            "内置本地模型不可用：它的运行时没有安装，或换一个模型服务",
            hint="pip install -e '.[local]'，或用 --base-url/--model 指定一个模型服务",
            fix="embedded",
        ) from None


def _local(local_model: str, override: Connection | None = None) -> ResolvedProvider:
    provider = _embedded(local_model, override)
    traits = getattr(provider, "traits", None)
    try:
        small = bool(traits().small) if traits is not None else True
    except PearError:
        # No model fetched yet: the beat reports that itself; every model we ship is small.
        small = True
    return ResolvedProvider(provider, "", True, "off", small)


def resolve_provider(settings: Settings, override: Connection | None = None) -> ResolvedProvider:
    """The main model: *override* (flags) first, then ``[model]`` of *settings*."""

    main = settings.main()
    if override is not None and override.local_model:
        return _local(override.local_model, override)
    if override is not None and override.base_url:
        model = override.model or (main.model if main.provider != LOCAL else "")
        given = ConnectionSpec(name="cli", base_url=override.base_url, model=model, api_key_env=override.api_key_env)
        return ResolvedProvider(_build(_timeouts(given, override)), model, False, main.thinking)
    if override is not None and override.model:
        main = ModelSettings(main.provider, override.model, main.thinking, main.local_path)
    spec = connection_spec(settings, main)
    if spec is None:
        return _local(main.local_path, override)

    # The connection's pinned samplers (``[providers.<name>.sampler]``); always wrapped, even with
    # no values yet, so a change made while chats are open reaches them.  Side calls are not wrapped:
    # they set their own limits (a long declaration must not get a short max_tokens).
    conn = settings.provider_settings(main.provider)
    sampler = conn.sampler if conn is not None else {}
    provider = SampledProvider(_build(_timeouts(spec, override)), sampler, main.provider)
    return ResolvedProvider(provider, main.model, False, main.thinking)


def resolve_side(settings: Settings, main: ResolvedProvider | None) -> ResolvedProvider:
    """The side model: ``[side_model]`` when configured, else *main* (the same provider object, so
    the embedded model is loaded once and a flag-given endpoint serves the side calls too); without a
    chat, *main* is ``None`` and the configured main model is resolved when needed."""
    side = settings.side()
    if settings.side_model.provider:
        spec = connection_spec(settings, side)
        if spec is None:  # the local model: the main one's GGUF, so it is loaded once
            return _local(settings.main().local_path)
        return ResolvedProvider(_build(spec), side.model, False, side.thinking)
    main = main or resolve_provider(settings)
    return ResolvedProvider(main.provider, settings.side_model.model or main.model, main.embedded, side.thinking)
