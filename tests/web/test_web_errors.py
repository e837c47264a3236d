"""Errors carry their HTTP status (beside their exit code): the web maps none by class name."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from web_harness import LiveServer

from peargarden.errors import BadInput, ConflictError, FormatError, NotFound, PearError, ProviderError
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


class ChatGone(NotFound):
    """A subclass the web knows nothing about (the old name lookup answered it with 400)."""


@pytest.mark.parametrize(
    ("error", "status"),
    [(PearError, 400), (BadInput, 400), (FormatError, 400), (NotFound, 404), (ChatGone, 404),
     (ConflictError, 409), (ProviderError, 502)],
)  # fmt: skip
def test_each_error_class_says_its_status(error: type[PearError], status: int) -> None:
    assert error("坏了").http_status == status


def test_a_failing_model_endpoint_answers_502_with_a_readable_line(home_dir: Path) -> None:
    home = Home(home_dir)
    seed_home(home)
    # A key that cannot go into an HTTP header fails before any network call, as a ProviderError.
    home.config_file.write_text(
        '[model]\nprovider = "远端"\nmodel = "m"\n\n[providers."远端"]\nbase_url = "http://127.0.0.1:9/v1"\n'
        'api_key = "密钥"\n',
        encoding="utf-8",
    )
    with LiveServer(home) as server:
        try:
            urllib.request.urlopen(server.base_url + "/api/settings/models", timeout=30)
        except urllib.error.HTTPError as error:
            status, body = error.code, json.loads(error.read().decode("utf-8"))
        else:
            pytest.fail("the model list of a broken connection succeeded")
    assert status == 502 and "API 密钥" in body["error"]

