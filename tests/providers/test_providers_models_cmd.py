"""``pear models`` against the fake server, through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.cli import main
from peargarden.testing.fake_openai import FakeOpenAIServer, status


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_lists_models_of_a_base_url_as_json(
    fake_server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PEAR_TEST_KEY", " sk-pear\n")
    code, out, _ = run(
        ["models", "--base-url", fake_server.base_url, "--api-key-env", "PEAR_TEST_KEY", "--json"], capsys
    )
    assert code == 0
    assert json.loads(out)["models"] == ["fake-model", "梨园-大模型"]
    assert "梨园-大模型" in out  # non-ASCII unescaped
    assert fake_server.requests[-1].path == "/v1/models"
    assert fake_server.requests[-1].headers["authorization"] == "Bearer sk-pear"


def test_plain_listing_one_per_line(fake_server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["models", "--base-url", fake_server.base_url], capsys)
    assert code == 0
    assert out.splitlines() == ["fake-model", "梨园-大模型"]


def test_rejected_key_is_one_line_and_nonzero(
    fake_server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_server.models_reply = status(401)
    code, out, err = run(["models", "--base-url", fake_server.base_url, "--api-key-env", "NOPE_KEY"], capsys)
    assert code == 4
    assert out == ""
    assert err.count("\n") == 1 and "401" in err and "$NOPE_KEY" in err


def test_uses_the_configured_main_connection(
    fake_server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], home_dir: Path
) -> None:
    (home_dir / "config.toml").write_text(
        f'[model]\nprovider = "本地服务"\nmodel = "fake-model"\n\n'
        f'[providers."本地服务"]\nbase_url = "{fake_server.base_url}"\n',
        encoding="utf-8",
    )
    code, out, _ = run(["models", "--json"], capsys)
    assert code == 0
    assert json.loads(out) == {
        "connection": "本地服务",
        "base_url": fake_server.base_url,
        "models": ["fake-model", "梨园-大模型"],
    }


def test_nothing_configured_lists_the_embedded_models(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PEARGARDEN_MODELS", str(tmp_path))
    code, out, _ = run(["models"], capsys)
    assert code == 0
    lines = [line.split("\t") for line in out.strip().splitlines()]
    assert [line[0] for line in lines] == ["qwen-0.5b", "qwen-1.5b", "smollm2"]
    assert lines[0][1].endswith("（默认）") and all(line[2] == "未下载" for line in lines)
    code, out, _ = run(["models", "--json"], capsys)
    payload = json.loads(out)
    assert payload["connection"] == "local" and payload["models"] == ["qwen-0.5b", "qwen-1.5b", "smollm2"]
    assert [row["fetched"] for row in payload["embedded"]] == [False, False, False]


def test_fetch_of_an_unknown_embedded_model_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["models", "--fetch", "qwen-70b"], capsys)
    assert code == 2 and "qwen-70b" in err and "qwen-0.5b" in err and len(err.strip().splitlines()) == 1


def test_non_ascii_key_is_a_clear_error(
    fake_server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PEAR_TEST_KEY", "sk-梨园")
    code, _, err = run(["models", "--base-url", fake_server.base_url, "--api-key-env", "PEAR_TEST_KEY"], capsys)
    assert code == 4 and "非 ASCII" in err and "$PEAR_TEST_KEY" in err
