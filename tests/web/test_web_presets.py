"""The preset panel: declare a preset (labels from the side model on the fake server), change one
block's label in the browser, and the card's files are routed again."""

from __future__ import annotations

import json
import urllib.parse
from typing import TYPE_CHECKING

from web_harness import Served, screenshot, wait_ready

from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page


def small_preset() -> dict[str, object]:
    prompts = [
        {"identifier": "main", "name": "身份设定", "role": "system", "content": "你是一位写古风故事的作者。"},
        {"identifier": "style", "name": "文风", "role": "system", "content": "雨夜要写得克制，少用形容词。"},
        {"identifier": "chatHistory", "name": "Chat History", "marker": True},
        {"identifier": "status", "name": "状态栏", "role": "system", "content": "末尾输出状态栏：时间｜地点。"},
    ]
    order = [{"identifier": p["identifier"], "enabled": True} for p in prompts]  # type: ignore[index]
    return {"temperature": 0.8, "prompts": prompts, "prompt_order": [{"character_id": 100001, "order": order}]}


def test_declare_then_relabel_a_block(served: Served, page: Page) -> None:
    (served.home.presets_dir / "古风.json").write_text(json.dumps(small_preset(), ensure_ascii=False), encoding="utf-8")
    labels = [{"id": "main", "station": "identity"}, {"id": "style", "station": "writing"},
              {"id": "status", "station": "output"}]  # fmt: skip
    served.fake.script([text_reply(json.dumps(labels, ensure_ascii=False))])
    page.goto(f"{served.url}/presets/{urllib.parse.quote('青梧')}")
    wait_ready(page)
    page.select_option("#preset-select", "古风")
    page.click("#declare")
    row = page.locator("#pieces tr[data-piece='style']")
    row.wait_for()
    assert row.locator("select.station").input_value() == "writing"
    card_dir = served.home.card_dir("青梧")
    agents = (card_dir / "AGENTS.md").read_text(encoding="utf-8")
    assert "雨夜要写得克制" in agents
    # The status bar went to AGENTS.md too, switched off.
    assert "末尾输出状态栏" in agents

    row.locator("select.station").select_option("identity")
    page.locator("#toast:not(.error)").wait_for()
    assert "雨夜要写得克制" in (card_dir / "APPEND_SYSTEM.md").read_text(encoding="utf-8")
    assert "雨夜要写得克制" not in (card_dir / "AGENTS.md").read_text(encoding="utf-8")
    assert page.locator("#pieces tr[data-piece='style'] select.station").input_value() == "identity"
    screenshot(page, "presets")
    page.click("#remove")
    page.locator("#toast", has_text="已撤下").wait_for()
    assert not (card_dir / "APPEND_SYSTEM.md").exists() or "雨夜" not in (card_dir / "APPEND_SYSTEM.md").read_text(
        encoding="utf-8"
    )
