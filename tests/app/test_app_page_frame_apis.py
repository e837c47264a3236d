"""``EjsTemplate`` and ``Mvu.parseMessage`` for a card's page scripts (issue 45): answered by the server
(``app/play/page_frame_apis.py``) with the Python EJS that renders world info and the server's MVU,
over the chat's variables — a template's ``setvar`` is kept as an edit of the chat, ``parseMessage``
writes nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from peargarden.app.play.page_scripts import run_calls
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from script_card import CARD, add_script_card  # type: ignore[import-not-found]

SCRIPT = "0b-panel"
LATEST = {"type": "message", "message_id": -1}


@pytest.fixture
def chat(tmp_path: Path) -> ChatSession:
    home = Home(tmp_path / "梨园")
    seed_home(home)
    add_script_card(home)
    return PearApp(home).new_chat(CARD, ChatOptions(mode="tavern"))


def _call(chat: ChatSession, name: str, *args: Any) -> dict[str, Any]:
    return dict(run_calls(chat, [{"script": SCRIPT, "name": name, "args": list(args)}])["answers"][0])


def _value(chat: ChatSession, name: str, *args: Any) -> Any:
    answer = _call(chat, name, *args)
    assert "error" not in answer, answer
    return json.loads(answer["json"]) if "json" in answer else None


def test_eval_template_reads_the_chats_variables_and_keeps_what_it_sets(chat: ChatSession) -> None:
    template = ("<%= 名字 %>的资金：<%= getvar('stat_data.房东.资金') %>"
                "<% setvar('记账次数', 3, {scope: 'local'}); setvar('心情', '好', {scope: 'global'}) %>")  # fmt: skip
    assert _value(chat, "EjsTemplate.evalTemplate", template, {"名字": "阿梨"}) == "阿梨的资金：30"
    assert _value(chat, "getVariables", {"type": "chat"})["记账次数"] == 3  # kept: a new host reads it
    assert _value(chat, "getVariables", {"type": "global"})["心情"] == "好"
    assert chat.variables().chat.get("记账次数") == 3


def test_a_failing_template_rejects_with_one_line_and_writes_nothing(chat: ChatSession) -> None:
    before = _value(chat, "getVariables", {"type": "chat"})
    answer = _call(chat, "EjsTemplate.evalTemplate", "<% setvar('记账次数', 9, {scope: 'local'}); 没有的函数() %>")
    assert "json" not in answer
    assert "模板运行失败" in answer["error"] and "没有的函数" in answer["error"] and "\n" not in answer["error"]
    assert _value(chat, "getVariables", {"type": "chat"}) == before
    assert "error" in _call(chat, "EjsTemplate.evalTemplate", 42)  # not a template: one line


def test_prepare_context_merges_the_variables_and_keeps_what_the_script_adds(chat: ChatSession) -> None:
    context = _value(chat, "EjsTemplate.prepareContext", {"房客": "小梨"})
    assert context["房客"] == "小梨"
    assert context["variables"]["stat_data"]["房东"]["资金"] == 30  # the greeting's record, merged
    shown = _value(chat, "EjsTemplate.evalTemplate", "<%= 房客 %>交了 <%= variables.stat_data.房东.资金 %>", context)
    assert shown == "小梨交了 30"
    # Without a context the template gets one prepared (its `variables`), as the extension's does.
    assert _value(chat, "EjsTemplate.evalTemplate", "<%= variables.stat_data.房东.心情 %>") == "平静"


def test_get_syntax_error_info_compiles_without_running(chat: ChatSession) -> None:
    assert _value(chat, "EjsTemplate.getSyntaxErrorInfo", "<% setvar('记账次数', 1, {scope: 'local'}) %>好") == ""
    assert "记账次数" not in _value(chat, "getVariables", {"type": "chat"})  # compiled, never run
    assert "never closed" in _value(chat, "EjsTemplate.getSyntaxErrorInfo", "<%= 资金")
    assert "语法错误" in _value(chat, "EjsTemplate.getSyntaxErrorInfo", "<% if (资金 { %>")


def test_parse_message_is_mvus_update_of_a_copy_and_writes_nothing(chat: ChatSession) -> None:
    old = _value(chat, "getVariables", LATEST)
    new = _value(chat, "Mvu.parseMessage", "阿梨收下房租。_.set('房东.资金', 30, 58);//收租", old)
    assert new["stat_data"]["房东"] == {"资金": 58, "心情": "平静"}
    assert new["display_data"]["房东"]["资金"] == "30->58 (收租)"
    assert _value(chat, "getVariables", LATEST)["stat_data"]["房东"]["资金"] == 30  # nothing written
    assert len(chat.messages()) == 1
    # Nothing changed, or no MVU data given: undefined, as MVU answers.
    assert _value(chat, "Mvu.parseMessage", "今天没有账。", old) is None
    assert _value(chat, "Mvu.parseMessage", "_.set('房东.资金', 1);", {"别的": 1}) is None
    assert "error" in _call(chat, "Mvu.parseMessage", None, old)


def test_the_templates_of_one_request_share_a_time_budget(chat: ChatSession) -> None:
    # A script evaluating a looping template again and again holds the server 2 s per request, not 1 s a call.
    loop = {"script": SCRIPT, "name": "EjsTemplate.evalTemplate", "args": ["<% while (true) {} %>"]}
    answers = run_calls(chat, [loop, loop, loop, loop])["answers"]
    assert ["模板运行失败" in one["error"] for one in answers[:2]] == [True, True]
    assert [one["error"] for one in answers[2:]] == ["EjsTemplate：这一批调用的模板已运行 2 秒，其余的没有运行"] * 2
    assert _value(chat, "EjsTemplate.evalTemplate", "<%= 1 + 1 %>") == "2"  # the next request has its own
