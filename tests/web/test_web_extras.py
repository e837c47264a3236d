"""The features beside the chat in Chromium (issue 48): translation, expressions, voices, pictures and
themes on the chat page and the extensions page, each back end a local fake (peargarden.testing)."""

from __future__ import annotations

import hashlib
import json
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import (
    Served,
    beats_done,
    fake_provider_config,
    new_chat,
    open_new_chat,
    post_json,
    screenshot,
    wait_ready,
)

from kit.groups import add_card, chinese_card
from peargarden.testing.fake_media import FakeMediaServer, tiny_png
from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture(scope="module")
def media() -> Iterator[FakeMediaServer]:
    with FakeMediaServer() as server:
        yield server


Configure = Callable[[str], None]


@pytest.fixture
def configure(served: Served) -> Iterator[Configure]:
    """Write config.toml: the fake model plus the tables a test names; put back as it was after."""

    def write(extra: str) -> None:
        served.home.config_file.write_text(fake_provider_config(served.fake.base_url) + extra, encoding="utf-8")

    yield write
    write("")


def _ready(page: Page) -> None:
    page.wait_for_selector("body[data-extras-ready='1']")


def test_translation_by_click_and_of_every_input(
    served: Served, media: FakeMediaServer, page: Page, configure: Configure
) -> None:
    configure(f'[translate]\nbackend = "libre"\nbase_url = "{media.url}"\nlanguage = "en"\n')
    chat_id = open_new_chat(page, served.url)
    _ready(page)
    assert "LibreTranslate" not in page.locator("#extras-panel").inner_text()
    assert "libre" in page.locator("#extras-panel").inner_text()
    greeting = page.locator("li.msg.assistant").first
    original = greeting.locator(".msg-text").first.inner_text()
    greeting.locator("button.translate").click()
    shown = greeting.locator(".msg-text.translated")
    shown.wait_for()
    assert shown.inner_text().startswith("«en»") and greeting.locator(".msg-text:not(.translated)").is_hidden()
    assert media.to("/translate")[-1].body["target"] == "en"
    greeting.locator("button.show-original").click()
    assert greeting.locator(".msg-text:not(.translated)").inner_text() == original and shown.is_hidden()
    # Kept with the chat: a reload shows the translation without asking the server again.
    asked = len(media.to("/translate"))
    page.reload()
    _ready(page)
    page.locator("li.msg.assistant .msg-text.translated").wait_for()
    assert len(media.to("/translate")) == asked
    screenshot(page, "extras-translated")

    # Every input: the model reads the card's language, the page shows the words typed.
    configure(f'[translate]\nbackend = "libre"\nbase_url = "{media.url}"\nlanguage = "en"\nauto = "inputs"\n')
    media.phrases[("Is there a room upstairs?", "zh")] = "楼上还有空房吗？"
    served.fake.script([text_reply("有的，客官。")])
    page.reload()
    _ready(page)
    page.fill("#composer", "Is there a room upstairs?")
    page.click("#send")
    beats_done(page, 1)
    sent = served.fake.chat_requests[-1].body["messages"]
    assert str(sent[-1]["content"]).endswith("楼上还有空房吗？")  # the stage puts its notes before it
    assert not any("Is there a room" in str(m["content"]) for m in sent)
    mine = page.locator("li.msg.user").last
    mine.locator(".msg-text.translated", has_text="Is there a room upstairs?").wait_for()
    mine.locator("button.show-original").click()
    assert "楼上还有空房吗？" in mine.locator(".msg-text:not(.translated)").inner_text()
    assert chat_id


def test_sprites_imported_on_the_page_show_the_expression_of_each_reply(
    served: Served, page: Page, configure: Configure, tmp_path: Path
) -> None:
    configure('[expressions]\nclassify = "keywords"\n')
    for name, colour in (("joy.png", (250, 200, 0)), ("惊讶.png", (0, 120, 250)), ("neutral.png", (90, 90, 90))):
        (tmp_path / name).write_bytes(tiny_png(colour))
    page.goto(f"{served.url}/extras")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#sprites-card", "青梧")
    page.set_input_files("#sprites-files", [str(tmp_path / n) for n in ("joy.png", "惊讶.png", "neutral.png")])
    page.click("#sprites-upload")
    page.wait_for_function("document.querySelectorAll('.sprite-grid li').length === 3")
    assert page.locator(".sprite-grid li span").all_inner_texts() == ["joy", "neutral", "surprise"]
    screenshot(page, "extras-sprites")

    served.fake.script([text_reply("青梧一愣，惊讶地看着你：“怀瑾？”")])
    open_new_chat(page, served.url)
    _ready(page)
    sprite = page.locator(".extras-sprite")
    sprite.wait_for()
    page.fill("#composer", "掌柜，怀瑾回来了。")
    page.click("#send")
    beats_done(page, 1)
    page.wait_for_function("document.querySelector('.extras-sprite')?.dataset.label === 'surprise'")
    assert "surprise.png" in str(sprite.locator("img").get_attribute("src"))
    page.check("#extras-vn")
    assert "vn" in str(page.locator("#chat").get_attribute("class"))
    box = sprite.locator("img").bounding_box()
    assert box is not None and box["height"] > 600  # full height in the visual-novel layout
    screenshot(page, "extras-vn")
    page.uncheck("#extras-vn")


def test_a_group_shows_each_speakers_sprite(served: Served, page: Page, configure: Configure) -> None:
    configure('[expressions]\nclassify = "keywords"\n')
    for name, first in (("白芷", "白芷推门进来。"), ("苏木", "苏木在窗边看书。")):
        add_card(served.home, name, chinese_card(name, f"{name}是茶馆的常客。", first))
        sprites = served.home.card_dir(name) / "sprites"
        sprites.mkdir()
        for label in ("joy", "surprise", "neutral"):
            (sprites / f"{label}.png").write_bytes(tiny_png())
    group = post_json(served.url, "/api/groups", {"name": "茶馆", "members": ["白芷", "苏木"], "strategy": "list",
                                          "mode": "tavern"})  # fmt: skip
    folder = urllib.parse.quote(str(group["folder"]))
    chat = post_json(served.url, f"/api/groups/{folder}/chats", {})
    served.fake.script([text_reply("白芷笑了笑：“来啦。”"), text_reply("苏木一愣，惊讶地抬起头。")])
    page.goto(f"{served.url}/group/{folder}/{urllib.parse.quote(str(chat['chat_id']))}")
    wait_ready(page)
    _ready(page)
    page.fill("#composer", "两位好。")
    page.click("#send")
    beats_done(page, 1)
    page.wait_for_function(
        "() => document.querySelector('.extras-sprite[data-card=\"白芷\"]')?.dataset.label === 'joy'"
        " && document.querySelector('.extras-sprite[data-card=\"苏木\"]')?.dataset.label === 'surprise'"
    )
    assert page.locator(".extras-stage .extras-sprite").count() == 2
    screenshot(page, "extras-group-sprites")


def test_voices_set_on_the_page_read_a_message_and_each_new_reply(
    served: Served, media: FakeMediaServer, page: Page, configure: Configure
) -> None:
    configure("")
    page.goto(f"{served.url}/extras")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#tts-backend", "openai")
    page.fill("#tts-base_url", f"{media.url}/v1")
    page.fill("#tts-voices", "青梧 = nova\n旅人 = echo")
    page.click("#extras-tts button[type=submit]")
    page.locator("#toast", has_text="已保存").wait_for()
    config = served.home.config_file.read_text(encoding="utf-8")
    assert '[tts.voices]\n"青梧" = "nova"\n"旅人" = "echo"' in config
    page.fill("#tts-key", "sk-语音")
    page.click("#extras-tts .extras-key button")
    page.locator("#toast", has_text="密钥只能是 ASCII 字符").wait_for()
    page.fill("#tts-key", "sk-tts-secret")
    page.click("#extras-tts .extras-key button")
    page.locator("#toast", has_text="密钥已保存").wait_for()
    key_file = served.home.root / "keys" / "extra-tts.key"
    assert key_file.read_text(encoding="utf-8") == "sk-tts-secret" and key_file.stat().st_mode & 0o077 == 0
    assert "secret" not in served.home.config_file.read_text(encoding="utf-8")

    open_new_chat(page, served.url)
    _ready(page)
    before = len(media.to("/v1/audio/speech"))
    greeting = page.locator("li.msg.assistant").first
    greeting.locator("button.speak").click()
    page.wait_for_function("document.querySelector('audio.extras-audio')?.src.startsWith('blob:')")
    sent = media.to("/v1/audio/speech")[before:]
    assert len(sent) == 1 and sent[0].body["voice"] == "nova" and sent[0].body["model"] == "tts-1"
    assert sent[0].headers["authorization"] == "Bearer sk-tts-secret"
    greeting.locator("button.speak").click()  # kept by the page: not asked for again
    page.wait_for_timeout(300)
    assert len(media.to("/v1/audio/speech")) == before + 1

    page.check("#tts-auto")
    served.fake.script([text_reply("“客官慢用。”青梧笑道。")])
    played = page.evaluate("document.querySelector('audio.extras-audio').src")
    page.fill("#composer", "来壶茶。")
    page.click("#send")
    beats_done(page, 1)
    page.wait_for_function("old => document.querySelector('audio.extras-audio').src !== old", arg=played)
    assert page.evaluate("document.body.dataset.ttsPlaying === "
                         "[...document.querySelectorAll('li.msg.assistant')].pop().dataset.id")
    assert media.to("/v1/audio/speech")[-1].body["input"] == "“客官慢用。”青梧笑道。"
    page.uncheck("#tts-auto")


def test_the_browsers_own_voice_needs_no_server(
    served: Served, media: FakeMediaServer, page: Page, configure: Configure
) -> None:
    configure('[tts]\nbackend = "browser"\nquotes_only = true\n[tts.voices]\n"青梧" = "Fake Voice"\n')
    page.add_init_script(
        "window.__spoken = [];"
        "if (window.speechSynthesis) speechSynthesis.speak = (u) => { window.__spoken.push(u.text);"
        " setTimeout(() => u.onend && u.onend(), 10); };"
    )
    asked = len(media.requests)
    chat_id = open_new_chat(page, served.url)
    _ready(page)
    from peargarden.app.extras.speech import line_of  # what the page is given to speak
    from peargarden.app.play.service import PearApp

    expected = line_of(served.home, PearApp(served.home).open_chat("青梧", chat_id), 0).text
    page.locator("li.msg.assistant").first.locator("button.speak").click()
    page.wait_for_function("window.__spoken.length === 1")
    assert page.evaluate("window.__spoken[0]") == expected
    assert len(media.requests) == asked


def test_a_picture_of_the_last_reply_comes_into_the_chat(
    served: Served, media: FakeMediaServer, page: Page, configure: Configure
) -> None:
    configure(f'[pictures]\nbackend = "sdwebui"\nbase_url = "{media.url}"\n')
    open_new_chat(page, served.url)
    _ready(page)
    served.fake.script([text_reply("1girl, teahouse, rainy night, lantern")])  # the side model's prompt
    page.click("#picture-go")
    picture = page.locator("li.msg.picture-msg img.msg-picture")
    picture.wait_for()
    page.wait_for_function("document.querySelector('img.msg-picture').naturalWidth > 0")
    assert media.to("/sdapi/v1/txt2img")[-1].body["prompt"] == "1girl, teahouse, rainy night, lantern"
    assert "1girl, teahouse" in page.locator("li.msg.picture-msg").inner_text()
    page.select_option("#picture-kind", "free")
    page.fill("#picture-prompt", "油纸伞，雨夜")
    page.click("#picture-go")
    page.wait_for_function("document.querySelectorAll('li.msg.picture-msg').length === 2")
    assert media.to("/sdapi/v1/txt2img")[-1].body["prompt"] == "油纸伞，雨夜"
    screenshot(page, "extras-picture")


def test_a_sillytavern_theme_in_and_out_dark_mode_and_css_that_cannot_reach_out(
    served: Served, media: FakeMediaServer, page: Page, configure: Configure, tmp_path: Path
) -> None:
    configure("")
    leak = media.url
    theme = {
        "name": "青瓷", "blur_strength": 6, "main_text_color": "rgba(20, 60, 80, 1)",
        "quote_text_color": "rgba(200, 90, 40, 1)", "bot_mes_blur_tint_color": "rgba(235, 245, 240, 1)",
        "font_scale": 1, "avatar_style": 2, "chat_display": 1, "chat_width": 60,
        "custom_css": (f"@import url({leak}/import.css);\n"
                       f"body {{ background-image: url({leak}/leak.png); }}\n"
                       f".msg {{ background-image: image-set(\"{leak}/set.png\" 1x); }}\n"
                       f".msg-head {{ background: u\\72 l({leak}/escaped.png); }}\n"
                       ".chat-title { letter-spacing: 3px; }\n"
                       "</style><script>document.body.dataset.pwned = '1'</script>\n"),
    }  # fmt: skip
    (tmp_path / "青瓷.json").write_text(json.dumps(theme, ensure_ascii=False), encoding="utf-8")
    page.goto(f"{served.url}/extras")
    page.wait_for_selector("body[data-ready='1']")
    with page.expect_navigation():
        page.set_input_files("#theme-file", str(tmp_path / "青瓷.json"))
    page.wait_for_selector("body[data-ready='1']")
    assert page.input_value("#theme-name") == "青瓷"
    assert "url(" in page.locator(".extras-removed").inner_text()  # the page says what it leaves out

    asked = len(media.requests)
    open_new_chat(page, served.url)
    _ready(page)
    page.wait_for_timeout(300)
    style = page.evaluate("document.getElementById('pear-theme').textContent")
    assert "<" not in style and leak not in style
    assert page.evaluate("getComputedStyle(document.body).color") == "rgb(20, 60, 80)"
    assert page.evaluate("getComputedStyle(document.querySelector('.chat-title')).letterSpacing") == "3px"
    assert page.evaluate("getComputedStyle(document.querySelector('li.msg.assistant')).backgroundColor") == (
        "rgb(235, 245, 240)")  # fmt: skip
    assert page.evaluate("document.body.dataset.pwned") is None
    assert len(media.requests) == asked  # nothing the CSS named was asked for
    screenshot(page, "extras-theme")

    # Dark, then the theme back out in SillyTavern's format.
    page.goto(f"{served.url}/extras")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#theme-mode", "dark")
    page.select_option("#theme-name", "")
    with page.expect_navigation():
        page.click("#theme-use")
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(29, 35, 32)"
    page.select_option("#theme-name", "青瓷")
    with page.expect_download() as download:
        page.click("#theme-export")
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert exported == theme and list(exported)[:3] == ["name", "blur_strength", "main_text_color"]
    screenshot(page, "extras-dark")


def test_no_get_of_the_extras_changes_the_data_folder(served: Served, configure: Configure) -> None:
    configure('[expressions]\nclassify = "keywords"\n[translate]\nbackend = "side"\n')
    chat_id = new_chat(served.url)
    post_json(served.url, "/api/themes/css", {"css": ".md q { color: teal }"})

    def snapshot() -> dict[str, str]:
        return {str(p.relative_to(served.home.root)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(served.home.root.rglob("*")) if p.is_file() and "vault" not in p.parts}  # fmt: skip

    before = snapshot()
    card, chat = urllib.parse.quote("青梧"), urllib.parse.quote(chat_id)
    paths = ("/extras", "/api/extras/settings", f"/api/chats/{card}/{chat}/extras", f"/api/cards/{card}/sprites",
             f"/api/chats/{card}/{chat}/translations", "/api/themes", "/api/themes/export", f"/chat/{card}/{chat}")
    for path in paths:
        with urllib.request.urlopen(served.url + path, timeout=20) as response:
            assert response.status == 200, path
    assert snapshot() == before
    post_json(served.url, "/api/themes/use", {"name": ""})


def test_every_feature_says_it_is_off_when_none_is_configured(served: Served, page: Page, configure: Configure) -> None:
    configure("")
    open_new_chat(page, served.url)
    _ready(page)
    panel = page.locator("#extras-panel").inner_text()
    assert "翻译：未开启" in panel and "语音：未开启" in panel and "生图：未开启" in panel
    assert page.locator("li.msg button.translate").count() == 0
