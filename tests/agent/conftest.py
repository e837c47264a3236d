from __future__ import annotations

from collections.abc import Iterator

import pytest

from peargarden.testing.fake_openai import FakeOpenAIServer


@pytest.fixture(scope="module")
def _shared_server() -> Iterator[FakeOpenAIServer]:
    # One server per module: stopping one waits for serve_forever's poll interval.
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def fake_server(_shared_server: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    _shared_server.requests.clear()
    yield _shared_server
    assert _shared_server.pending == 0, "a test left scripted replies unused"
