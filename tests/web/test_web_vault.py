"""The vault page: take snapshots, see what changed, restore one (a deleted lorebook comes back)."""

from __future__ import annotations

from web_harness import Served, screenshot, wait_ready


def test_restore_a_snapshot_brings_a_deleted_book_back(served: Served, page: object) -> None:
    book = served.home.lorebooks_dir / "栖水镇.json"
    original = book.read_bytes()
    page.on("dialog", lambda dialog: dialog.accept())  # type: ignore[attr-defined]
    page.goto(served.url + "/vault")  # type: ignore[attr-defined]
    wait_ready(page)
    page.click("#snapshot-now")  # type: ignore[attr-defined]
    rows = page.locator("#snapshot-rows tr[data-id]")  # type: ignore[attr-defined]
    rows.first.wait_for()
    good = rows.first.get_attribute("data-id")

    book.unlink()  # the accident the vault is there for
    page.click("#snapshot-now")  # type: ignore[attr-defined]
    page.wait_for_function("document.querySelectorAll('#snapshot-rows tr[data-id]').length === 2")  # type: ignore[attr-defined]
    older = page.locator(f"#snapshot-rows tr[data-id='{good}']")  # type: ignore[attr-defined]
    older.locator("button.diff").click()
    removed = page.locator(".vault-change.removed")  # type: ignore[attr-defined]
    removed.first.wait_for()
    assert any("library/lorebooks/栖水镇.json" in text for text in removed.all_inner_texts())
    screenshot(page, "vault")

    older.locator("button.restore").click()
    page.locator("#toast:not(.error)", has_text="已恢复").wait_for()  # type: ignore[attr-defined]
    assert book.read_bytes() == original
    # The state just before the restore (the newest snapshot) is still there to go back to.
    assert rows.count() == 2
