"""Settings: a key typed into the page is stored 0600 in the data folder and never sent back; the
model list of a connection; the English switch; phone width."""

from __future__ import annotations

import json
import stat
import urllib.request

from web_harness import Served, screenshot, wait_ready

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
