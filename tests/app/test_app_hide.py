"""A hidden message stays in the chat but reaches the model in neither way to play; shown again, it
does (SillyTavern's /hide and /unhide through the service)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kit.apps import scripted_app, seeded_home
from kit.cli import pear_in_process
from peargarden.app.play.service import PearApp
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home

ASIDE = "（场外：我去倒杯水，马上回来）"


@pytest.fixture
def home(home_dir: Path) -> Home:
    return seeded_home(home_dir)


def _app(home: Home, provider: ScriptedProvider) -> PearApp:
    return scripted_app(home, provider, thinking="off")


def _sent(request_messages: list[dict[str, object]]) -> str:
    return "\n".join(str(m.get("content")) for m in request_messages)


@pytest.mark.parametrize("mode", ["stage", "tavern"])
def test_a_hidden_aside_is_kept_but_not_sent(home: Home, mode: str) -> None:
    provider = ScriptedProvider().add(text_turn("好，客官慢走。"), text_turn("青梧点了点头。"))
    chat = _app(home, provider).new_chat("青梧")
    chat.set_mode(mode)
    list(chat.send(ASIDE))
    assert ASIDE in _sent(chat.preview(mode, "掌柜，我回来了。").request.messages)
    assert chat.hide(1, 2)  # the aside and its answer
    assert [m.content for m in chat.messages()][1] == ASIDE  # still in the chat
    assert ASIDE not in _sent(chat.preview(mode, "掌柜，我回来了。").request.messages)
    list(chat.send("掌柜，我回来了。"))
    assert ASIDE not in _sent(provider.requests[-1].messages)  # the beat itself, not only the preview
    assert not chat.hide(1, 2)  # hidden already
    assert chat.hide(1, 1, hidden=False)
    assert ASIDE in _sent(chat.preview(mode, "再来一壶。").request.messages)


def test_the_sillytavern_export_marks_hidden_messages_is_system(home: Home) -> None:
    provider = ScriptedProvider().add(text_turn("好。"))
    chat = _app(home, provider).new_chat("青梧")
    list(chat.send(ASIDE))
    chat.hide(1)
    lines = [json.loads(line) for line in chat.export_sillytavern().decode("utf-8").splitlines()]
    assert [line["is_system"] for line in lines[1:]] == [False, True, False]


def test_hide_and_unhide_in_pear_chat(home_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer() as server:
        server.script([text_reply("好，客官慢走。"), text_reply("青梧点了点头。")])
        lines = [ASIDE, "/hide 1-2", "/show", "/hide 1", "掌柜，我回来了。", "/unhide 2", "/show", "/hide x", "/quit"]
        monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
        done = pear_in_process(home_dir, "chat", "--mode", "tavern", "--base-url", server.base_url, "--model", "m")
        sent = server.chat_requests[-1].body["messages"]
    assert done.returncode == 0, done.stderr
    assert "第 1–2 条已隐藏，不再发给模型。" in done.stderr and "第 1 条没有要改的。" in done.stderr
    assert "第 2 条已取消隐藏，重新发给模型。" in done.stderr and "需要消息编号 N 或范围 N-M" in done.stderr
    assert f"[1] （已隐藏）你：{ASIDE}" in done.stdout
    assert ASIDE not in _sent(sent)
    chat_id = json.loads(pear_in_process(home_dir, "sessions", "list", "--json", check=True).stdout)[0]["id"]
    shown = pear_in_process(home_dir, "sessions", "show", chat_id, check=True).stdout
    assert f"[1] （已隐藏）你：{ASIDE}" in shown and "[2] 青梧：好，客官慢走。" in shown  # 1 hidden, 2 shown again


def test_hiding_keeps_the_chat_one_line_and_a_file_of_the_earlier_format_still_reads(home: Home) -> None:
    """A hide is a flag on the message (SillyTavern's is_system): no copy of what follows, no branch in
    the tree, the swipes as they were; a chat whose hides were written as copies (the format before)
    opens with its hidden messages as they were."""
    provider = ScriptedProvider().add(text_turn("好，客官慢走。"), text_turn("再会。"), text_turn("青梧点了点头。"))
    app = _app(home, provider)
    chat = app.new_chat("青梧")
    list(chat.send(ASIDE))
    list(chat.regenerate())  # two swipes of the answer
    list(chat.send("掌柜，我回来了。"))
    ids, rows = [e.id for e in chat.chat.tree.messages()], len(chat.tree_rows())
    assert chat.hide(1, 2)
    assert [e.id for e in chat.chat.tree.messages()] == ids and len(chat.tree_rows()) == rows
    assert chat.view().rows[2].sibling == (2, 2)  # the answer is still the second of its swipes
    assert [("hidden" in m.tags) for m in app.open_chat("青梧", chat.chat_id).messages()] == [
        False, True, True, False, False,
    ]  # fmt: skip

    # The earlier format: a hide forked a copy of the hidden message and what followed.
    session = chat.chat.path
    lines = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    header, kept = lines[0], [line for line in lines[1:] if line.get("type") == "message"]
    user = next(line for line in kept if line["message"]["role"] == "user")
    copy = {**user, "id": "c0ffee01", "message": {**user["message"], "tags": ["hidden"]}}
    older = "\n".join(json.dumps(line, ensure_ascii=False) for line in [header, *kept[:2], copy]) + "\n"
    session.write_text(older, encoding="utf-8")
    reread = app.open_chat("青梧", chat.chat_id)
    assert [("hidden" in m.tags) for m in reread.messages()] == [False, True]
    assert not reread.chat.warnings
