"""Cards from the home page in Chromium: create from scratch, export PNG / JSON / CHARX, rename, a new
avatar, duplicate, delete into the vault and undo."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from PIL import Image
from web_harness import LiveServer, screenshot, screenshots, wait_ready

from peargarden.formats import read_card
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Page


def tile(page: Page, folder: str) -> object:
    return page.locator(f".card-tile[data-folder='{folder}']")


def open_menu(page: Page, folder: str) -> object:
    found = tile(page, folder)
    found.locator(".card-menu summary").click()  # type: ignore[attr-defined]
    return found


def test_create_export_rename_and_avatar(live_server: LiveServer, seeded_home: Home, page: Page,
                                         tmp_path: Path) -> None:  # fmt: skip
    page.goto(live_server.base_url + "/")
    wait_ready(page)
    page.click("#new-card summary")
    page.fill("#new-card-name", "砚台")
    page.fill("#new-card-description", "书铺里的老掌柜，话少。")
    page.fill("#new-card-first", "*砚台抬头*：“买书还是卖书？”")
    page.click("#new-card-save")
    page.wait_for_url("**/chat/*")
    page.click("#start-chat")
    page.wait_for_url("**/chat/*/*")
    wait_ready(page)
    assert page.locator(".msg.assistant .md q", has_text="买书还是卖书").count() == 1

    page.goto(live_server.base_url + "/")
    wait_ready(page)
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        open_menu(page, "砚台")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        screenshot(page, f"cards-menu-{width}")
        tile(page, "砚台").locator(".card-menu summary").click()  # type: ignore[attr-defined]
    open_menu(page, "砚台")
    for kind in ("png", "json", "charx"):
        with page.expect_download() as info:
            tile(page, "砚台").locator(f".export-{kind}").click()  # type: ignore[attr-defined]
        data = Path(info.value.path()).read_bytes()
        card = read_card(data, f"砚台.{kind}")
        assert card.name == "砚台" and card.data["description"] == "书铺里的老掌柜，话少。"
        assert info.value.suggested_filename == f"砚台.{kind}"

    chat_id = next((seeded_home.card_dir("砚台") / "chats").iterdir()).name
    page.once("dialog", lambda dialog: dialog.accept("砚台先生"))
    tile(page, "砚台").locator(".card-rename").click()  # type: ignore[attr-defined]
    page.locator(".card-name", has_text="砚台先生").wait_for()
    # The folder follows the name (its chat with it); the old links lead to the new pages.
    folder = seeded_home.card_dir("砚台先生")
    assert not seeded_home.card_dir("砚台").exists() and (folder / "chats" / chat_id).is_dir()
    assert read_card((folder / "砚台先生.png").read_bytes(), "砚台先生.png").name == "砚台先生"
    page.goto(f"{live_server.base_url}/chat/{quote('砚台')}/{chat_id}")
    wait_ready(page)
    assert page.url.endswith(f"/chat/{quote('砚台先生')}/{chat_id}")
    assert page.title().startswith("砚台先生")
    page.goto(live_server.base_url + "/")
    wait_ready(page)

    picture = tmp_path / "红.jpg"
    Image.new("RGB", (40, 60), (200, 30, 30)).save(picture, format="JPEG")
    open_menu(page, "砚台先生")
    with page.expect_navigation():
        tile(page, "砚台先生").locator(".card-avatar input").set_input_files(str(picture))  # type: ignore[attr-defined]
    wait_ready(page)
    stored = (folder / "砚台先生.png").read_bytes()
    assert read_card(stored, "砚台先生.png").name == "砚台先生"  # the card survives the new picture
    with Image.open(io.BytesIO(stored)) as image:
        assert image.size == (40, 60) and image.convert("RGB").getpixel((20, 30))[0] > 150  # type: ignore[index]
    # Not a picture: refused, the card file unchanged.
    bogus = tmp_path / "不是图.png"
    bogus.write_text("not a picture", encoding="utf-8")
    open_menu(page, "砚台先生")
    tile(page, "砚台先生").locator(".card-avatar input").set_input_files(str(bogus))  # type: ignore[attr-defined]
    page.locator("#toast.error", has_text="不是能读的图片").wait_for()
    assert (folder / "砚台先生.png").read_bytes() == stored


def test_duplicate_delete_and_undo(live_server: LiveServer, seeded_home: Home, page: Page) -> None:
    import json
    import urllib.request

    request = urllib.request.Request(f"{live_server.base_url}/api/chats/%E9%9D%92%E6%A2%A7", data=b"{}",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    urllib.request.urlopen(request, timeout=20).read()
    page.goto(live_server.base_url + "/")
    wait_ready(page)
    open_menu(page, "青梧")
    with page.expect_navigation():
        tile(page, "青梧").locator(".card-duplicate").click()  # type: ignore[attr-defined]
    wait_ready(page)
    copy = seeded_home.card_dir("青梧-2")
    assert (copy / "青梧-2.png").is_file() and not (copy / "chats").exists()
    assert "0 个对话" in tile(page, "青梧-2").inner_text()  # type: ignore[attr-defined]
    assert "1 个对话" in tile(page, "青梧").inner_text()  # type: ignore[attr-defined]

    page.once("dialog", lambda dialog: dialog.accept())
    open_menu(page, "青梧")
    tile(page, "青梧").locator(".card-delete").click()  # type: ignore[attr-defined]
    page.locator("#card-removed").wait_for()
    assert not seeded_home.card_dir("青梧").exists()
    with urllib.request.urlopen(f"{live_server.base_url}/api/cards", timeout=20) as response:
        assert "青梧" not in [c["folder"] for c in json.loads(response.read())]
    screenshots(page, "cards-deleted")
    with page.expect_navigation():
        page.click("#card-undo")
    wait_ready(page)
    assert (seeded_home.card_dir("青梧") / "青梧.png").is_file()
    assert "1 个对话" in tile(page, "青梧").inner_text()  # type: ignore[attr-defined]
