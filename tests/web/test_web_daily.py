"""The daily list of issue 31: the inspector of a chat that does not exist is a 404; one placeholder
picture; persona names checked as card names are; serving off loopback (a reachable URL printed, the
token out of the address bar once it is a cookie, a page that asks for the token); a body that stops
mid-upload is given up."""

from __future__ import annotations

import http.client
import json
import socket
import urllib.parse
from typing import Any

import pytest
from web_harness import LiveServer, Served, beats_done, open_new_chat

from kit.workspace import card_png, v2_card
from peargarden.app.library.personas import persona_name
from peargarden.errors import BadInput
from peargarden.formats import read_card
from peargarden.testing.fake_openai import text_reply
from peargarden.web import safety
from peargarden.web.addresses import reachable_urls
from peargarden.workspace.home import Home

CARD = urllib.parse.quote("青梧")


def call(port: int, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    connection.request(method, path, body=body, headers={"Host": f"127.0.0.1:{port}", **(headers or {})})
    return connection.getresponse()


def test_the_inspector_of_a_chat_that_does_not_exist_is_not_found(served: Served) -> None:
    answer = call(served.server.port, "GET", f"/inspect/{CARD}/20260101-000000-dead")
    assert answer.status == 404 and "没有对话" in json.loads(answer.read())["error"]


def test_one_placeholder_picture_for_a_card_without_one(served: Served) -> None:
    folder = served.home.card_dir("说书人")
    folder.mkdir()
    (folder / "说书人.json").write_text(json.dumps(v2_card("说书人"), ensure_ascii=False), encoding="utf-8")
    answer = call(served.server.port, "GET", f"/api/cards/{urllib.parse.quote('说书人')}/avatar")
    svg = answer.read().decode("utf-8")
    assert answer.getheader("content-type").startswith("image/svg+xml")
    assert ">说</text>" in svg and "#4a6b5d" in svg  # its first character on the accent, as chat initials


def test_persona_names_get_the_checks_card_names_get(tmp_path: Any) -> None:
    personas = tmp_path / "personas"
    personas.mkdir()
    assert persona_name(personas, "  夜行\n 客  ") == "夜行 客"
    (personas / "旅人_.json").write_text(json.dumps({"name": "旅人_"}), encoding="utf-8")
    for bad in ("", "   ", "？！", "长" * 201, "旅人?"):  # the last would share 旅人_.json
        with pytest.raises(BadInput):
            persona_name(personas, bad)
    assert persona_name(personas, "旅人_") == "旅人_"  # the persona itself may be saved again


def test_persona_names_are_checked_by_the_api(served: Served) -> None:
    port = served.server.port
    ok = call(port, "POST", "/api/personas", json.dumps({"name": " 说书\t先生 "}).encode(),
              {"Content-Type": "application/json"})  # fmt: skip
    assert ok.status == 200 and json.loads(ok.read())["name"] == "说书 先生"
    for name in ("。。。", "长" * 300):
        refused = call(port, "POST", "/api/personas", json.dumps({"name": name}).encode(),
                       {"Content-Type": "application/json"})  # fmt: skip
        assert refused.status in (400, 422), name


def test_the_printed_address_is_one_a_browser_can_open() -> None:
    assert reachable_urls("192.168.1.5", 8420, "?token=x") == ["http://192.168.1.5:8420/?token=x"]
    for url in reachable_urls("0.0.0.0", 8420):
        host = urllib.parse.urlsplit(url).hostname
        assert (host not in ("0.0.0.0", "::") and not host.startswith("127.")) or url == "http://127.0.0.1:8420/"  # type: ignore[union-attr]


def test_off_loopback_the_token_leaves_the_address_bar_and_a_page_asks_for_it(
    seeded_home: Home, page: Any
) -> None:
    with LiveServer(seeded_home, token="s3cret-Tok_en", host="0.0.0.0") as server:
        asked = call(server.port, "GET", "/settings")
        body = asked.read().decode("utf-8")
        assert asked.status == 401 and '<input name="token"' in body and "需要访问令牌" in body
        assert call(server.port, "GET", "/api/cards").status == 401  # the API still answers in JSON
        moved = call(server.port, "GET", f"/chat/{CARD}?token=s3cret-Tok_en&x=1")
        assert moved.status == 303 and moved.getheader("location") == f"/chat/{CARD}?x=1"
        assert "pear_token=" in (moved.getheader("set-cookie") or "")
        # In the browser: the form, then the page, the token nowhere in the address bar.
        page.goto(f"{server.base_url}/")
        page.fill("input[name=token]", "s3cret-Tok_en")
        page.click("button[type=submit]")
        page.wait_for_selector("#card-grid")
        assert "token" not in page.url and page.url.rstrip("/") == server.base_url
        page.goto(f"{server.base_url}/settings?token=s3cret-Tok_en")
        assert page.url == f"{server.base_url}/settings"


def test_a_body_that_stops_mid_upload_is_given_up(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safety, "BODY_TIMEOUT", 1.0)
    with socket.create_connection(("127.0.0.1", served.server.port), timeout=20) as raw:
        raw.sendall(
            b"POST /api/personas HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n{\"name\": \"" % served.server.port
        )
        # The server answers (the socket would time out first if it waited for the rest).
        data = b""
        while "上传中断".encode() not in data and (piece := raw.recv(4096)):
            data += piece
    answer = data.decode("utf-8", errors="replace")
    assert answer.startswith("HTTP/1.1 408") and "上传中断" in answer


def test_importing_a_card_again_asks_replace_or_copy(seeded_home: Home, page: Any, tmp_path: Any) -> None:
    """The same card dropped again: the page asks; replace keeps the folder, its chats and settings
    (the old card file in the vault), copy makes 说书人-2; nothing is written before the answer."""
    first = tmp_path / "说书人.png"
    first.write_bytes(card_png(v2_card("说书人", description="旧的描述。")))
    with LiveServer(seeded_home) as server:
        page.goto(server.base_url + "/")
        page.set_input_files("#file-input", str(first))
        page.wait_for_selector(".card-tile[data-folder='说书人']")
        folder = seeded_home.card_dir("说书人")
        (folder / "chats" / "20260101-000000-aaaa").mkdir(parents=True)
        (folder / "卡.json").write_text('{"persona": "旅人"}', encoding="utf-8")
        newer = tmp_path / "新版" / "说书人.png"
        newer.parent.mkdir()
        newer.write_bytes(card_png(v2_card("说书人", description="新的描述。")))
        page.set_input_files("#file-input", str(newer))
        page.locator("#import-again[open]").wait_for()
        assert "说书人" in page.inner_text("#import-again-text")
        assert not seeded_home.card_dir("说书人-2").exists()  # asked before anything was written
        page.evaluate("window.beforeImport = true")
        page.click("#import-again button[value='replace']")
        # The page reloads itself after an import: wait for the new page, or a goto below races it.
        page.wait_for_function("window.beforeImport === undefined")
        page.wait_for_selector(".card-tile[data-folder='说书人']")
        assert read_card((folder / "说书人.png").read_bytes(), "说书人.png").data["description"] == "新的描述。"
        assert (folder / "chats" / "20260101-000000-aaaa").is_dir()  # its chats stay
        assert "旅人" in (folder / "卡.json").read_text(encoding="utf-8")  # and its settings
        assert not seeded_home.card_dir("说书人-2").exists()
        page.goto(server.base_url + "/")
        page.set_input_files("#file-input", str(newer))
        page.locator("#import-again[open]").wait_for()
        page.click("#import-again button[value='copy']")
        page.wait_for_selector(".card-tile[data-folder='说书人-2']")


@pytest.mark.parametrize("mode", ["stage", "tavern"])
def test_the_lorebook_entries_that_fired_are_shown_under_the_reply(served: Served, page: Any, mode: str) -> None:
    """A message naming 周伯 and 那把伞: the reply says which entries of 栖水镇 fired (the stage's lore
    hits, SillyTavern's activated world info in tavern mode); a reply without a keyword lists none."""
    served.fake.script([text_reply("周伯收起那把伞。"), text_reply("雨停了。")])
    open_new_chat(page, served.url)
    page.select_option("#mode", mode)
    page.wait_for_function(f"document.getElementById('chat').dataset.mode === '{mode}'")
    page.fill("#composer", "周伯，那把伞是谁的？")
    page.click("#send")
    beats_done(page, 1)
    reply = page.locator("#messages li.msg.assistant[data-index]").last
    fold = reply.locator("details.lore-hits")
    fold.locator("summary").click()
    shown = fold.inner_text()
    assert "周伯" in shown and "旧油纸伞" in shown and "栖水镇" in shown, shown
    page.fill("#composer", "嗯。")
    page.click("#send")
    beats_done(page, 2)
    quiet = page.locator("#messages li.msg.assistant[data-index]").last
    fired = quiet.locator("details.lore-hits")
    assert fired.count() == 0 or "周伯" not in fired.inner_text()


def test_streaming_switch_and_connection_profiles(served: Served, page: Any) -> None:
    """A connection's streaming switch (its replies then come whole: ``"stream": false``), and a
    connection profile chosen on the chat page (the next beat uses its model)."""
    config = served.home.config_file
    saved = config.read_text(encoding="utf-8")
    try:
        page.goto(f"{served.url}/settings")
        switch = page.locator("tr[data-connection='fake'] .stream-switch input")
        switch.wait_for()
        assert switch.is_checked()
        switch.uncheck()
        page.wait_for_function("document.querySelector('#toast') && !document.querySelector('#toast').hidden")
        assert "stream = false" in config.read_text(encoding="utf-8")
        # A profile: the same connection, another model.
        page.fill("#model-model", "fake-model-2")
        page.fill("#profile-name", "夜读")
        page.click("#profile-save")
        page.locator("#profiles li[data-profile='夜读']").wait_for()
        assert '[profiles."夜读"]' in config.read_text(encoding="utf-8")  # a CJK name is quoted in TOML
        served.fake.script([text_reply("整段到达的回复。"), text_reply("换了模型。")])
        open_new_chat(page, served.url)
        page.fill("#composer", "在吗？")
        page.click("#send")
        beats_done(page, 1)
        body = served.fake.chat_requests[-1].body
        assert body["stream"] is False and "stream_options" not in body
        assert body["model"] == "fake-model"  # the profile is kept, not yet in force
        assert "整段到达的回复" in page.locator("#messages li.msg.assistant[data-index]").last.inner_text()
        # The profile chosen on the chat page: this chat's next beat uses its model.
        page.select_option("#connection-profile", "夜读")
        page.wait_for_function("document.querySelector('#toast').textContent.includes('夜读')")
        page.fill("#composer", "换个模型。")
        page.click("#send")
        beats_done(page, 2)
        assert served.fake.chat_requests[-1].body["model"] == "fake-model-2"
    finally:
        config.write_text(saved, encoding="utf-8")
