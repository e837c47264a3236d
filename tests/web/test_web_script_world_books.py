"""A card's script changes the world book the card plays, from its frame in the real page (issue 45
item 4): ``updateWorldbookWith``, ``createWorldbookEntries`` and ``deleteWorldbookEntries`` as 房东模拟器
calls them, through the bridge to the server, which writes the mounted library book as the stage's
lorebook tools do; the script reads the book back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from script_card import add_script_card, helper_script
from status_card import frame_of, tavern_config, wait_text
from web_harness import LiveServer, Served, open_new_chat

from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.workspace.home import Home
from peargarden.workspace.library import lorebook_path
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = "记账的阿梨"
BOOK = "账本书"
SCRIPT = """
eventOn(getButtonEvent('整理账本'), async () => {
  const raise = (e) => ({ ...e, content: e.content.replace('30', '58') });
  await updateWorldbookWith('账本书', (entries) => entries.map(raise));
  await createWorldbookEntries('账本书', [{ name: '押金', content: '押金 100。', enabled: true }]);
  const { deleted_entries } = await deleteWorldbookEntries('账本书', (e) => e.name === '旧账');
  const book = await getWorldbook('账本书');
  $('body').append($('<p id="账本">').text(book.map((e) => e.content).join('|') + '；删了 ' + deleted_entries.length));
});
"""


def _entry(uid: int, comment: str, content: str) -> dict[str, object]:
    return {"uid": uid, "key": ["账"], "comment": comment, "content": content, "constant": False, "disable": False,
            "order": 100 + uid, "position": 0}  # fmt: skip


@pytest.fixture(scope="module")
def books_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("books-home"))
    seed_home(home)
    add_script_card(home, name=CARD, extra=[helper_script("账本整理", SCRIPT, ["整理账本"], "0e-books")])
    book = {"entries": {"0": _entry(0, "账目", "本月收租 30。"), "1": _entry(1, "旧账", "去年的账。")}}
    lorebook_path(home, BOOK).write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    settings_file = home.card_dir(CARD) / "卡.json"
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    settings_file.write_text(json.dumps({**settings, "lorebooks": [BOOK]}, ensure_ascii=False), encoding="utf-8")
    with FakeOpenAIServer() as fake:
        config = tavern_config(fake.base_url).replace(
            'mode = "tavern"\n', 'mode = "tavern"\ncreation_mode = "silent"\n'
        )
        home.config_file.write_text(config, encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def test_a_script_rewrites_the_cards_world_book(books_served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_new_chat(page, books_served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready='3']")
    page.locator("#script-buttons button", has_text="整理账本").click()
    frame = frame_of(page.locator("#script-frames iframe[title='脚本：账本整理']"))
    wait_text(frame, "#账本", "本月收租 58。|押金 100。；删了 1")
    stored = json.loads(lorebook_path(books_served.home, BOOK).read_text(encoding="utf-8"))
    assert sorted(entry["content"] for entry in stored["entries"].values()) == ["押金 100。", "本月收租 58。"]
    assert errors == []
