"""The stage's token budget applies with story memory off too (issue 18, point 4): a long chat sends
its newest messages that fit, with a warning, not all of them."""

from __future__ import annotations

import json
from pathlib import Path

from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.app.settings.connections import Connection
from peargarden.sessions import entry_line, header_line, leaf_line, message_entry
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.chats import SESSION_FILE
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def _long_chat(home: Home, turns: int) -> str:
    chat_id = "20261201-000000-beef"
    lines = [header_line(chat_id, "2026-12-01T00:00:00.000Z", card="青梧", mode="stage")]
    parent = None
    for n in range(turns):
        for role, text in (("user", f"第{n}次问：雨下到几时？"), ("assistant", f"第{n}次答：" + "雨声淅沥，" * 40)):
            message = {"role": role, "content": text}
            entry = message_entry(f"{len(lines):08x}", parent, "2026-12-01T00:00:00.000Z", message)
            lines.append(entry_line(entry))
            parent = entry.id
    lines.append(leaf_line(parent, "2026-12-01T00:00:00.000Z"))
    path = home.card_dir("青梧") / "chats" / chat_id / SESSION_FILE
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return chat_id


def test_story_memory_off_still_cuts_history_to_the_budget(home_dir: Path) -> None:
    home = Home(home_dir)
    seed_home(home)
    with home.config_file.open("a", encoding="utf-8") as config:
        config.write("\n[story]\ncontext_tokens = 6000\nreserve_tokens = 1000\n")
    chat_id = _long_chat(home, 500)  # ~1,000 messages, ~100k tokens of history
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("雨快停了。")
        app = PearApp(home, story_memory=False)
        options = ChatOptions(mode="stage", thinking="off", connection=Connection(server.base_url, "gpt-4o", ""))
        session = app.open_chat("青梧", chat_id, options)
        assert session.story_memory is False
        events = [event.to_json() for event in session.send("雨停了吗？")]
        (request,) = server.chat_requests
        messages = request.body["messages"]
    sent = json.dumps(messages, ensure_ascii=False)
    assert "第499次答" in sent and "第0次问" not in sent  # the newest kept, the oldest cut
    assert 10 < len(messages) < 200
    warnings = [e["message"] for e in events if e["type"] == "warning"]
    assert any("上下文预算" in w for w in warnings)
    assert events[-1]["type"] == "done" and events[-1]["stop_reason"] == "stop"
