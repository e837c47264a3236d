"""The side model follows the main one by default: saving the settings page keeps it that way, a
blank model on the main connection means the main model, and config.toml stays readable."""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING

from web_harness import Served, screenshot, wait_ready

from peargarden.workspace.config import Settings, load_settings, parse_settings

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_blank_side_fields_follow_the_main_model() -> None:
    settings = parse_settings(
        '[model]\nprovider = "deepseek"\nmodel = "deepseek-chat"\nthinking = "medium"\n'
        '[side_model]\nprovider = "deepseek"\nmodel = ""\nthinking = ""\n'
        '[providers.deepseek]\nbase_url = "https://example.invalid/v1"\n'
        '[providers.other]\nbase_url = "https://other.invalid/v1"\n'
    )
    side = settings.side()
    assert (side.provider, side.model, side.thinking) == ("deepseek", "deepseek-chat", "medium")
    default = Settings()
    assert default.side().provider == default.main().provider
    # Another connection with the model left blank: that connection's default model, not the main's.
    other = parse_settings(
        '[model]\nprovider = "deepseek"\nmodel = "deepseek-chat"\n[side_model]\nprovider = "other"\n'
        '[providers.deepseek]\nbase_url = "https://example.invalid/v1"\n'
        '[providers.other]\nbase_url = "https://other.invalid/v1"\n'
    )
    assert other.side().provider == "other" and other.side().model == ""


def test_saving_the_page_keeps_follow_the_main_model(served: Served, page: Page) -> None:
    config = served.home.config_file
    before = config.read_text(encoding="utf-8")
    try:
        for width, height in ((1280, 800), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.goto(served.url + "/settings")
            wait_ready(page)
            assert page.input_value("#side-provider") == ""
            assert "跟随主模型" in page.locator("#side-provider option").first.inner_text()
            assert "fake-model" in (page.get_attribute("#side-model", "placeholder") or "")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            screenshot(page, f"settings-side-{width}")
        page.fill("#blacklist", "\\brm\\s+-rf\\b\nit's\n--no-preserve-root")
        page.click("#save-settings")
        page.locator("#toast:not(.error)").wait_for()
        settings = load_settings(config)
        assert settings.side_model.provider == "" and settings.side_model.model == ""
        assert (settings.side().provider, settings.side().model) == ("fake", "fake-model")
        # The same connection with the model left blank: the main model, not "no model".
        page.select_option("#side-provider", "fake")
        page.click("#save-settings")
        page.locator("#toast:not(.error)").last.wait_for()
        page.wait_for_function("document.getElementById('side-provider').value === 'fake'")
        settings = load_settings(config)
        assert (settings.side().provider, settings.side().model) == ("fake", "fake-model")
        # The sandbox list is written one item a line, regexes as typed (literal strings).
        text = config.read_text(encoding="utf-8")
        assert "blacklist = [\n  '\\brm\\s+-rf\\b',\n  \"it's\",\n  '--no-preserve-root',\n]" in text
        assert tomllib.loads(text)["sandbox"]["blacklist"] == ["\\brm\\s+-rf\\b", "it's", "--no-preserve-root"]
    finally:
        config.write_text(before, encoding="utf-8")
