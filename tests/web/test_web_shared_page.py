"""The browser tests share one page per worker (web_harness.SharedPage): after its reset, a page that a
test left full of state looks to the next test exactly like a page in a new browser context."""

from __future__ import annotations

from typing import Any

from web_harness import LOCALE, VIEWPORT, Served, SharedPage, wait_ready

# Everything a test could observe of what an earlier test left, read from inside one of our pages.
FINGERPRINT = """async () => {
  const css = performance.getEntriesByType("resource").find(e => e.name.endsWith("/app.css"));
  return {
    local: Object.entries(localStorage), session: Object.entries(sessionStorage), cookie: document.cookie,
    databases: (await indexedDB.databases()).map(d => d.name), caches: await caches.keys(),
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone, width: innerWidth, height: innerHeight,
    history: history.length, lang: document.documentElement.lang,
    button: document.getElementById("lang-switch").textContent,
    cssFromNetwork: css !== undefined && css.transferSize > 0,
    health: await (await fetch("/api/health")).json(),
    clipboard: (await navigator.permissions.query({name: "clipboard-read"})).state,
  };
}"""


def fingerprint(page: Any, url: str) -> dict[str, Any]:
    page.goto(url + "/settings")
    wait_ready(page)
    return page.evaluate(FINGERPRINT)  # type: ignore[no-any-return]


def test_a_reset_page_is_a_new_page(served: Served, browser: Any, shared_page: SharedPage) -> None:
    fresh_context = browser.new_context(viewport=VIEWPORT, locale=LOCALE)
    expected = fingerprint(fresh_context.new_page(), served.url)
    fresh_context.close()
    assert expected["local"] == [] and expected["width"] == VIEWPORT["width"] and expected["cssFromNetwork"]

    shared_page.check_fresh()
    try:
        page = shared_page.page
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.accept()))  # type: ignore[func-returns-value]
        page.route("**/api/health", lambda route: route.fulfill(json={"ok": "伪造"}))
        page.goto(served.url + "/settings")
        wait_ready(page)
        page.evaluate("""async () => {
          localStorage.setItem("pear-lang", "en"); sessionStorage.setItem("草稿", "半句话");
          document.cookie = "seen=1; max-age=3600"; indexedDB.open("旧库", 1); await caches.open("旧缓存");
          history.pushState({}, "", "#later");
        }""")
        with shared_page.context.expect_page():  # a second page in the context (it opens asynchronously)
            page.evaluate("window.open('/vault')")
        page.set_viewport_size({"width": 390, "height": 844})
        shared_page.context.grant_permissions(["clipboard-read"])
        shared_page.emulate_timezone("Asia/Shanghai")
        page.mouse.move(200, 30)
        left = page.evaluate(FINGERPRINT)
        # The state is really there before the reset (so the comparison below can fail).
        assert left["local"] == [["pear-lang", "en"]] and left["session"] == [["草稿", "半句话"]]
        assert left["cookie"] == "seen=1" and left["databases"] == ["旧库"] and left["caches"] == ["旧缓存"]
        assert left["health"] == {"ok": "伪造"} and left["width"] == 390 and left["zone"] == "Asia/Shanghai"
        assert left["clipboard"] == "granted" != expected["clipboard"]
        assert len(shared_page.context.pages) == 2

        shared_page.reset()
        shared_page.check_fresh()
        assert fingerprint(page, served.url) == expected
        page.evaluate("alert('没有人在听')")  # no listener left: Playwright dismisses it, the old one is not called
        assert dialogs == []
    finally:  # the page fixture's own check follows in the next test: a failure here must not leave it dirty
        shared_page.reset()
