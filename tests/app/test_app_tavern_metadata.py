"""Tavern mode inside a chat sends what SillyTavern sends on a real generation: timed world info
runs and its chat metadata is kept on the branch; squash_system_messages applies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.modes.tavern.setup import METADATA_TYPE
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.library import lorebook_path
from peargarden.workspace.seed import seed_home

STICKY_TEXT = "怀瑾离开那天，渡口的柳树落了一地叶子。"


@pytest.fixture
def home(home_dir: Path) -> Home:
    h = Home(home_dir)
    seed_home(h)
    book = {"entries": {"0": {"uid": 0, "key": ["柳树"], "content": STICKY_TEXT, "sticky": 3, "order": 100,
                              "position": 0, "probability": 100, "useProbability": True}}}  # fmt: skip
    lorebook_path(h, "柳").write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    settings = json.loads((h.card_dir("青梧") / "卡.json").read_text(encoding="utf-8"))
    settings["lorebooks"] = [*settings.get("lorebooks", []), "柳"]
    (h.card_dir("青梧") / "卡.json").write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    return h


def _chat(home: Home, *replies: str) -> tuple[ChatSession, ScriptedProvider]:
    provider = ScriptedProvider().add(*(text_turn(reply) for reply in replies))

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "medium")

    return PearApp(home, provider_factory=factory).new_chat("青梧", ChatOptions(mode="tavern")), provider


def _sent(provider: ScriptedProvider, index: int) -> str:
    return "\n".join(str(m["content"]) for m in provider.requests[index].messages)


def _metadata(chat: ChatSession) -> list[Any]:
    return [e.body.get("data") for e in chat.chat.tree.customs(METADATA_TYPE)]


def test_sticky_entry_stays_for_its_turns_and_the_metadata_follows_the_branch(home: Home) -> None:
    chat, provider = _chat(home, "青梧望向窗外。", "她没有说话。", "雨停了。")
    list(chat.send("渡口那棵柳树还在吗？"))
    assert STICKY_TEXT in _sent(provider, 0)
    recorded = _metadata(chat)
    assert recorded and "timedWorldInfo" in recorded[-1] and recorded[-1]["timedWorldInfo"]["sticky"]
    # Next beat the keyword has left the scan window (depth 2): the sticky entry stays (ST counts the
    # chat: activated at length 2, sticky 3 → until length 5) ...
    list(chat.send("今天吃什么？"))
    assert "渡口那棵柳树" not in "\n".join(str(m["content"]) for m in provider.requests[1].messages[-2:])
    assert STICKY_TEXT in _sent(provider, 1)
    # ... and is gone once the chat has reached that length.
    list(chat.send("那就白粥吧。"))
    assert STICKY_TEXT not in _sent(provider, 2)

    reopened = PearApp(home, provider_factory=lambda s, c: ResolvedProvider(provider, "x", False, "off"))
    again = reopened.open_chat("青梧", chat.chat_id)
    assert _metadata(again) == _metadata(chat)  # kept in the session file, on the branch


def _system_count(home: Home, squash: bool) -> int:
    (home.presets_dir / "合并.json").write_text(json.dumps({"squash_system_messages": squash}), encoding="utf-8")
    settings_path = home.card_dir("青梧") / "卡.json"
    settings = json.loads(settings_path.read_text(encoding="utf-8"))
    settings["preset"] = "合并"
    settings_path.write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    chat, provider = _chat(home, "好。")
    list(chat.send("你好"))
    return [m["role"] for m in provider.requests[0].messages].count("system")


def test_squash_system_messages_applies_in_a_chat(home: Home) -> None:
    # Main prompt, world info, description, personality, scenario … become one system message;
    # "[Start a new Chat]" and "[Example Chat]" are never squashed (SillyTavern excludes them).  A new
    # data folder matches 1.18, which sends the header of the card's example block even though the
    # block parses to no messages (its lines use a full-width "：", so no speaker line is found).
    assert _system_count(home, squash=True) == 3
    assert _system_count(home, squash=False) > 2


def test_a_regenerate_after_a_metadata_change_is_a_swipe_of_the_first_reply(home: Home) -> None:
    # The metadata is recorded after the reply, never between the user's message and the reply, so
    # the regenerated reply forks where the first one did.
    chat, _ = _chat(home, "青梧望向窗外。", "她没有说话。")
    list(chat.send("渡口那棵柳树还在吗？"))
    assert _metadata(chat)
    list(chat.regenerate())
    assert chat.swipe_position() == (2, 2)
    assert _metadata(chat)  # the new reply's branch has its own record
    chat.swipe(-1)
    assert [m.content for m in chat.messages()][-1] == "青梧望向窗外。"
