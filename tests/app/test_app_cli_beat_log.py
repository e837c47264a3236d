"""A beat played with `pear chat` is kept in the chat's beat log, so the web page's prompt
inspector, in-context marker and generation times show it like a beat played on the page."""

from __future__ import annotations

import json
from pathlib import Path

from kit.cli import pear_in_process
from peargarden.app.play import beat_log
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.web.api_inspect import inspect_source
from peargarden.web.chat_hub import ChatHub
from peargarden.workspace.home import Home


def _once(text: str, server: FakeOpenAIServer) -> list[str]:
    return ["chat", "--once", text, "--mode", "stage", "--base-url", server.base_url, "--model", "m"]


def test_a_shell_beat_shows_in_the_web_inspector(home_dir: Path) -> None:
    with FakeOpenAIServer() as server:
        server.script([text_reply("青梧把灯芯拨亮了些。"), text_reply('{"patch": {}}')])  # the beat, its scene notes
        pear_in_process(home_dir, *_once("掌柜，灯笼是红的吗？", server), check=True)
        sent = server.chat_requests[0].body["messages"]
    listed = json.loads(pear_in_process(home_dir, "sessions", "list", "--json", check=True).stdout)
    chat_id = listed[0]["id"]
    home = Home(home_dir)
    hub = ChatHub(home)
    chat = hub.chat("青梧", chat_id)
    beats = chat.session.beat_records()
    assert len(beats) == 1 and beats[0].seconds >= 0 and len(beats[0].entries) == 2
    last = inspect_source(chat, "last")
    rows = last["rounds"][0]["messages"]
    assert [row["content"] for row in rows] == [str(m["content"]) for m in sent]  # the very request
    # pear chat writes no token counts (a tokenizer load the beat did not need); the reader fills them
    written = json.loads(beat_log.log_path(chat.session.chat.path).read_text(encoding="utf-8"))
    assert {row["tokens"] for row in written["beats"][0]["rounds"][0]["messages"]} == {None}
    assert all(row["tokens"] > 0 for row in rows)
    assert last["rounds"][0]["total_tokens"] == sum(row["tokens"] for row in rows)
    assert last["in_context"]  # the marker has something to mark
    # story memory's side call was recorded with the beat that caused it, as on the page
    assert [r["purpose"] for r in last["rounds"]] == ["beat", "scene_notes"]
    assert beat_log.log_path(chat.session.chat.path).is_file()
    # A page already open on the chat picks up the next beat played in the shell.
    with FakeOpenAIServer() as server:
        server.script([text_reply("“红的，和十年前一样。”"), text_reply('{"patch": {}}')])
        pear_in_process(home_dir, *_once("灯笼一直是红的？", server), "--chat", chat_id, check=True)
    again = hub.chat("青梧", chat_id)
    assert again is chat and len(chat.session.beat_records()) == 2
