"""The character list in Chromium with many cards: search as you type (CJK, full-width), sort, a tag,
favourites, your own tags — and at a phone's width (390 px) nothing reaches past the screen."""

from __future__ import annotations

from typing import Any

import pytest
from web_harness import LiveServer, wait_ready

from kit.workspace import card_png, v2_card
from peargarden.workspace.home import Home

LONG = "栖水镇东头那间临河的客栈里的说书先生" * 4


@pytest.fixture
def many(seeded_home: Home) -> Home:
    for number in range(40):
        name = f"说书人{number:02d}" if number % 4 else f"江湖客{number:02d}{LONG if number == 8 else ''}"
        tags = ["江南"] if number % 3 == 0 else ["奇幻", f"标签{number % 5}"]
        folder = seeded_home.card_dir(name)
        folder.mkdir(parents=True)
        card = v2_card(name, tags=tags, creator="阿梨" if number % 2 else "pear",
                       creator_notes="ＦＡＮＴＡＳＹ 长篇" if number == 7 else "短篇。")  # fmt: skip
        (folder / f"{name}.png").write_bytes(card_png(card))
    return seeded_home


def shown(page: Any) -> list[str]:
    return page.eval_on_selector_all(".card-tile:not([hidden])", "tiles => tiles.map(t => t.dataset.folder)")  # type: ignore[no-any-return]


def test_search_sort_tags_and_favourites(many: Home, page: Any) -> None:
    with LiveServer(many) as server:
        page.goto(server.base_url)
        wait_ready(page)
        page.wait_for_selector("body[data-card-list='ready']")
        assert len(shown(page)) == 41
        page.fill("#card-search", "江湖")
        page.wait_for_function("document.getElementById('card-grid').dataset.shown === '10'")
        assert all(name.startswith("江湖客") for name in shown(page))
        page.fill("#card-search", "fantasy")  # the notes say ＦＡＮＴＡＳＹ
        page.wait_for_function("document.getElementById('card-grid').dataset.shown === '1'")
        assert shown(page) == ["说书人07"]
        page.fill("#card-search", "")
        page.locator("#card-tags .tag-chip", has_text="江南").click()
        page.wait_for_function("document.getElementById('card-grid').dataset.shown === '14'")
        page.locator("#card-tags .tag-chip", has_text="江南").click()  # off again
        page.wait_for_function("document.getElementById('card-grid').dataset.shown === '41'")
        # A favourite goes first in every order and stays one after a reload.
        tile = page.locator(".card-tile[data-folder='说书人33']")
        tile.locator(".card-star").click()
        page.wait_for_function("document.querySelector(\".card-tile[data-folder='说书人33']\").classList.contains('favorite')")
        page.select_option("#card-sort", "added")
        page.wait_for_function("document.querySelector('.card-tile:not([hidden])').dataset.folder === '说书人33'")
        page.check("#card-fav")
        page.wait_for_function("document.getElementById('card-grid').dataset.shown === '1'")
        page.uncheck("#card-fav")
        # Your own tags, beside the card's.
        page.once("dialog", lambda dialog: dialog.accept("长夜，  必读"))
        tile.locator(".card-menu summary").click()
        tile.locator(".card-own-tags").click()
        tile.locator(".card-tag-list .tag", has_text="必读").wait_for()
        page.reload()
        wait_ready(page)
        assert page.locator(".card-tile[data-folder='说书人33'] .card-star").inner_text() == "★"
        assert "长夜" in page.locator(".card-tile[data-folder='说书人33'] .card-tag-list").inner_text()
        assert page.locator("#card-sort").input_value() == "added"  # the order chosen is kept
        settings = (many.card_dir("说书人33") / "卡.json").read_text(encoding="utf-8")
        assert "必读" in settings and '"favorite": true' in settings


def test_the_list_fits_a_phone(many: Home, page: Any) -> None:
    with LiveServer(many) as server:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(server.base_url)
        wait_ready(page)
        right = page.evaluate(
            "Math.max(...[...document.querySelectorAll('body *')].map(e => e.getBoundingClientRect().right))"
        )
        assert right <= 390, right
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        tiles = page.locator(".card-tile").first.bounding_box()
        assert tiles["width"] > 120  # two columns of tiles, not squeezed to nothing
