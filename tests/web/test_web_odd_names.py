"""Card names with '#', a leading '.', or 360 bytes: imported from the page, each one has a working
tile, avatar and chat, and `pear cards` lists them all; a name import refuses gets one clear line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from web_harness import LiveServer, screenshot, wait_ready

from kit.cli import pear_in_process
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Page

NAMES = ["#1 青梧#", ".隐士", "长" * 120]  # the last is 360 bytes of UTF-8


def card_file(folder: Path, stem: str, name: str) -> Path:
    path = folder / f"{stem}.json"
    card = {"spec": "chara_card_v2", "spec_version": "2.0",
            "data": {"name": name, "description": f"{name[:10]}的描述", "first_mes": f"我是{name[:10]}。"}}  # fmt: skip
    path.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    return path


def test_odd_names_work_everywhere(live_server: LiveServer, seeded_home: Home, page: Page, tmp_path: Path) -> None:
    files = [str(card_file(tmp_path, f"card{number}", name)) for number, name in enumerate(NAMES)]
    page.goto(live_server.base_url + "/")
    with page.expect_navigation():  # the page reloads after a successful import
        page.set_input_files("#file-input", files)
    page.wait_for_selector(".card-tile")
    names = page.locator(".card-name").all_inner_texts()
    assert all(name in names for name in NAMES), names
    page.wait_for_load_state("networkidle")
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        screenshot(page, f"odd-names-{width}")
    # Every avatar loads (no broken image), every tile opens its card.
    broken = page.evaluate("[...document.querySelectorAll('.card-tile img')].filter(i => !i.naturalWidth).length")
    assert broken == 0
    for name in NAMES:
        page.goto(live_server.base_url + "/")
        page.locator(".card-tile", has_text=name[:5]).first.locator("a").first.click()
        wait_ready(page)
        page.click("#start-chat")
        page.wait_for_url("**/chat/*/*")
        wait_ready(page)
        assert f"我是{name[:10]}。" in page.locator(".msg.assistant").first.inner_text()
    # The command line sees the same cards, the hidden-looking one included.
    listed = pear_in_process(seeded_home.root, "cards", "--json", check=True)
    shown = [card["name"] for card in json.loads(listed.stdout)]
    assert all(name in shown for name in NAMES), shown


def test_a_refused_name_gets_one_clear_line(live_server: LiveServer, seeded_home: Home, tmp_path: Path) -> None:
    path = card_file(tmp_path, "dots", "...")
    run = pear_in_process(seeded_home.root, "import", path)
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "dots.json" in run.stderr
