"""A long-lived chat keeps memos from beat to beat (the branch's custom entries, the hidden and work
messages, the story prose and the size of the budgeted window); every request it sends is the one a
session opened afresh, with nothing kept, would send — byte for byte, across swipes, regenerations,
branches, edits, deletions, work-mode beats, hidden messages and a mode change to tavern and back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from peargarden.app.play.service import ChatSession, PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

USER = "掌柜可还记得镇北渡口的怀瑾公子？"
REPLY = "青梧放下茶盏，望向窗外的河，半晌才道：“记得。他走的那天，渡口的柳树才抽芽。”"


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


def _st_chat(messages: int) -> bytes:
    """A SillyTavern chat: replies with three swipes (the middle one chosen), some hidden messages."""
    lines: list[dict[str, Any]] = [{"user_name": "旅人", "character_name": "青梧", "create_date": "2026-12-01"}]
    for n in range(messages):
        user = n % 2 == 1
        text = f"{USER}（{n}）" if user else f"{REPLY}（{n}）"
        line: dict[str, Any] = {
            "name": "旅人" if user else "青梧",
            "is_user": user,
            "is_system": n % 23 == 7,  # hidden from the model (SillyTavern's /hide)
            "send_date": "2026-12-01",
            "mes": text,
            "extra": {},
        }
        if not user and n:
            line["swipes"] = [f"{text}·其{k}" for k in range(3)]
            line["swipe_id"] = 1
            line["mes"] = line["swipes"][1]
            line["swipe_info"] = [{"extra": {}} for _ in range(3)]
        lines.append(line)
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")


def _bytes(messages: Any) -> bytes:
    return json.dumps(messages, ensure_ascii=False).encode("utf-8")


def test_a_long_lived_chat_sends_what_a_fresh_session_would(home: Home) -> None:
    with FakeOpenAIServer() as fake:
        # A small budget: the stage cuts this chat's history, so the window of newest messages matters.
        home.config_file.write_text(
            f'[model]\nprovider = "fake"\nmodel = "fake-model"\nthinking = "off"\n'
            f"[story]\nscene_notes = false\ncontext_tokens = 9000\nreserve_tokens = 512\n"
            f'[providers.fake]\nbase_url = "{fake.base_url}"\napi_key = "sk-test"\n',
            encoding="utf-8",
        )
        fake.script([text_reply(f"客官，今日第{n}壶新茶。") for n in range(60)])
        app = PearApp(home, story_memory=False)
        warm = app.import_chat("青梧", _st_chat(600), "青梧 - 2026-12-01.jsonl")
        checked: list[str] = []

        def beat(text: str) -> None:
            mode = warm.mode
            fresh = PearApp(home, story_memory=False).open_chat("青梧", warm.chat_id)
            fresh_request = fresh.preview(mode, text).request
            warm_request = warm.preview(mode, text).request
            list(warm.send(text))
            sent = fake.chat_requests[-1].body
            assert _bytes(sent["messages"]) == _bytes(fresh_request.messages) == _bytes(warm_request.messages)
            tools = [t.name for t in fresh_request.tools]
            assert [t["function"]["name"] for t in sent.get("tools", [])] == tools
            checked.append(mode)

        def numbered(session: ChatSession, text: str) -> int:
            return [m.content for m in session.messages()].index(text)

        beat("掌柜，今天有什么茶？")
        assert 20 < len(fake.chat_requests[-1].body["messages"]) < 300  # the budget cut the 600 messages
        beat("再来一壶。")
        list(warm.regenerate())
        warm.swipe(-1)  # back to the first reply
        beat("这壶是什么茶？")
        list(warm.regenerate())
        beat("好茶。")
        tree = warm.chat.tree
        # An imported reply 90 messages back whose next message is hidden: on the other swipe's
        # branch, the new words stand where the hidden message stood on this one.
        old, hidden = tree.messages()[512:514]
        assert old.role == "assistant" and "hidden" in hidden.message["tags"]
        other = next(e for e in tree.siblings(old.id) if e.id != old.id)
        leaf = tree.leaf
        warm.goto(other.id)
        beat("这一回换个说法。")
        assert leaf is not None
        warm.goto(leaf)
        beat("还是原来那样好。")
        side = warm.chat.tree.leaf
        warm.branch(numbered(warm, "再来一壶。"))  # fork before "再来一壶。"
        beat("换个话题：渡口的柳树还在吗？")
        warm.set_mode("work")
        beat("把开场白改短一点")
        warm.set_mode("stage")
        beat("掌柜，接着说。")  # the work beat reaches the stage as its 【写卡维护】 lines
        warm.edit(numbered(warm, "换个话题：渡口的柳树还在吗？"), "换个话题：渡口的石桥还在吗？")
        beat("桥下有船吗？")
        warm.delete(numbered(warm, "桥下有船吗？"))
        beat("那就回去吧。")
        assert side is not None
        warm.goto(side)
        beat("回到原来那条路上。")
        warm.set_mode("tavern")
        beat("掌柜，结账。")
        warm.set_mode("stage")
        beat("不急，再坐坐。")
    assert checked.count("stage") >= 8 and "work" in checked and "tavern" in checked
