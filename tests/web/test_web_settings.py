"""Settings: a key typed into the page is stored 0600 in the data folder and never sent back; the
model list of a connection; the English switch; phone width."""

from __future__ import annotations

import json
import stat
import urllib.request

from web_harness import Served, beats_done, open_new_chat, screenshot, wait_ready

from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.config import load_settings

SECRET = "sk-秘密".encode().hex()


def test_key_is_stored_private_and_never_echoed(served: Served, page: object) -> None:
    page.goto(served.url + "/settings")  # type: ignore[attr-defined]
    wait_ready(page)
    row = page.locator("tr[data-connection='fake']")  # type: ignore[attr-defined]
    row.locator(".key-input").fill(SECRET)
    row.locator(".save-key").click()
    page.locator("#toast:not(.error)").wait_for()  # type: ignore[attr-defined]
    key_file = served.home.root / "keys" / "fake.key"
    assert key_file.read_text(encoding="utf-8") == SECRET
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert row.locator(".key-input").input_value() == ""
    with urllib.request.urlopen(served.url + "/api/settings", timeout=20) as response:
        body = response.read().decode("utf-8")
    assert SECRET not in body and json.loads(body)["connections"][0]["name"] == "fake"
    page.reload()  # type: ignore[attr-defined]
    wait_ready(page)
    assert SECRET not in page.content()  # type: ignore[attr-defined]

    row = page.locator("tr[data-connection='fake']")  # type: ignore[attr-defined]
    row.locator(".list-models").click()
    page.locator("#model-list li", has_text="fake-model").wait_for()  # type: ignore[attr-defined]
    screenshot(page, "settings")


def test_english_switch_and_phone_width(served: Served, page: object) -> None:
    page.set_viewport_size({"width": 390, "height": 844})  # type: ignore[attr-defined]
    page.goto(served.url + "/settings")  # type: ignore[attr-defined]
    wait_ready(page)
    assert page.locator("h1").inner_text() == "设置"  # type: ignore[attr-defined]
    page.click("#lang-switch")  # type: ignore[attr-defined]
    assert page.locator("h1").inner_text() == "Settings"  # type: ignore[attr-defined]
    page.goto(served.url + "/vault")  # type: ignore[attr-defined]
    wait_ready(page)
    assert page.locator("h1").inner_text() == "Vault"  # the choice is remembered  # type: ignore[attr-defined]
    # Nothing is wider than the phone screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # type: ignore[attr-defined]
    screenshot(page, "vault-phone-en")
    page.click("#lang-switch")  # type: ignore[attr-defined]
    assert page.locator("h1").inner_text() == "保险库"  # type: ignore[attr-defined]


def test_settings_are_saved_into_config_with_its_comments(served: Served, page: object) -> None:
    config = served.home.config_file
    before = config.read_text(encoding="utf-8")
    try:
        page.goto(served.url + "/settings")  # type: ignore[attr-defined]
        wait_ready(page)
        page.fill("#conn-name", "备用")  # type: ignore[attr-defined]
        page.fill("#conn-url", served.fake.base_url)  # type: ignore[attr-defined]
        page.click("#save-connection")  # type: ignore[attr-defined]
        page.locator("tr[data-connection='备用']").wait_for()  # type: ignore[attr-defined]
        page.fill("#user_name", "沈砚")  # type: ignore[attr-defined]
        page.fill("#scan_depth", "6")  # type: ignore[attr-defined]
        page.select_option("#side-provider", "备用")  # type: ignore[attr-defined]
        page.select_option("#side-thinking", "off")  # type: ignore[attr-defined]
        page.fill("#no-ask", "ls\ncat\ngit status")  # type: ignore[attr-defined]
        page.click("#save-settings")  # type: ignore[attr-defined]
        page.locator("#toast:not(.error)", has_text="设置已保存").wait_for()  # type: ignore[attr-defined]
        settings = load_settings(config)
        assert settings.user_name == "沈砚" and settings.scan_depth == 6
        assert settings.side().provider == "备用" and settings.side().thinking == "off"
        assert settings.sandbox.no_ask_prefixes == ("ls", "cat", "git status")
        assert settings.providers["备用"].base_url == served.fake.base_url
        text = config.read_text(encoding="utf-8")
        assert all(line in text for line in before.splitlines() if line.startswith("#"))
        # A bad value is refused with a readable message and the file stays as it was.
        saved = config.read_bytes()
        page.fill("#scan_depth", "")  # type: ignore[attr-defined]
        page.evaluate("document.getElementById('mode').innerHTML += '<option value=歌剧>歌剧</option>'")  # type: ignore[attr-defined]
        page.select_option("#mode", "歌剧")  # type: ignore[attr-defined]
        page.click("#save-settings")  # type: ignore[attr-defined]
        page.locator("#toast.error").wait_for()  # type: ignore[attr-defined]
        assert config.read_bytes() == saved
    finally:
        config.write_text(before, encoding="utf-8")


def test_personas_added_and_chosen_for_a_new_chat(served: Served, page: object) -> None:
    page.goto(served.url + "/settings")  # type: ignore[attr-defined]
    wait_ready(page)
    page.fill("#persona-new-name", "沈砚")  # type: ignore[attr-defined]
    page.fill("#persona-new-description", "落第的书生，背着一只旧书箱。")  # type: ignore[attr-defined]
    page.click("#persona-save")  # type: ignore[attr-defined]
    page.locator("#personas li[data-persona='沈砚']").wait_for()  # type: ignore[attr-defined]
    page.fill("#persona-new-name", "阿蘅")  # type: ignore[attr-defined]
    page.click("#persona-save")  # type: ignore[attr-defined]
    page.locator("#personas li[data-persona='阿蘅']").wait_for()  # type: ignore[attr-defined]
    assert (served.home.personas_dir / "沈砚.json").is_file()

    open_new_chat(page, served.url)
    page.select_option("#new-persona", "沈砚")  # type: ignore[attr-defined]
    page.click("#new-chat")  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('persona-name').textContent === '沈砚'")  # type: ignore[attr-defined]
    served.fake.script([text_reply("书生请坐。")])
    page.fill("#composer", "掌柜，借宿一晚。")  # type: ignore[attr-defined]
    page.click("#send")  # type: ignore[attr-defined]
    beats_done(page, 1)
    system = served.fake.chat_requests[-1].body["messages"][0]["content"]
    assert "沈砚" in system and "旧书箱" in system
