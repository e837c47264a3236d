"""The preset editor in Chromium, against the fake OpenAI server: a hint while the library has no
preset; a library preset used for tavern mode without declaring it; its prompt texts, order and
samplers edited in the preset file (other keys and the file's style kept) and reaching the request
body; samplers pinned on the connection (config.toml) winning over the preset's, also in an open chat."""

from __future__ import annotations

import json
import tomllib
import urllib.parse
import urllib.request
from typing import Any

from web_harness import Served, beats_done, screenshot, wait_ready

from peargarden.testing.fake_openai import text_reply

PRESET = "雨夜预设"
CARD = "青梧"


def said(page: Any, text: str, error: bool = False) -> None:
    page.locator("#toast.error" if error else "#toast:not(.error)", has_text=text).wait_for()
    page.evaluate("() => { const box = document.getElementById('toast'); box.hidden = true; box.textContent = ''; }")


def pinned(served: Served) -> dict[str, Any]:
    """The fake connection's ``[providers.fake.sampler]`` as config.toml says now."""
    config = tomllib.loads(served.home.config_file.read_text(encoding="utf-8"))
    return config["providers"]["fake"].get("sampler", {})  # type: ignore[no-any-return]


def _preset() -> dict[str, Any]:
    return {
        "temperature": 1, "frequency_penalty": 0, "presence_penalty": 0, "top_p": 1, "openai_max_context": 8000,
        "openai_max_tokens": 300, "x_future_top_level": {"kept": True},
        "prompts": [
            {"identifier": "main", "name": "Main Prompt", "system_prompt": True, "role": "system",
             "content": "原始主提示。", "injection_trigger": ["normal"]},
            {"identifier": "jailbreak", "name": "Post-History Instructions", "system_prompt": True, "role": "system",
             "content": "越狱提示。"},
            {"identifier": "chatHistory", "name": "Chat History", "system_prompt": True, "marker": True},
        ],
        "prompt_order": [{"character_id": 100001, "order": [
            {"identifier": "main", "enabled": True}, {"identifier": "chatHistory", "enabled": True},
            {"identifier": "jailbreak", "enabled": True}]}],
    }  # fmt: skip


def _tavern_chat(served: Served) -> str:
    request = urllib.request.Request(f"{served.url}/api/chats/{urllib.parse.quote(CARD)}",
                                     data=json.dumps({"mode": "tavern"}).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=20) as response:
        return str(json.loads(response.read())["chat_id"])


def _send(page: Any, served: Served, chat_id: str, text: str, beats: int) -> dict[str, Any]:
    page.goto(f"{served.url}/chat/{urllib.parse.quote(CARD)}/{chat_id}")
    wait_ready(page)
    page.fill("#composer", text)
    page.click("#send")
    beats_done(page, beats)
    return served.fake.chat_requests[-1].body  # type: ignore[no-any-return]


def test_presets_edited_used_without_declaring_and_samplers_in_the_request(served: Served, page: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{served.url}/presets/{urllib.parse.quote(CARD)}")
    page.locator("#presets[data-editor='ready']").wait_for()
    assert "资料库里还没有预设" in page.locator("#preset-empty").inner_text()
    screenshot(page, "preset-editor-empty-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.locator("#preset-empty").is_visible()
    screenshot(page, "preset-editor-empty-390")
    page.set_viewport_size({"width": 1280, "height": 800})

    path = served.home.presets_dir / f"{PRESET}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_preset(), ensure_ascii=False, indent=4) + "\n", encoding="utf-8")
    page.reload()
    page.locator("#presets[data-editor='ready']").wait_for()
    page.select_option("#use-preset", PRESET)
    page.click("#use-apply")
    said(page, f"这张卡现在用预设「{PRESET}」")
    settings = json.loads((served.home.card_dir(CARD) / "卡.json").read_text(encoding="utf-8"))
    assert settings["preset"] == PRESET
    assert not (served.home.presets_dir / f"{PRESET}.declare.json").exists()  # no declaration, no side model

    row = page.locator("#prompt-panel .prompt-row[data-id='main']")
    row.locator(".prompt-edit").click()
    row.locator(".prompt-text").fill("你是栖水镇的说书人，只用中文讲故事。")
    row.locator(".prompt-save").click()
    said(page, "提示词已保存")
    page.locator("#prompt-panel .prompt-row[data-id='jailbreak'] input.switch").uncheck()
    said(page, "已保存开关")
    page.locator("#prompt-panel .prompt-row[data-id='chatHistory'] .up").click()  # history first, then main
    said(page, "已保存顺序")
    grid = page.locator("#sampler-panel .samplers")
    for key, value in {"temperature": "0.35", "top_p": "0.8", "openai_max_tokens": "321",
                       "presence_penalty": "0.2", "frequency_penalty": "0.1"}.items():  # fmt: skip
        grid.locator(f"input[data-key='{key}']").fill(value)
    page.click("#sampler-save")
    said(page, "采样参数已保存（写入预设）")
    screenshot(page, "preset-editor-1280")

    stored = json.loads(path.read_text(encoding="utf-8"))
    assert path.read_text(encoding="utf-8").startswith('{\n    "temperature": 0.35,')  # 4 spaces kept
    assert stored["x_future_top_level"] == {"kept": True} and stored["prompts"][0]["injection_trigger"] == ["normal"]
    assert stored["prompts"][0]["content"] == "你是栖水镇的说书人，只用中文讲故事。"
    assert stored["prompt_order"][0]["order"] == [
        {"identifier": "chatHistory", "enabled": True}, {"identifier": "main", "enabled": True},
        {"identifier": "jailbreak", "enabled": False}]  # fmt: skip
    assert (stored["temperature"], stored["top_p"], stored["openai_max_tokens"]) == (0.35, 0.8, 321)

    chat_id = _tavern_chat(served)
    served.fake.script([text_reply("好。"), text_reply("再好。")])
    body = _send(page, served, chat_id, "讲个雨夜的故事。", 1)
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.35, 0.8, 321)
    assert (body["presence_penalty"], body["frequency_penalty"]) == (0.2, 0.1)
    texts = [m["content"] for m in body["messages"]]
    main = next(i for i, text in enumerate(texts) if "你是栖水镇的说书人，只用中文讲故事。" in text)
    assert main > texts.index("讲个雨夜的故事。")  # the new order: the history first, then the main prompt
    assert all("越狱提示" not in m["content"] for m in body["messages"])

    # Pinned on the connection: wins over the preset, in the chat that is already open too.
    page.goto(f"{served.url}/presets/{urllib.parse.quote(CARD)}")
    page.locator("#presets[data-editor='ready']").wait_for()
    page.select_option("#sampler-scope", "connection:fake")
    page.locator("#sampler-panel input[data-key='temperature']").fill("0.55")
    page.locator("#sampler-panel input[data-key='max_tokens']").fill("77")
    page.click("#sampler-save")
    said(page, "连接「fake」")
    assert pinned(served) == {"temperature": 0.55, "max_tokens": 77}
    body = _send(page, served, chat_id, "再讲一个。", 1)
    assert (body["temperature"], body["max_tokens"], body["top_p"]) == (0.55, 77, 0.8)

    page.goto(f"{served.url}/presets/{urllib.parse.quote(CARD)}")
    page.locator("#presets[data-editor='ready']").wait_for()
    page.select_option("#sampler-scope", "connection:fake")
    page.locator("#sampler-panel input[data-key='temperature']").fill("")
    page.locator("#sampler-panel input[data-key='max_tokens']").fill("")
    page.locator("#sampler-panel input[data-key='top_p']").fill("7")
    page.click("#sampler-save")
    said(page, "top_p", error=True)  # out of range: nothing written
    assert pinned(served)["max_tokens"] == 77
    page.locator("#sampler-panel input[data-key='top_p']").fill("")
    page.click("#sampler-save")
    said(page, "连接「fake」")
    assert pinned(served) == {}  # cleared: the table is left empty

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.locator("#presets[data-editor='ready']").wait_for()
    page.locator("#prompt-panel .prompt-row[data-id='main'] .prompt-edit").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "preset-editor-390")
