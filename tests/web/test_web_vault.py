"""The vault page: take snapshots, see what changed, restore one (a deleted lorebook comes back)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from web_harness import Served, screenshot, wait_ready

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_restore_a_snapshot_brings_a_deleted_book_back(served: Served, page: Page) -> None:
    book = served.home.lorebooks_dir / "栖水镇.json"
    original = book.read_bytes()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(served.url + "/vault")
    wait_ready(page)
    page.click("#snapshot-now")
    rows = page.locator("#snapshot-rows tr[data-id]")
    rows.first.wait_for()
    good = rows.first.get_attribute("data-id")

    book.unlink()  # the accident the vault is there for
    page.click("#snapshot-now")
    page.wait_for_function("document.querySelectorAll('#snapshot-rows tr[data-id]').length === 2")
    older = page.locator(f"#snapshot-rows tr[data-id='{good}']")
    older.locator("button.diff").click()
    removed = page.locator(".vault-change.removed")
    removed.first.wait_for()
    assert any("library/lorebooks/栖水镇.json" in text for text in removed.all_inner_texts())
    screenshot(page, "vault")

    older.locator("button.restore").click()
    page.locator("#toast:not(.error)", has_text="已恢复").wait_for()
    assert book.read_bytes() == original
    # The state just before the restore (the newest snapshot) is still there to go back to.
    assert rows.count() == 2
