"""Which model a chat talks to: a connection given on the command line, a named one from
``config.toml``, or the embedded local model (the default when nothing is configured).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from peargarden.errors import ProviderError
from peargarden.providers.base import Provider, Timeouts
from peargarden.workspace.config import Settings

LOCAL = "local"


@dataclass(frozen=True)
class Connection:
    """A connection named on the command line (``--base-url --model --api-key-env``)."""

    base_url: str = ""
    model: str = ""
    api_key_env: str = ""
    # Timeout limits given by flag (``connect``, ``first_byte``, ``idle``, ``total`` → seconds);
    # they win over the connection's own in config.toml.
    timeouts: dict[str, float] = field(default_factory=dict)


@dataclass
class ResolvedProvider:
    provider: Provider
    model: str
    embedded: bool
    # The thinking level config.toml asks for (before the embedded model forces "off").
    thinking: str = "medium"


def _openai(
    base_url: str, model: str, api_key_env: str, api_key: str = "", name: str = "", timeouts: Timeouts | None = None
) -> Provider:
    from peargarden.providers.registry import ConnectionSpec, build_provider

    spec = ConnectionSpec(
        name=name or "cli", base_url=base_url, model=model, api_key_env=api_key_env, api_key=api_key, timeouts=timeouts
    )
    return build_provider(spec)


def _timeouts(configured: dict[str, float], override: Connection | None) -> Timeouts:
    flags = override.timeouts if override is not None else {}
    return replace(Timeouts(), **{**configured, **flags})


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
    main = settings.main()
    if override is not None and override.base_url:
        model = override.model or (main.model if main.provider != LOCAL else "")
        provider = _openai(override.base_url, model, override.api_key_env, timeouts=_timeouts({}, override))
        return ResolvedProvider(provider, model, False, main.thinking)
    if main.provider == LOCAL:
        return ResolvedProvider(_embedded(), "", True, "off")
    conn = settings.provider_settings(main.provider)
    assert conn is not None
    model = (override.model if override and override.model else "") or main.model
    limits = _timeouts(conn.timeouts, override)
    provider = _openai(conn.base_url, model, conn.api_key_env, conn.api_key, main.provider, limits)
    return ResolvedProvider(provider, model, False, main.thinking)
