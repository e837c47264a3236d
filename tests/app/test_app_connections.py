"""One connection builder for the main and the side model (app/connections.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, resolve_provider, resolve_side
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.config import parse_settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


def test_a_named_profile_reaches_the_main_chat_behind_a_neutral_url(home: Home) -> None:
    with FakeOpenAIServer() as fake:
        # A loopback URL looks like no particular server; the connection says it is DeepSeek.
        home.config_file.write_text(
            f'[model]\nprovider = "x"\nmodel = "deepseek-chat"\nthinking = "high"\n'
            f'[providers.x]\nbase_url = "{fake.base_url}"\napi_key = "sk-test"\nprofile = "deepseek"\n',
            encoding="utf-8",
        )
        fake.script([text_reply("青梧抬眼。")])
        list(PearApp(home, story_memory=False).new_chat("青梧").send("掌柜好。"))
        body = fake.chat_requests[0].body
    assert body["thinking"] == {"type": "enabled"}  # DeepSeek's switch, not the generic reasoning_effort
    assert "reasoning_effort" not in body


def test_the_side_model_is_built_like_the_main_one_and_follows_it_when_none_is_set() -> None:
    settings = parse_settings(
        '[model]\nprovider = "x"\nmodel = "deepseek-chat"\n[side_model]\nprovider = "x"\nmodel = "deepseek-reasoner"\n'
        '[providers.x]\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "sk"\nprofile = "deepseek"\n'
    )
    main = resolve_provider(settings)
    side = resolve_side(settings, main)
    assert side.model == "deepseek-reasoner" and side.provider is not main.provider
    assert side.provider.profile.name == main.provider.profile.name == "deepseek"
    # No [side_model]: the side calls go where the chat's own model goes, flags included.
    flagged = resolve_provider(parse_settings(""), Connection("http://127.0.0.1:9/v1", "m"))
    follows = resolve_side(parse_settings(""), flagged)
    assert follows.provider is flagged.provider and follows.model == "m" and not follows.embedded


def test_pear_chat_with_base_url_flags_keeps_story_memory_with_that_model(home: Home) -> None:
    from peargarden.cli import main

    with FakeOpenAIServer() as fake:
        fake.script([text_reply("周伯放下算盘：「客官请坐。」"), text_reply('{"patch": {"location": "听雨轩"}}')])
        main(["--home", str(home.root), "chat", "--once", "推门进去。", "--card", "青梧",
              "--base-url", fake.base_url, "--model", "m"])  # fmt: skip
        requests = fake.chat_requests
    assert len(requests) == 2  # the beat, then the scene notes on the same endpoint
    assert "推门进去" in str(requests[1].body["messages"])


def test_timeouts_come_from_the_connection_and_a_flag_wins(home: Home) -> None:
    """Issue 18, point 5: the limits are set per connection in config.toml and per run by flag; a
    silent endpoint is given up on at the limit that applies, with the limit in the message."""
    from kit.cli import pear_in_process

    with FakeOpenAIServer() as fake:
        late = text_reply("迟到了")
        late.delay = 30.0  # far past every limit below: only a limit ends the wait
        fake.default_reply = late
        home.config_file.write_text(
            f'[model]\nprovider = "x"\nmodel = "m"\n'
            f'[providers.x]\nbase_url = "{fake.base_url}"\napi_key = "sk"\n'
            "first_byte_timeout = 0.4\ntotal_timeout = 1.5\n",
            encoding="utf-8",
        )
        args = ["chat", "--once", "掌柜在吗？", "--card", "青梧", "--thinking", "off"]
        started = time.monotonic()
        configured = pear_in_process(home.root, *args)
        configured_seconds = time.monotonic() - started
        started = time.monotonic()
        flagged = pear_in_process(home.root, *args, "--total-timeout", "2.5")
        flagged_seconds = time.monotonic() - started
        home.config_file.write_text(
            home.config_file.read_text(encoding="utf-8").replace("total_timeout = 1.5", "total_timeout = -1"),
            encoding="utf-8",
        )
        refused = pear_in_process(home.root, *args)
    assert configured.returncode != 0 and "1.5 秒" in configured.stderr, configured.stderr
    assert flagged.returncode != 0 and "2.5 秒" in flagged.stderr and "1.5 秒" not in flagged.stderr, flagged.stderr
    assert configured_seconds < 20 and flagged_seconds < 20  # generous on a loaded machine; the reply takes 30
    assert refused.returncode == 2 and "providers.x.total_timeout" in refused.stderr
    assert len([line for line in refused.stderr.splitlines() if line.strip()]) == 1
