"""Stage beats keep the parsed card, the parsed config.toml and each beat's prose between beats;
every change on disk or on the branch still reaches the next request."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from peargarden.app.play.service import ChatSession, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.formats import card_to_png, read_card
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.workspace import atomic
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


@pytest.fixture
def home(home_dir: Path) -> Home:
    h = Home(home_dir)
    seed_home(h)
    return h


def _chat(home: Home, *replies: str) -> tuple[ChatSession, ScriptedProvider]:
    provider = ScriptedProvider().add(*(text_turn(reply) for reply in replies))

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "medium")

    return PearApp(home, provider_factory=factory).new_chat("青梧"), provider


def _sent(provider: ScriptedProvider, index: int = -1) -> list[str]:
    return [str(m["content"]) for m in provider.requests[index].messages]


def test_an_edited_card_file_reaches_the_next_beat(home: Home) -> None:
    chat, provider = _chat(home, "甲", "乙", "丙")
    list(chat.send("掌柜在吗？"))
    path = chat.card.card_file()
    assert path is not None and path.suffix == ".png"
    card = read_card(path.read_bytes(), str(path))
    old = str(card.data["description"])
    assert old and old in _sent(provider)[0]
    card.data["description"] = "青梧如今在江南另开了一家茶馆，名叫听松阁。"
    atomic.write_bytes(path, card_to_png(card, path.read_bytes()))
    list(chat.send("新茶馆在哪？"))
    assert "听松阁" in _sent(provider)[0] and old not in _sent(provider)[0]
    list(chat.send("再来一壶。"))  # unchanged since: the cached card is the edited one
    assert "听松阁" in _sent(provider)[0]


def test_edited_config_and_card_settings_reach_the_next_beat(home: Home) -> None:
    chat, provider = _chat(home, "甲", "乙", "丙")
    list(chat.send("掌柜在吗？"))
    assert "【语言】以中文" in _sent(provider)[-1]
    config = home.config_file.read_text(encoding="utf-8")
    atomic.write_text(home.config_file, re.sub(r'(?m)^language = ""', 'language = "文言文"', config))
    list(chat.send("今日何茶？"))
    assert "【语言】以文言文" in _sent(provider)[-1]
    atomic.write_text(chat.card.settings_file, '{"language": "粤语"}')
    list(chat.send("几多钱？"))
    assert "【语言】以粤语" in _sent(provider)[-1]


def test_new_messages_swipes_edits_and_branches_change_the_replayed_story(home: Home) -> None:
    chat, provider = _chat(home, "甲回复", "乙回复", "丙回复", "丁回复", "戊回复", "己回复", "庚回复")
    list(chat.send("问一"))
    list(chat.send("问二"))
    assert _sent(provider)[-3:-1] == ["问一", "甲回复"] and _sent(provider)[-1].endswith("问二")
    list(chat.regenerate())  # 丙回复, a sibling of 乙回复
    regenerated = chat.messages()[-1].entry_id
    chat.swipe(-1)  # back to 乙回复
    list(chat.send("问三"))
    assert "乙回复" in _sent(provider) and "丙回复" not in _sent(provider)
    assert regenerated is not None
    chat.goto(regenerated)  # over to the other branch
    list(chat.send("问四"))
    assert "丙回复" in _sent(provider) and "乙回复" not in _sent(provider) and "问三" not in _sent(provider)
    texts = [m.content for m in chat.messages()]
    chat.edit(texts.index("甲回复"), "改过的甲回复")
    list(chat.send("问五"))
    assert "改过的甲回复" in _sent(provider) and "甲回复" not in _sent(provider)
    assert [t for t in _sent(provider) if t in ("丙回复", "问四", "戊回复")] == ["丙回复", "问四", "戊回复"]
    texts = [m.content for m in chat.messages()]
    chat.branch(texts.index("问一"))
    list(chat.send("问六"))
    assert "问二" not in _sent(provider) and _sent(provider)[-1].endswith("问六")
