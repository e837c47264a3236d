"""Settings: a key typed into the page is stored 0600 in the data folder and never sent back; the
model list of a connection; the English switch; phone width."""

from __future__ import annotations

import json
import stat
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import Served, beats_done, open_new_chat, screenshot, wait_ready

from kit.fake_llama import fake_fetched
from peargarden.providers.model_catalog import QWEN_05B, QWEN_15B
from peargarden.providers.model_choice import Choice, Speed, write_choice
from peargarden.providers.runtime_record import machine_identity
from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.config import load_settings

if TYPE_CHECKING:
    from playwright.sync_api import Page

SECRET = "sk-秘密".encode().hex()


def test_key_is_stored_private_and_never_echoed(served: Served, page: Page) -> None:
    page.goto(served.url + "/settings")
    wait_ready(page)
    row = page.locator("tr[data-connection='fake']")
    row.locator(".key-input").fill(SECRET)
    row.locator(".save-key").click()
    page.locator("#toast:not(.error)").wait_for()
    key_file = served.home.root / "keys" / "fake.key"
    assert key_file.read_text(encoding="utf-8") == SECRET
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert row.locator(".key-input").input_value() == ""
    with urllib.request.urlopen(served.url + "/api/settings", timeout=20) as response:
        body = response.read().decode("utf-8")
    assert SECRET not in body and json.loads(body)["connections"][0]["name"] == "fake"
    page.reload()
    wait_ready(page)
    assert SECRET not in page.content()

    row = page.locator("tr[data-connection='fake']")
    row.locator(".list-models").click()
    page.locator("#model-list li", has_text="fake-model").wait_for()
    screenshot(page, "settings")


def test_english_switch_and_phone_width(served: Served, page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(served.url + "/settings")
    wait_ready(page)
    assert page.locator("h1").inner_text() == "设置"
    page.click("#lang-switch")
    assert page.locator("h1").inner_text() == "Settings"
    page.goto(served.url + "/vault")
    wait_ready(page)
    assert page.locator("h1").inner_text() == "Vault"  # the choice is remembered
    # Nothing is wider than the phone screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "vault-phone-en")
    page.click("#lang-switch")
    assert page.locator("h1").inner_text() == "保险库"


def test_settings_are_saved_into_config_with_its_comments(served: Served, page: Page) -> None:
    config = served.home.config_file
    before = config.read_text(encoding="utf-8")
    try:
        page.goto(served.url + "/settings")
        wait_ready(page)
        page.fill("#conn-name", "备用")
        page.fill("#conn-url", served.fake.base_url)
        page.click("#save-connection")
        page.locator("tr[data-connection='备用']").wait_for()
        page.fill("#user_name", "沈砚")
        page.fill("#scan_depth", "6")
        page.select_option("#side-provider", "备用")
        page.select_option("#side-thinking", "off")
        page.fill("#no-ask", "ls\ncat\ngit status")
        page.click("#save-settings")
        page.locator("#toast:not(.error)", has_text="设置已保存").wait_for()
        settings = load_settings(config)
        assert settings.user_name == "沈砚" and settings.scan_depth == 6
        assert settings.side().provider == "备用" and settings.side().thinking == "off"
        assert settings.sandbox.no_ask_prefixes == ("ls", "cat", "git status")
        assert settings.providers["备用"].base_url == served.fake.base_url
        text = config.read_text(encoding="utf-8")
        assert all(line in text for line in before.splitlines() if line.startswith("#"))
        # A bad value is refused with a readable message and the file stays as it was.
        saved = config.read_bytes()
        page.fill("#scan_depth", "")
        page.evaluate("document.getElementById('mode').innerHTML += '<option value=歌剧>歌剧</option>'")
        page.select_option("#mode", "歌剧")
        page.click("#save-settings")
        page.locator("#toast.error").wait_for()
        assert config.read_bytes() == saved
    finally:
        config.write_text(before, encoding="utf-8")


def test_personas_added_and_chosen_for_a_new_chat(served: Served, page: Page) -> None:
    page.goto(served.url + "/settings")
    wait_ready(page)
    page.fill("#persona-new-name", "沈砚")
    page.fill("#persona-new-description", "落第的书生，背着一只旧书箱。")
    page.click("#persona-save")
    page.locator("#personas li[data-persona='沈砚']").wait_for()
    page.fill("#persona-new-name", "阿蘅")
    page.click("#persona-save")
    page.locator("#personas li[data-persona='阿蘅']").wait_for()
    assert (served.home.personas_dir / "沈砚.json").is_file()

    open_new_chat(page, served.url)
    page.select_option("#new-persona", "沈砚")
    page.click("#new-chat")
    page.wait_for_function("document.getElementById('persona-name').textContent === '沈砚'")
    served.fake.script([text_reply("书生请坐。")])
    page.fill("#composer", "掌柜，借宿一晚。")
    page.click("#send")
    beats_done(page, 1)
    system = served.fake.chat_requests[-1].body["messages"][0]["content"]
    assert "沈砚" in system and "旧书箱" in system


def test_the_embedded_model_is_switched_on_the_settings_page(
    served: Served, page: Page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 49, item 1: the page shows which packaged model the set-up chose for this machine and
    why, and lets the user pick another (written to ``[model] local_path``) or go back to the choice."""
    models = tmp_path / "models"
    monkeypatch.setenv("PEARGARDEN_MODELS", str(models))
    fake_fetched(models, QWEN_05B)
    fake_fetched(models, QWEN_15B)
    line = "内置模型选用 qwen-1.5b：qwen-1.5b 12.1 tok/s、首句约 7.9 秒，够快"
    machine = str(machine_identity()["flags_sha"])
    write_choice(Choice("qwen-1.5b", line, [Speed("qwen-1.5b", 61.0, 12.1)], machine), models)
    config = served.home.config_file
    before = config.read_text(encoding="utf-8")
    try:
        page.goto(served.url + "/settings")
        wait_ready(page)
        assert page.locator("#model-choice").inner_text() == line
        assert page.locator("#model-local").input_value() == ""  # automatic: the set-up's choice
        assert "qwen-1.5b" in page.locator("#model-local option[value='']").inner_text()
        assert page.locator("#model-local option[value='smollm2']").is_disabled()  # not fetched
        page.select_option("#model-local", "qwen-0.5b")
        page.click("#save-settings")
        page.locator("#toast:not(.error)", has_text="设置已保存").wait_for()
        assert load_settings(config).main().local_path == "qwen-0.5b"
        assert page.locator("#model-local").input_value() == "qwen-0.5b"
        page.evaluate("document.getElementById('toast').hidden = true")  # the next save shows it again
        page.select_option("#model-local", "")
        page.click("#save-settings")
        page.locator("#toast:not(.error)", has_text="设置已保存").wait_for()
        assert load_settings(config).main().local_path == ""
    finally:
        config.write_text(before, encoding="utf-8")
