"""Fixtures for provider tests: a fake OpenAI-compatible server and providers pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from peargarden.providers.openai_compat import OpenAICompatProvider, RetryPolicy
from peargarden.testing.fake_openai import FakeOpenAIServer


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=("fake-model", "梨园-大模型")) as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    """Backoff waits the provider asked for (recorded instead of slept)."""
    return []


@pytest.fixture
def make_provider(fake_server: FakeOpenAIServer, sleeps: list[float]) -> Iterator[Callable[..., OpenAICompatProvider]]:
    made: list[OpenAICompatProvider] = []

    def make(**options: Any) -> OpenAICompatProvider:
        options.setdefault("model", "fake-model")
        options.setdefault("sleep", sleeps.append)
        options.setdefault("retry", RetryPolicy(attempts=3, base_delay=0.5))
        options.setdefault("timeout", 5.0)
        provider = OpenAICompatProvider(options.pop("base_url", fake_server.base_url), **options)
        made.append(provider)
        return provider

    yield make
    for provider in made:
        provider.close()
