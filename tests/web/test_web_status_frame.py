"""What the page is told about a status bar before any browser runs it: which parts of a message run
the card's scripts, what a frame loads locally and what it is denied, SillyTavern's message numbers,
and the read-only endpoints frames read through the page."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from status_card import CARD, add_status_card
from web_harness import LiveServer

from peargarden.app.play.chat_page import tavern_numbers
from peargarden.web.chat_view import message_html
from peargarden.web.status_frame import library_of, rewrite_document, status_parts
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def _html(text: str) -> str | None:
    return message_html(text, True)


@pytest.mark.parametrize(
    ("url", "library"),
    [
        ("https://testingcf.jsdelivr.net/npm/jquery/dist/jquery.min.js", "jquery"),
        ("https://cdn.jsdelivr.net/npm/jquery@3.7.1", "jquery"),
        ("https://code.jquery.com/jquery-3.6.0.min.js", "jquery"),
        ("https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.slim.min.js", "jquery"),
        ("https://unpkg.com/lodash@4.17.21/lodash.min.js", "lodash"),
        ("https://fastly.jsdelivr.net/npm/lodash", "lodash"),
        ("https://cdn.jsdelivr.net/npm/jquery-ui/dist/jquery-ui.min.js", None),
        ("https://cdn.jsdelivr.net/npm/vue@3/dist/vue.global.prod.js", "vue"),  # (its npm package: packaged_modules.py)
        ("https://cdn.jsdelivr.net/npm/vue@2.7.16/dist/vue.min.js", None),  # (another major: the card's remote module)
        ("https://cdn.jsdelivr.net/npm/lodash-es/lodash.js", "lodash"),  # (the file, whatever the folder)
        ("https://cdn.jsdelivr.net/npm/lodash-es@4", None),
    ],
)  # fmt: skip
def test_the_libraries_a_frame_gets_locally(url: str, library: str | None) -> None:
    assert library_of(url) == library


def test_loads_are_taken_out_and_named() -> None:
    html = (
        '<head><script src="https://testingcf.jsdelivr.net/npm/jquery/dist/jquery.min.js"></script>'
        "<script src='https://cdn.jsdelivr.net/npm/vue@3/dist/vue.global.prod.js' defer></script>"
        '<link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css">'
        '<link rel="preconnect" href="https://fonts.gstatic.com">'
        '<link rel="icon" href="data:image/png;base64,AAAA">'
        '<script src="/scripts/extensions/third-party/JS-Slash-Runner/lib/tailwindcss.min.js"></script>'
        "</head><body><i class='fa fa-heart'></i><script>$('#好感').text('15');</script></body>"
    )
    kept, libraries, blocked = rewrite_document(html)
    assert libraries == ["jquery", "lodash", "vue"]  # (jQuery and lodash in every frame, as in TavernHelper's)
    assert blocked == [
        "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css",
        "/scripts/extensions/third-party/JS-Slash-Runner/lib/tailwindcss.min.js",
    ]
    assert "src=" not in kept and "preconnect" not in kept and "all.min.css" not in kept
    assert 'href="data:image/png;base64,AAAA"' in kept  # nothing to load: kept
    assert "$('#好感').text('15');" in kept


@pytest.mark.parametrize(
    ("script", "libraries"),
    [
        ("document.body.textContent = `好感 ${value}`", []),
        ("const data = YAML.parse(text);", ["yaml"]),
        ("const schema = z.object({ 好感度: z.coerce.number() });", ["zod"]),
        ("parent.YAML.stringify(v); window.parent.z.string()", ["yaml", "zod"]),
        ("const YAMLish = 1; const biz = 2; xyz.object; a.z.x", []),
    ],
)  # fmt: skip
def test_libraries_a_document_uses_without_loading_them(script: str, libraries: list[str]) -> None:
    # jQuery and lodash are in every frame, as in TavernHelper's; YAML and zod where the document names them.
    assert rewrite_document(f"<script>{script}</script>")[1] == ["jquery", "lodash", *libraries]


LIBS = ["jquery", "lodash"]
BAR = "<!doctype html><html><body><div id='bar'></div><script>bar.textContent = 1</script></body></html>"


def test_a_fenced_status_bar_is_a_frame_between_messages() -> None:
    content = "林晚笑了笑。\n<UpdateVariable>…</UpdateVariable>\n\n<StatusPlaceHolderImpl/>"
    display = f"林晚笑了笑。\n\n```html\n{BAR}\n```\n\n*（茶凉了）*"
    parts = status_parts(display, content, _html)
    assert parts == [
        {"html": "<p>林晚笑了笑。</p>\n"},
        {"frame": BAR, "libs": LIBS, "blocked": [], "remote": []},
        {"html": "<p><em>（茶凉了）</em></p>\n"},
    ]


def test_a_fenced_status_bar_in_text_with_windows_line_ends() -> None:
    # kai's template card: its greeting's lines end in \r\n, the bar's fence the regex put in ends in \n
    # and is followed by the greeting's \r\n.  The fence was not found: the bar ran with its ``` as text.
    content = "「你好」\r\n\r\n我看着她。\r\n<StatusPlaceHolderImpl/>\r\n后文"
    display = f"「你好」\r\n\r\n我看着她。\r\n```\r\n{BAR}\n```\r\n后文"
    parts = status_parts(display, content, _html)
    assert parts is not None and [list(part) for part in parts] == [["html"], ["frame", "libs", "blocked", "remote"],
                                                                     ["html"]]  # fmt: skip
    assert parts[1]["frame"] == BAR


def test_only_the_cards_own_code_runs() -> None:
    # A front-end block the model wrote itself: the script-less frame.
    written = f"看我写的：\n```html\n{BAR}\n```"
    assert status_parts(written + "\n\n【状态】", written + "\n\n<status/>", _html) == [
        {"html": "<p>看我写的：</p>\n"},
        {"document": BAR},
        {"html": "<p>【状态】</p>\n"},
    ]
    # Raw HTML with a script from the display regex: one frame, unless the words carry a script or a handler.
    raw = "她点点头。<div id='bar'></div><script>bar.textContent = 1</script>"
    frame = {"frame": raw, "libs": LIBS, "blocked": [], "remote": []}
    assert status_parts(raw, "她点点头。<StatusPlaceHolderImpl/>", _html) == [frame]
    # The lines of the model's words the regex left alone stay a message above the bar.
    story = "她点点头。\n\n*把茶推了过来。*\n"
    assert status_parts(story + raw, story + "<StatusPlaceHolderImpl/>", _html) == [
        {"html": "<p>她点点头。</p>\n<p><em>把茶推了过来。</em></p>\n"},
        frame,
    ]
    for words in ("她点点头。<script>x()</script>", '她<img src=x onerror="x()">', "<a href='javascript:x()'>点</a>"):
        assert status_parts(raw, words, _html) is None
    # No front-end document and no script: the message as before; nothing from a display script: the same.
    assert status_parts("<div class='bar'>好感 15</div>", "<status/>", _html) is None
    assert status_parts(None, "林晚笑了笑。", _html) is None
    # A code block that is not a page stays a code block of the message.
    assert status_parts("代码：\n```js\nconst a = 1;\n```", "<x/>", _html) is None


def test_sillytavern_message_numbers() -> None:
    # greeting, user, a reply with a tool round, user, reply; a note before anything has none
    roles = ["system", "assistant", "user", "assistant", "tool", "assistant", "user", "assistant"]
    assert tavern_numbers(roles) == [None, 0, 1, 2, 2, 2, 3, 4]
    assert tavern_numbers(["user", "user", "assistant", "assistant"]) == [0, 1, 2, 2]
    # A group round: two members answer one after the other, the first with a tool round.
    roles = ["assistant", "assistant", "user", "assistant", "tool", "assistant", "assistant"]
    finished = [True, True, False, False, False, True, True]
    assert tavern_numbers(roles, finished) == [0, 1, 2, 3, 3, 3, 4]


def _get(url: str) -> tuple[int, str, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode("utf-8"), dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8"), dict(error.headers)


def _post(url: str) -> dict[str, Any]:
    request = urllib.request.Request(url, data=b"{}", method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return dict(json.loads(answer.read()))


def test_the_endpoints_frames_read_through_the_page(home_dir: Path) -> None:
    home = Home(home_dir)
    seed_home(home)
    add_status_card(home)
    card = urllib.parse.quote(CARD)
    with LiveServer(home) as server:
        state = _post(f"{server.base_url}/api/chats/{card}")
        (greeting,) = state["messages"]
        assert greeting["message_id"] == 0 and greeting["parts"] is None
        base = f"{server.base_url}/api/chats/{card}/{state['chat_id']}/variables"
        status, text, _ = _get(base)
        every = json.loads(text)
        assert status == 200 and every["last"] == 0 and every["mvu"] is True
        (first,) = every["messages"]
        assert first["message"] == 0 and first["swipe_id"] == 0
        assert first["variables"]["stat_data"] == {"林晚": {"好感度": 10, "心情": "平静"}, "金钱": 100}  # the seed
        assert first["swipes"] == [first["variables"]]
        assert json.loads(_get(f"{base}?message=-1")[1])["messages"] == every["messages"]
        assert json.loads(_get(f"{base}?message=3&message=-5")[1])["messages"] == []
        status, script, headers = _get(f"{server.base_url}/api/frame-libs/jquery")
        assert status == 200 and script.startswith("/*! jQuery v3.7.1") and "javascript" in headers["content-type"]
        assert _get(f"{server.base_url}/api/frame-libs/lodash")[1].lstrip().startswith("/**")
        status, text, _ = _get(f"{server.base_url}/api/frame-libs/vue@2")
        assert status == 404 and "vue" in json.loads(text)["error"]


def test_remote_loads_are_markers_the_page_fills() -> None:
    html = (
        '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/font-awesome@4.7.0/css/font-awesome.min.css">'
        '<link rel="preconnect" href="https://fonts.loli.net">'
        '<script src="https://unpkg.com/vue@3"></script><script src="https://code.jquery.com/jquery-3.7.1.min.js"></script>'
        "<script type=\"module\">import{createPinia as t}from'https://testingcf.jsdelivr.net/npm/pinia/+esm';t()</script>"
    )
    part = status_parts(f"```html\n<body>{html}</body>\n```", "<StatusPlaceHolderImpl/>", _html)
    assert part is not None
    assert part[0]["remote"] == [
        {"url": "https://cdn.jsdelivr.net/npm/font-awesome@4.7.0/css/font-awesome.min.css", "kind": "style"},
        {"kind": "inline", "deps": ["https://testingcf.jsdelivr.net/npm/pinia/+esm"]},
    ]
    assert part[0]["frame"] == (
        '<body><style data-pear-remote="0"></style>'
        '<script type="text/x-pear-module" data-pear-remote="1">'
        "import{createPinia as t}from'__pear_dep_0__';t()</script>"
        "</body>"
    )
    # jQuery and Vue 3 are the frame's own (the npm package's, packaged_modules.py); Pinia's address is
    # answered from its package when the page asks for it.
    assert part[0]["libs"] == ["jquery", "lodash", "vue"] and part[0]["blocked"] == []
