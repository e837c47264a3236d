"""A long chat on the chat page, as role-players have them: the API answers with a window of the last
100 messages (SillyTavern's default) and says where it sits; the page draws that window, loads the
older ones on "show more" or by scrolling, patches a beat in without drawing the rest again, and edits,
hides and swipes far up the chat work inside the window.  Shapes only: the timings are
bench/bench_web_chat.py's."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import Any

import pytest
from web_harness import Served, beats_done, long_st_chat, open_new_chat, wait_ready

from peargarden.app.play.service import PearApp
from peargarden.testing.fake_openai import Pause, chunk, sse, status, text_reply

CARD = "青梧"
QUOTED = urllib.parse.quote(CARD)
# A chat this long is due for the stage's compaction after every beat. Its side call is answered with
# an error that is not retried, so the beat ends with the warning at once instead of after 1 + 2 + 4 s of
# back-off on an unscripted 500; the story memory itself is tests/app/test_app_story_memory*.py's.
COMPACTION_FAILS = status(400, "fake server: no summary in this test")


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def long_chat(served: Served) -> str:
    """A 301-message chat imported from SillyTavern (every reply with three swipes)."""
    return PearApp(served.home).import_chat(CARD, long_st_chat(301), "长夜谈.jsonl").chat_id


def open_chat(page: Any, served: Served, chat_id: str) -> None:
    page.goto(f"{served.url}/chat/{QUOTED}/{chat_id}")
    wait_ready(page)


def drawn(page: Any) -> list[int]:
    found = page.eval_on_selector_all("#messages li.msg[data-index]", "els => els.map(e => e.dataset.index)")
    return [int(i) for i in found]


def test_the_api_answers_with_a_window_and_where_it_sits(served: Served, long_chat: str) -> None:
    base = f"{served.url}/api/chats/{QUOTED}/{long_chat}"
    state = get(base)
    assert state["total"] == 301 and state["first"] == 201
    assert [m["index"] for m in state["messages"]] == list(range(201, 301))
    assert "tree" not in state  # the branch picture is asked for on its own
    older = get(f"{base}?last=100&before=201")
    assert [m["index"] for m in older["messages"]] == list(range(101, 201)) and older["first"] == 101
    since = get(f"{base}?since=298")
    assert [m["index"] for m in since["messages"]] == [298, 299, 300]
    # A message far up keeps its other versions: SillyTavern's swipes, as siblings.
    assert older["messages"][1]["sibling"] == [2, 3] and older["messages"][0]["sibling"] == [1, 1]
    tree = get(f"{base}/tree?around=201")["tree"]
    assert 0 < len(tree) < 400 and any(row["on_path"] for row in tree)


def test_a_long_chat_draws_its_last_window_and_more_on_demand(served: Served, page: Any, long_chat: str) -> None:
    open_chat(page, served, long_chat)
    assert drawn(page) == list(range(201, 301))
    assert "201" in page.inner_text("#messages li.more-older")  # how many earlier messages there are
    top = page.locator("#messages li.msg[data-index='201']")
    before = top.bounding_box()["y"]
    page.eval_on_selector("#messages li.more-older button", "b => b.click()")  # where the reader is
    page.wait_for_function("document.querySelectorAll('#messages li.msg').length === 200")
    assert drawn(page) == list(range(101, 301))
    # The messages on the screen stay where they were: the older ones went in above them.
    assert abs(top.bounding_box()["y"] - before) < 2
    # Scrolling up brings the rest; the page keeps at most 200 messages, dropping the newest.
    to_top = "e => { e.scrollTop = 0; e.dispatchEvent(new Event('scroll')); }"
    page.locator("#messages").evaluate(to_top)
    page.wait_for_function("document.querySelector('#messages li.msg').dataset.index === '1'")
    page.locator("#messages").evaluate(to_top)
    page.wait_for_function("document.querySelector('#messages li.msg').dataset.index === '0'")
    assert len(drawn(page)) == 200 and drawn(page)[0] == 0
    assert page.locator("#messages li.more-newer").is_visible()
    assert page.locator("#messages li.more-older").is_hidden()


def test_a_beat_patches_the_page_without_drawing_the_rest_again(served: Served, page: Any) -> None:
    chat_id = PearApp(served.home).import_chat(CARD, long_st_chat(151), "补丁.jsonl").chat_id
    open_chat(page, served, chat_id)
    page.evaluate("""() => {
        window.__first = document.querySelector('#messages li.msg[data-index]');
        window.__changes = [];
        new MutationObserver((records) => {
          for (const record of records) {
            for (const node of [...record.addedNodes, ...record.removedNodes]) {
              if (node.dataset && node.dataset.index !== undefined) window.__changes.push(Number(node.dataset.index));
            }
          }
        }).observe(document.getElementById('messages'), { childList: true });
    }""")
    served.fake.script([text_reply("“客官，", "雨停了。”"), COMPACTION_FAILS])
    trees: list[str] = []
    page.on("request", lambda request: trees.append(request.url) if "/tree?" in request.url else None)
    page.fill("#composer", "雨停了吗？")
    page.click("#send")
    beats_done(page, 1)
    assert served.fake.pending == 0
    # The branch tree is read once, with the reply: the after-beat work (a compaction that failed)
    # added no entry, so the beat's last read of the chat does not read the tree again.
    assert len(trees) == 1, trees
    page.wait_for_function("document.getElementById('tree').textContent.includes('雨停了')")
    # The new user message and the reply were added; nothing drawn before them was touched.
    changes = page.evaluate("window.__changes")
    assert sorted(changes) == [151, 152], changes
    assert page.evaluate("window.__first.isConnected")
    assert drawn(page) == list(range(51, 153))
    reply = page.locator("#messages li.msg[data-index='152']")
    assert "雨停了" in reply.inner_text() and reply.locator(".swipe-count").count() == 0
    assert reply.locator("button.swipe-next").count() == 1  # the arrows moved to the new reply
    assert page.locator("#messages li.msg[data-index='150'] .swipes").count() == 0
    # A regenerate patches the reply only: the user's message stays as drawn.
    page.evaluate("window.__changes = []")
    served.fake.script([text_reply("“客官，雨小了。”"), COMPACTION_FAILS])
    page.click("#regenerate")
    beats_done(page, 2)
    assert served.fake.pending == 0
    assert sorted(page.evaluate("window.__changes")) == [152, 152]  # the old reply out, the new in
    assert page.inner_text("#messages li.msg[data-index='152'] .swipe-count") == "2/2"


def test_edits_hides_and_swipes_far_up_work_inside_the_window(served: Served, page: Any) -> None:
    chat_id = PearApp(served.home).import_chat(CARD, long_st_chat(251), "远处.jsonl").chat_id
    open_chat(page, served, chat_id)
    page.click("#messages li.more-older button")
    page.wait_for_function("document.querySelectorAll('#messages li.msg').length === 200")
    # Another version of a reply far up (SillyTavern's swipes survive the import): that version has no
    # story after it, so the branch ends there; back to the kept one, the story is there again.
    far = page.locator("#messages li.msg[data-index='60']")
    far.scroll_into_view_if_needed()
    assert far.locator(".kin-count").inner_text() == "2/3"
    far.locator("button.kin-next").click()
    page.wait_for_function("!document.querySelector(\"#messages li.msg[data-index='61']\")")
    far = page.locator("#messages li.msg[data-index='60']")
    assert "（60·其2）" in far.inner_text()
    assert far.locator(".swipe-count").inner_text() == "3/3"  # the last reply now: SillyTavern's arrows
    far.locator("button.swipe-prev").click()
    page.locator("#messages li.msg[data-index='61']").wait_for(state="attached")
    assert "（60·其1）" in page.locator("#messages li.msg[data-index='60']").inner_text()
    assert drawn(page) == list(range(0, 160))  # the story after it, one page at a time
    page.eval_on_selector("#messages li.more-newer button", "b => b.click()")
    page.locator("#messages li.msg[data-index='250']").wait_for(state="attached")
    shown = drawn(page)
    assert shown == list(range(shown[0], 251)) and shown[0] <= 60  # the reader's part and the rest of it
    # An edit far up, in place in the window.
    user = page.locator("#messages li.msg[data-index='61']")
    user.locator("button.edit").click()
    page.fill(".edit-box", "改过的话（61）")
    page.click(".save-edit")
    page.locator("#messages li.msg[data-index='61']", has_text="改过的话").wait_for()
    assert 51 in drawn(page) and len(drawn(page)) <= 200  # near the top of the window: older ones may come in
    # Hiding one far up.
    page.locator("#messages li.msg[data-index='63'] button.hide").click()
    page.locator("#messages li.msg.hidden-msg[data-index='63']").wait_for()
    assert 63 in drawn(page) and len(drawn(page)) <= 200


def test_the_page_of_a_long_chat_stays_small_at_phone_width(served: Served, page: Any) -> None:
    chat_id = PearApp(served.home).import_chat(CARD, long_st_chat(2001), "手机.jsonl").chat_id
    page.set_viewport_size({"width": 390, "height": 844})
    open_chat(page, served, chat_id)
    page.wait_for_selector("#tree .node")
    assert len(drawn(page)) == 100
    assert page.evaluate("document.getElementsByTagName('*').length") < 5000
    # No sideways scroll on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_composer_is_free_once_the_reply_ends_and_the_next_beat_waits(served: Served, page: Any) -> None:
    """Scene notes run after the reply: the page takes input at once (``reply_end``) and says
    "整理场记…" until they are written; a message sent meanwhile shows at once and its beat starts
    when the notes are done."""
    config = served.home.config_file
    saved = config.read_text(encoding="utf-8")
    config.write_text(saved.replace("scene_notes = false", "scene_notes = true"), encoding="utf-8")
    slow_notes = sse(chunk(role="assistant", content=""), Pause(2.0), chunk(content="{}"), chunk(finish_reason="stop"))
    try:
        replies = [text_reply("周伯收起伞进了门。"), slow_notes, text_reply("青梧斟了一碗姜茶。"), text_reply("{}")]
        served.fake.script(replies)
        first = len(served.fake.chat_requests)
        open_new_chat(page, served.url)
        page.fill("#composer", "外面雨大吗？")
        page.click("#send")
        page.locator("#messages li.msg[data-index]", has_text="周伯收起伞").wait_for()
        page.locator("#tidying").wait_for()  # the notes are being written
        assert page.is_enabled("#send") and page.is_hidden("#stop")
        page.fill("#composer", "那就喝碗姜茶。")
        page.click("#send")
        pending = page.locator("#messages li.pending", has_text="那就喝碗姜茶")
        assert pending.is_visible()  # shown at once, with its chrome: who says it, when
        assert pending.locator(".speaker").inner_text() == "旅人" and pending.locator(".msg-time").inner_text()
        beats_done(page, 2)
        assert page.is_hidden("#tidying")
        assert "青梧斟了一碗姜茶" in page.locator("#messages li.msg.assistant").last.inner_text()
        assert len(served.fake.chat_requests) - first == 4  # two beats, two notes, in that order:
        # The second beat was sent after the first beat's notes: its request carries the first reply.
        assert "周伯收起伞进了门" in json.dumps(served.fake.chat_requests[first + 2].body, ensure_ascii=False)
        assert "周伯收起伞进了门" in json.dumps(served.fake.chat_requests[first + 1].body, ensure_ascii=False)
    finally:
        config.write_text(saved, encoding="utf-8")


def test_the_composer_is_free_at_reply_end_before_any_request_answers(served: Served, page: Any) -> None:
    """The after-beat work may keep the server (and, with the embedded model, the machine) busy:
    the composer does not wait for the request that draws the reply as kept.  Here that request is
    held back by the browser until the test lets it through."""
    config = served.home.config_file
    saved = config.read_text(encoding="utf-8")
    config.write_text(saved.replace("scene_notes = false", "scene_notes = true"), encoding="utf-8")
    held: list[Any] = []
    released = False

    def hold(route: Any) -> None:
        if released:
            route.continue_()
        else:
            held.append(route)

    try:
        served.fake.script([text_reply("周伯收起伞进了门。"), text_reply("{}")])
        open_new_chat(page, served.url)
        page.route("**/api/chats/**since=*", hold)
        page.fill("#composer", "外面雨大吗？")
        page.click("#send")
        page.wait_for_function("performance.getEntriesByName('pear-usable').length > 0")
        assert page.is_enabled("#send") and page.is_hidden("#stop") and page.is_visible("#tidying")
        live = page.locator("#messages li.live", has_text="周伯收起伞进了门")
        assert live.is_visible()  # the reply is on the screen, streamed
        page.wait_for_function("performance.getEntriesByName('pear-kept').length === 0")
        assert held  # the patch is asked for and waits
        released = True
        for route in held:
            route.continue_()
        beats_done(page, 1)
        kept = page.locator("#messages li.msg[data-index='2']", has_text="周伯收起伞进了门")
        assert kept.locator("button.edit").count() == 1 and page.locator("#messages li.live").count() == 0
        assert page.evaluate("performance.getEntriesByName('pear-kept').length") == 1
    finally:
        config.write_text(saved, encoding="utf-8")



LOADER_IN_VIEW = """() => {
  const item = document.querySelector('#messages li.more-older');
  const list = document.getElementById('messages');
  const scrolls = getComputedStyle(list).overflowY !== 'visible';
  const view = scrolls ? list.getBoundingClientRect() : { top: 0, bottom: innerHeight };
  const box = item.getBoundingClientRect();
  return !item.hidden && box.bottom > view.top && box.top < view.bottom;
}"""
# The reader 2,000 px below the "show earlier" item: still screens away from it.
SCROLL_NEAR_THE_TOP = """() => {
  const list = document.getElementById('messages');
  const item = document.querySelector('#messages li.more-older');
  if (getComputedStyle(list).overflowY === 'visible') {
    window.scrollTo(0, item.getBoundingClientRect().bottom + window.scrollY + 2000);
  } else {
    list.scrollTop = item.offsetTop - list.offsetTop + item.offsetHeight + 2000;
  }
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_older_messages_come_before_the_reader_reaches_the_top(served: Served, long_chat: str, page: Any,
                                                                width: int) -> None:  # fmt: skip
    """Scrolling up asks for the older page while the reader is still screens below its end (a wheel
    moves 800 px a notch; with a margin of 300 px the loader came into view): the list scrolls on the
    wide screen, the page on a phone."""
    page.set_viewport_size({"width": width, "height": 844})
    open_chat(page, served, long_chat)
    assert drawn(page)[0] == 201
    page.evaluate(SCROLL_NEAR_THE_TOP)
    page.wait_for_function("document.querySelector('#messages li.msg[data-index]').dataset.index < 201")
    assert drawn(page)[0] == 101 and not page.evaluate(LOADER_IN_VIEW)
