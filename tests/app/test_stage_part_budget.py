"""Every part of a stage request has a budget (issue 46, point 7): a card field, a prompt file, the
persona, a lore entry or the story memory larger than the whole request may be is left out with a
line naming it — as tavern mode drops a prompt that does not fit — and the rest goes as before."""

from __future__ import annotations

import json
from pathlib import Path

from kit.mvu_chats import card_home
from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.app.settings.connections import Connection
from peargarden.stage import StageCard, StageSettings, assemble_beat, card_language
from peargarden.stage.assemble import LoreCorpus
from peargarden.stage.lore.entries import entries_from_book
from peargarden.stage.part_budget import PartBudget
from peargarden.stage.system import PromptFiles, card_projection
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.cards import open_card
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

HUGE = "栖水镇的雨下了三天三夜。" * 100_000  # 1.2 million characters


def test_a_huge_card_description_is_left_out_of_a_stage_beat_with_a_line(home_dir: Path, tmp_path: Path) -> None:
    seeded = Home(home_dir)
    seed_home(seeded)
    data = open_card(seeded, "青梧").load_card().data
    source = tmp_path / "长青梧.json"
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {**data, "name": "长青梧", "description": HUGE}}
    source.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    home = card_home(home_dir, source, [], "长青梧", {})
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("雨快停了。")
        options = ChatOptions(mode="stage", thinking="off", connection=Connection(server.base_url, "gpt-4o", ""))
        session = PearApp(home, story_memory=False).new_chat("长青梧", options)
        events = [event.to_json() for event in session.send("掌柜，雨停了吗？")]
        requests = [json.dumps(request.body, ensure_ascii=False) for request in server.chat_requests]
    assert requests and all(len(body) < 100_000 for body in requests)  # was 1.2 million characters
    sent = requests[0]
    assert "栖水镇的雨下了三天三夜" not in sent and data["personality"][:20] in sent  # the rest still goes
    warnings = [e["message"] for e in events if e["type"] == "warning"]
    left_out = [w for w in warnings if "description" in w]
    assert len(left_out) == 1 and "1,200,000 字" in left_out[0] and "没有发给模型" in left_out[0]
    assert events[-1]["type"] == "done" and events[-1]["stop_reason"] == "stop"


def test_each_part_is_held_to_the_budget_on_its_own() -> None:
    files = PromptFiles(system="系统。", bundled_system="系统。", working_directory="/卡",
                        global_append="全局附加。" * 3000, card_append="卡附加。", agents=None)  # fmt: skip
    card = StageCard(name="青梧", description="掌柜。", personality="沉静。" * 5000, scenario="暮春。", mes_example="",
                     system_prompt="末了。" * 5000, post_history_instructions="别出戏。" * 5000)  # fmt: skip
    book = {"entries": {"0": {"uid": 0, "comment": "老井", "key": ["井"], "content": "井水甘甜。" * 5000},
                        "1": {"uid": 1, "comment": "渡口", "key": ["渡口"], "content": "镇北有渡口。"}}}  # fmt: skip
    corpus = LoreCorpus(entries_from_book(book, "栖水镇"))
    settings = StageSettings(user_name="旅人", user_persona="人设。" * 5000, budget_tokens=10_000, count=len)
    staged = assemble_beat(files, card, settings, corpus, [], "井边和渡口还在吗？", thinking="off")
    sent = staged.system + staged.injection
    assert "掌柜。" in sent and "卡附加。" in sent and "镇北有渡口。" in sent and "暮春。" in sent
    for text in ("全局附加。", "沉静。", "末了。", "别出戏。", "人设。", "井水甘甜。"):
        assert text not in sent
    labels = ("全局的 APPEND_SYSTEM.md", "性格（personality）", "系统提示（system_prompt）",
              "末端指令（post_history_instructions）", "用户人设", "设定「老井」")  # fmt: skip
    assert len(staged.warnings) == len(labels)
    for label in labels:
        assert sum(label in warning for warning in staged.warnings) == 1, (label, staged.warnings)
    # Without a budget (a dry assembly of the parts) everything goes, as before.
    plain = StageSettings(user_name="旅人")
    whole = assemble_beat(files, card, plain, corpus, [], "井边和渡口还在吗？", thinking="off")
    assert "沉静。" in whole.system and whole.warnings == ()


def test_a_huge_field_is_read_for_its_language_by_its_start_and_left_out_before_its_macros_run() -> None:
    # The language is judged from each field's first 20,000 characters: matching twelve million of
    # them listed every match (about 1 GB for the card).
    english = "The rain has not stopped for three days. " * 600  # 24,000 characters
    card = StageCard(name="青梧", description=english + "雨" * 200_000, personality="Calm.")
    assert card_language(card) == "英语"
    # A field far past what the request can hold is never given to the macros at all.
    seen: list[int] = []

    def macros(text: str) -> str:
        seen.append(len(text))
        return text

    budget = PartBudget(1_000, len)
    assert card_projection(card, "旅人", macros, budget) == "# 你扮演的角色：青梧\n\n## 性格\nCalm."
    assert seen == [len("Calm.")] and "描述（description）" in budget.warnings[0]
