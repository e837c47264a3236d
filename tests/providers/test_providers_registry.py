"""Building providers from connection values."""

from __future__ import annotations

from peargarden.providers.embedded import EmbeddedProvider
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.providers.registry import ConnectionSpec, build_pair, build_provider, embedded_provider


def test_nothing_configured_means_the_shared_embedded_model() -> None:
    provider = build_provider(None)
    assert isinstance(provider, EmbeddedProvider)
    assert build_provider(ConnectionSpec()) is provider is embedded_provider()


def test_named_connection_reads_its_key_from_the_environment() -> None:
    spec = ConnectionSpec("深度求索", "https://api.deepseek.com/v1", "deepseek-chat", api_key_env="DS_KEY")
    provider = build_provider(spec, environ={"DS_KEY": "sk-秘密"})
    assert isinstance(provider, OpenAICompatProvider)
    assert (provider.name, provider.model, provider.api_key) == ("深度求索", "deepseek-chat", "sk-秘密")
    assert provider.profile.name == "deepseek"


def test_profile_can_be_forced() -> None:
    spec = ConnectionSpec("box", "http://10.0.0.5:8000/v1", "qwen3", profile="vllm")
    provider = build_provider(spec, environ={})
    assert isinstance(provider, OpenAICompatProvider) and provider.profile.name == "vllm"
    assert provider.api_key is None


def test_side_model_defaults_to_the_main_provider() -> None:
    main = ConnectionSpec("a", "http://127.0.0.1:9/v1", "big")
    first, second = build_pair(main, None, environ={})
    assert first is second
    first, second = build_pair(main, ConnectionSpec("a", "http://127.0.0.1:9/v1", "small"), environ={})
    assert first is not second
    assert isinstance(second, OpenAICompatProvider) and second.model == "small"
    local_main, local_side = build_pair(None, ConnectionSpec())
    assert local_main is local_side
