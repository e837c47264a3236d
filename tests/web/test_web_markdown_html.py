"""Markdown that survives HTML, as SillyTavern shows it: a reply with ``<br>``, ``<https://…>``,
``<font color>`` or ``<details>`` is a message (Markdown with the allowed HTML kept after sanitising);
only documents (a page, a ``<style>``/``<script>`` block, a display script's status bar) go to the
sandboxed frame, which is as tall as what it shows (what its CSP refuses from the web said in one line).
Hostile HTML runs nothing, in the page or a frame."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from web_harness import Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import text_reply
from peargarden.web.markdown import is_document, render

# Ways a model or a card tries to run something (each sets window.pwned or parent.pwned if it runs).
XSS = [
    "<script>window.pwned = 1; parent.pwned = 1;</script>",
    '<img src="x" onerror="parent.pwned = 2">',
    '<svg onload="parent.pwned = 3"><circle r="5"/></svg>',
    '<a href="javascript:parent.pwned = 4">点这里</a>',
    '<details open ontoggle="parent.pwned = 5"><summary>展开</summary>内容</details>',
    '<div style="background:url(javascript:parent.pwned=6)" onmouseover="parent.pwned = 7">悬停</div>',
    '<iframe src="javascript:parent.pwned = 8"></iframe>',
    '<body onload="parent.pwned = 9">页面</body>',
    '<font color="red" onclick="parent.pwned = 10">红字</font>',
    "[链接](javascript:parent.pwned=11)",
    '<math><mtext><table><mglyph><style><img src=x onerror="parent.pwned=12">',
    '<form action="javascript:parent.pwned=13"><button>提交</button></form>',
    '<meta http-equiv="refresh" content="0;url=javascript:parent.pwned=14">',
]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("第一行<br>第二行", "第一行<br>第二行"),
        ("见 <https://example.org/茶>", '<a href="https://example.org/%E8%8C%B6" rel="noopener noreferrer nofollow">'),
        ('<font color="#c33">红字</font>与*斜体*', '<font color="#c33">红字</font>与<em>斜体</em>'),
        ("<details><summary>心声</summary>\n\n**她其实记得。**\n</details>",
         "<details><summary>心声</summary>\n<p><strong>她其实记得。</strong></p>\n</details>"),
        ('<span style="color:#a33; position:fixed; top:0">好感 +1</span>', '<span style="color:#a33">好感 +1</span>'),
    ],
)  # fmt: skip
def test_tag_like_tokens_stay_in_a_rendered_message(text: str, kept: str) -> None:
    assert not is_document(text)
    assert kept in render(text)


def test_only_documents_go_to_the_frame() -> None:
    assert is_document("<!DOCTYPE html><html><body>页</body></html>")
    assert is_document("<style>.bar{color:red}</style><div class='bar'>状态</div>")
    assert is_document("正文<script>1</script>")
    # A status bar a display script made of block HTML is framed; the same text in a reply is not.
    bar = '<div class="status"><table><tr><td>好感</td><td>+1</td></tr></table></div>'
    assert is_document(bar, from_display_script=True) and not is_document(bar)
    assert not is_document("她说<br>好", from_display_script=True)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


@pytest.mark.parametrize("payload", XSS)
def test_the_sanitised_message_keeps_nothing_that_runs(payload: str) -> None:
    parser = _Tags()
    parser.feed(render(payload))
    for tag, attrs in parser.found:
        assert tag not in {"script", "iframe", "form", "svg", "math", "meta", "img", "style", "body"}, tag
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert "javascript:" not in (value or "").lower().replace(" ", ""), (tag, name, value)


def test_messages_with_html_render_in_the_page_and_hostile_html_runs_nothing(served: Served, page: Any) -> None:
    replies = [
        "青梧抬眼，<br>轻声道：<font color=\"#c33\">“雨要停了。”</font>\n\n"
        "<details><summary>心声</summary>\n\n**她其实记得那个人。**\n</details>\n\n地图见 <https://example.org/map>",
        "\n\n".join(XSS),
        "<style>.tall{height:300px;background:#eef}</style><div class='tall'>状态栏</div>",
        "<style>.nothing{}</style>",
        '<link href="https://fonts.example/字体.css" rel="stylesheet"><style>b{color:#c33}</style><b>变量更新</b>',
    ]
    served.fake.script([text_reply(text) for text in replies])
    open_new_chat(page, served.url)
    for number, line in enumerate(("雨什么时候停？", "试试", "状态", "空", "字体"), 1):
        page.fill("#composer", line)
        page.click("#send")
        beats_done(page, number)
    replies_drawn = page.locator("#messages li.msg.assistant[data-index]")
    first = replies_drawn.nth(1)  # after the greeting
    assert first.locator(".md font[color='#c33']").inner_text() == "“雨要停了。”"
    assert first.locator(".md br").count() >= 1
    first.locator(".md details summary").click()
    assert "她其实记得那个人" in first.locator(".md details strong").inner_text()
    assert first.locator(".md a[href='https://example.org/map']").count() == 1
    assert first.locator("iframe").count() == 0
    # The hostile reply: drawn as a message, hovered and clicked all over, nothing ran.
    hostile = replies_drawn.nth(2)
    assert hostile.locator("iframe").count() == 1  # it holds a <script>/<svg>…: a document, framed
    frame = hostile.locator("iframe").element_handle().content_frame()
    frame.wait_for_load_state()
    for target in frame.locator("body *").all()[:20]:
        if target.is_visible():
            target.hover()
    assert hostile.locator("iframe").get_attribute("sandbox") == "allow-same-origin"
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert frame.evaluate("typeof window.pwned") == "undefined"
    # A status bar with its style block: framed, and the frame as tall as its content.
    bar = replies_drawn.nth(3).locator("iframe")
    page.wait_for_function(
        "(f) => f.getBoundingClientRect().height > 300", arg=bar.element_handle()
    )
    height = bar.evaluate("f => f.getBoundingClientRect().height")
    inner = bar.evaluate("f => f.contentDocument.documentElement.scrollHeight")
    assert abs(height - inner) <= 3 and 300 <= inner < 340
    # A document with nothing to show takes no room.
    assert replies_drawn.nth(4).locator("iframe").is_hidden()
    # A style sheet from the web: refused by the CSP, and said in the frame in one line.
    linked = replies_drawn.nth(5).locator("iframe")
    linked.element_handle().content_frame().wait_for_selector(".pear-blocked")
    said = linked.evaluate("f => f.contentDocument.querySelector('.pear-blocked').textContent")
    assert said == "⚠ 未能加载：fonts.example（这里不从网络加载）"
    # On a phone the frame follows the narrower width (its text wraps: taller, never clipped).
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function(
        "(f) => Math.abs(f.getBoundingClientRect().height - f.contentDocument.documentElement.scrollHeight) <= 3",
        arg=hostile.locator("iframe").element_handle(),
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("typeof window.pwned") == "undefined"
