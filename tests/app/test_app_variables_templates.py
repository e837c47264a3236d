"""``<% %>`` templates (ST-Prompt-Template) in tavern and stage mode: evaluated on the finished
prompt with ``getvar`` reading MVU's variables of the message in force, ``setvar`` on the chat kept
in the chat's variables, and a failing template left as it was with a warning naming its entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.library import lorebook_path
from peargarden.workspace.seed import seed_home

PHASE = (
    "<%_ const phase = getvar('stat_data.系统.当前阶段', { defaults: '磨合期' }); _%>\n"
    "<% if (phase === '磨合期') { %>两人还在磨合。<% } else { %>阶段：<%- phase %>。<% } %>"
    "<%_ setvar('提示次数', (getvar('提示次数', { scope: 'chat' }) || 0) + 1, { scope: 'chat' }); _%>"
)


def _entry(uid: int, comment: str, content: str, *, disable: bool = False) -> dict[str, object]:
    return {"uid": uid, "key": [], "comment": comment, "content": content, "constant": True, "disable": disable,
            "order": 100 + uid, "position": 0, "probability": 100, "useProbability": True}  # fmt: skip


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    book = {"entries": {
        "0": _entry(0, "[initvar]", "系统:\n  当前阶段: 磨合期\n", disable=True),
        "1": _entry(1, "阶段指导", PHASE),
    }}  # fmt: skip
    lorebook_path(seeded, "阶段书").write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    settings_file = seeded.card_dir("青梧") / "卡.json"
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    settings["lorebooks"] = [*settings.get("lorebooks", []), "阶段书"]
    settings_file.write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    return seeded


def _chat(home: Home, provider: ScriptedProvider, mode: str) -> ChatSession:
    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "medium")

    return PearApp(home, provider_factory=factory, story_memory=False).new_chat("青梧", ChatOptions(mode=mode))


def _sent(provider: ScriptedProvider, index: int) -> str:
    return "\n".join(str(m.get("content")) for m in provider.requests[index].messages)


@pytest.mark.parametrize("mode", ["tavern", "stage"])
def test_a_template_reads_the_variables_in_force_and_writes_the_chats(home: Home, mode: str) -> None:
    reply = "青梧笑了。\n<UpdateVariable>\n_.set('系统.当前阶段', '热恋期');\n</UpdateVariable>"
    provider = ScriptedProvider().add(text_turn(reply), text_turn("青梧点头。"))
    chat = _chat(home, provider, mode)
    list(chat.send("今天的茶不错。"))
    first = _sent(provider, 0)
    assert "两人还在磨合。" in first and "<%" not in first
    list(chat.send("明天还来。"))
    second = _sent(provider, 1)
    assert "阶段：热恋期。" in second and "两人还在磨合" not in second
    assert chat.variables().chat == {"提示次数": 2}  # setvar on the chat: kept with the branch


def test_a_failing_template_is_left_as_it_was_with_a_warning_naming_its_entry(home: Home) -> None:
    path = lorebook_path(home, "阶段书")
    book = json.loads(path.read_text(encoding="utf-8"))
    book["entries"]["2"] = _entry(2, "坏模板", "<% throw new Error('坏了') %>")
    path.write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    provider = ScriptedProvider().add(text_turn("青梧没有说话。"))
    chat = _chat(home, provider, "tavern")
    warnings = [e.message for e in chat.send("在吗？") if getattr(e, "type", "") == "warning"]
    assert any("「阶段书·坏模板」" in w and "坏了" in w for w in warnings), warnings
    assert "<% throw new Error('坏了') %>" in _sent(provider, 0)


def test_failing_entries_are_each_named_and_the_others_in_their_message_still_render(home: Home) -> None:
    """SillyTavern merges the world-info entries into one message: one bad entry left the whole message
    unrendered (the good entry's ``<% %>`` went to the model as code) and only one of the bad ones was
    named."""
    path = lorebook_path(home, "阶段书")
    book = json.loads(path.read_text(encoding="utf-8"))
    book["entries"]["2"] = _entry(2, "坏模板", "<% throw new Error('坏了') %>")
    book["entries"]["3"] = _entry(3, "另一个坏模板", "<%= 没有这个变量 %>")
    path.write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    provider = ScriptedProvider().add(text_turn("青梧没有说话。"))
    chat = _chat(home, provider, "tavern")
    warnings = [e.message for e in chat.send("在吗？") if getattr(e, "type", "") == "warning"]
    assert any("「阶段书·坏模板」" in w and "坏了" in w for w in warnings), warnings
    assert any("「阶段书·另一个坏模板」" in w and "没有这个变量" in w for w in warnings), warnings
    sent = _sent(provider, 0)
    assert "两人还在磨合。" in sent and "getvar(" not in sent  # the good entry rendered
    assert "<% throw new Error('坏了') %>" in sent and "<%= 没有这个变量 %>" in sent  # the bad ones as written
    assert chat.variables().chat == {"提示次数": 1}  # the good entry's setvar kept
