"""The small-model stage profile: a short system prompt with the card, examples and lore bodies."""

from __future__ import annotations

from pathlib import Path

import pytest

from peargarden.stage import LoreCorpus, StageSettings, Turn, compact
from peargarden.stage.card import StageCard
from peargarden.stage.compact import SYSTEM_CHARS, compact_beat, example_turns, fallback_reply, stop_words
from peargarden.stage.lore.entries import LoreEntry

CARD = StageCard(
    name="青梧",
    description="{{char}}，栖水镇客栈「听雨轩」的掌柜。",
    personality="温和、沉静。",
    scenario="暮春，雨下了三天。",
    mes_example=(
        "<START>\r\n{{user}}：掌柜的，这雨什么时候能停？\r\n{{char}}：青梧侧耳听了一会儿。\r\n“今夜是停不了的。”\r\n"
        "<START>\n{{user}}: 有酒吗？\n{{char}}: 只有米酒。\n{{user}}: 那就米酒。"
    ),
)
BOOK = [
    LoreEntry(uid=1, keys=("栖水镇",), content="江南一座临河的老镇。", comment="栖水镇", constant=True),
    LoreEntry(uid=2, keys=("镇北渡口", "渡口"), content="清溪河汇入大江的地方，" + "柳" * 600, comment="镇北渡口"),
    LoreEntry(uid=3, keys=("怀瑾",), content="沈怀瑾，十年前走的读书人。", comment="怀瑾"),
]


def test_example_dialogue_becomes_alternating_turns() -> None:
    turns = example_turns(CARD.mes_example, "青梧", "旅人")
    assert [t.role for t in turns] == ["user", "assistant", "user", "assistant"]
    assert turns[1].text == "青梧侧耳听了一会儿。\n“今夜是停不了的。”"
    assert turns[2].text == "有酒吗？"  # the trailing user line without an answer is dropped


def test_compact_beat_sends_the_card_examples_and_hit_lore_as_bodies() -> None:
    corpus = LoreCorpus(BOOK)
    history = [Turn("assistant", "“进来吧，门口风大。”")]
    staged = compact_beat(CARD, StageSettings(user_name="旅人"), corpus, history, "你从镇北渡口来？")
    system, note = staged.system, staged.injection
    assert system.startswith("你是青梧。") and "栖水镇客栈「听雨轩」的掌柜" in system
    assert "【栖水镇】江南一座临河的老镇。" in system  # constant
    assert note.startswith("这一轮用得上的设定：\n【镇北渡口】清溪河汇入大江的地方，")  # the hit
    assert "柳" * 401 not in note  # cut short
    assert "镇北渡口" not in system and "怀瑾" not in system + note  # hit: in the note; not hit: nowhere
    assert "旅人：掌柜的，这雨什么时候能停？" in system and "青梧：只有米酒。" in system
    assert "不要替旅人说话" in system and "lorebook_search" not in system
    assert staged.messages == [
        {"role": "assistant", "content": "“进来吧，门口风大。”"},
        {"role": "system", "content": note},
        {"role": "user", "content": "你从镇北渡口来？"},
    ]
    assert [h.uid for h in staged.hits] == [2]


def test_the_system_prompt_and_the_story_stay_the_same_whatever_the_user_names() -> None:
    """Issue 49, item 4: the lore hits changed the system prompt near its top every turn, and
    llama.cpp read most of the prompt again.  Now the prompt of the next beat starts with this one's,
    up to the note of the lore (the last reply, the note and the new words are all that is new)."""
    corpus = LoreCorpus(BOOK)
    settings = StageSettings(user_name="旅人")
    history = [Turn("assistant", "“进来吧，门口风大。”")]
    first = compact_beat(CARD, settings, corpus, history, "你从镇北渡口来？")
    history += [Turn("user", "你从镇北渡口来？"), Turn("assistant", "“我在栖水镇住了二十六年。”")]
    second = compact_beat(CARD, settings, corpus, history, "那位怀瑾公子呢？")
    assert second.system == first.system and "怀瑾" in second.injection and "怀瑾" not in second.system
    assert second.messages[:1] == first.messages[:1]  # the story before the note: the same
    assert second.messages[1:3] == [{"role": t.role, "content": t.text} for t in history[1:]]
    assert second.messages[-2:] == [
        {"role": "system", "content": second.injection},
        {"role": "user", "content": "那位怀瑾公子呢？"},
    ]


def test_the_last_resort_line_is_not_fed_back_as_history() -> None:
    """The guards' 「（青梧笑了笑，没有接这句话。）」 stayed in the story and was imitated next turn."""
    fallback = fallback_reply(CARD, StageSettings(user_name="旅人"))
    history = [Turn("assistant", "“进来吧。”"), Turn("user", "你是什么模型？"), Turn("assistant", fallback)]
    staged = compact_beat(CARD, StageSettings(user_name="旅人"), LoreCorpus(BOOK), history, "有热水吗？")
    assert fallback not in str(staged.messages)
    assert staged.messages == [
        {"role": "assistant", "content": "“进来吧。”"},
        {"role": "user", "content": "你是什么模型？\n\n有热水吗？"},
    ]


def test_the_fallback_line_is_the_character_letting_the_words_pass_in_the_prompts_language() -> None:
    assert fallback_reply(CARD, StageSettings(user_name="旅人")) == "（青梧笑了笑，没有接这句话。）"
    mira = StageCard(name="Mira", description="{{char}} keeps the lighthouse.")
    assert (
        fallback_reply(mira, StageSettings(user_name="Tom", language="English")) == "*Mira smiles and lets that pass.*"
    )


def test_stop_words_open_a_line_with_the_user_name() -> None:
    assert "\n旅人：" in stop_words("旅人") and "\nAlice:" in stop_words("Alice")
    assert "\n\n" in stop_words("旅人")  # one paragraph: a second one was a copied question


QINWU_TURNS = [
    "你好，掌柜。还有空房吗？",
    "十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？",
    "掌柜的，柜台后面那把旧油纸伞，是有什么来历吗？",
    "镇北渡口每天有几班船？我想打听一下去京城的路。",
]


def test_the_bundled_card_stays_within_the_budget_with_what_the_user_named(home_dir: Path) -> None:
    """青梧 with 栖水镇, on the greeting and the lore the user asks about: the constant and the card
    always, the entry the user's words name first (the greeting's 听雨轩 gives way), ≤ SYSTEM_CHARS."""
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.modes.stage.request import compact_for, greeting_turns
    from peargarden.workspace.cards import open_card
    from peargarden.workspace.home import Home
    from peargarden.workspace.seed import seed_home

    home = Home(home_dir)
    seed_home(home)
    materials = load_stage_materials(home, open_card(home, "青梧"))
    named = {QINWU_TURNS[1]: "【怀瑾（男）】", QINWU_TURNS[2]: "【旧油纸伞】", QINWU_TURNS[3]: "【镇北渡口】"}
    systems = set()
    for turn in QINWU_TURNS:
        staged = compact_for(materials, greeting_turns(materials), turn)
        system, note = staged.system, staged.injection
        systems.add(system)
        assert len(system) + len(note) <= SYSTEM_CHARS, (turn, len(system), len(note))
        assert "【栖水镇】" in system and "对话示例" in system and system.endswith("即使用户出戏，也以青梧的身份回答。")
        assert "AI" not in system + note  # the word a small model takes up (docs/benchmarks/embedded-model.md)
        if turn in named:
            assert named[turn] in note, turn
    assert len(systems) == 1


def test_many_long_hits_are_cut_to_the_budget() -> None:
    rain = "雨" * 300
    book = [LoreEntry(uid=i, keys=(f"地名{i}",), content=f"第{i}处，{rain}。", comment=f"地名{i}") for i in range(8)]
    corpus = LoreCorpus(book)
    words = "、".join(f"地名{i}" for i in range(8))
    staged = compact_beat(CARD, StageSettings(user_name="旅人", max_lore_hits=8), corpus, [], words)
    assert len(staged.system) + len(staged.injection) <= SYSTEM_CHARS
    lore = staged.injection.split("这一轮用得上的设定：\n")[1].splitlines()
    assert len(lore) >= 2 and lore[-1].endswith("…")  # the last one that fits is cut, not dropped


def test_an_english_card_gets_the_prompt_framed_in_english() -> None:
    """Told in Chinese to write English, Qwen2.5-0.5B repeated the greeting on 4 of 8 English turns
    (SillyTavern's Seraphina); framed in English, none (`git show fd224ce:docs/benchmarks.md`, "English cards")."""
    card = StageCard(
        name="Mira",
        description="{{char}} keeps the lighthouse on the northern cliff.",
        personality="quiet, stubborn",
        scenario="A storm night.",
        mes_example="<START>\n{{user}}: Is the lamp lit?\n{{char}}: Always.",
    )
    cliff = LoreEntry(uid=1, keys=("cliff",), content="Black basalt, always wet.", comment="The cliff", constant=True)
    lore = LoreCorpus([cliff])
    settings = StageSettings(user_name="Tom", user_persona="a lost sailor", language="英语")
    system = compact_beat(card, settings, lore, [], "Hello?").system
    assert system.startswith("You are Mira. This is Mira's profile.\n\nMira keeps the lighthouse")
    assert "Personality: quiet, stubborn" in system and "Scenario: A storm night." in system
    assert "The user plays Tom: a lost sailor" in system and "Tom: Is the lamp lit?\nMira: Always." in system
    assert "World lore:\n[The cliff] Black basalt, always wet." in system
    assert "Rules: write in English. Speak and act only as Mira" in system and "Never speak or act for Tom" in system
    assert not any("\u4e00" <= char <= "\u9fff" for char in system)  # not a word of Chinese framing left
    # A Chinese card (or no language known) keeps the Chinese frame, word for word as before.
    chinese = compact_beat(CARD, StageSettings(user_name="旅人", language=""), LoreCorpus(BOOK), [], "你好").system
    assert chinese.startswith("你是青梧。下面是青梧的设定。") and "规则：用中文写。" in chinese


def test_the_rules_ask_for_two_to_four_sentences_of_speech_and_a_small_action() -> None:
    """Issue 49: asked for 「一段简短的回应」, Qwen2.5-Coder-0.5B wrote one sentence (median 17 characters)."""
    system = compact_beat(CARD, StageSettings(user_name="旅人"), LoreCorpus(BOOK), [], "你好").system
    assert "每次回应写两到四句：青梧说的话，加上一个小动作或神态。" in system and "简短" not in system


def test_the_card_examples_can_go_as_turns_of_their_own_before_the_story(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quality bench's third way to show a reply's length (stage.compact.EXAMPLES_AS_TURNS)."""
    monkeypatch.setattr(compact, "EXAMPLES_AS_TURNS", True)
    history = [Turn("assistant", "“进来吧，门口风大。”")]
    staged = compact_beat(CARD, StageSettings(user_name="旅人"), LoreCorpus(BOOK), history, "你好")
    assert "对话示例" not in staged.system and "只有米酒" not in staged.system
    assert staged.messages[:5] == [
        {"role": "user", "content": "掌柜的，这雨什么时候能停？"},
        {"role": "assistant", "content": "青梧侧耳听了一会儿。\n“今夜是停不了的。”"},
        {"role": "user", "content": "有酒吗？"},
        {"role": "assistant", "content": "只有米酒。"},
        {"role": "system", "content": "（以上是对话示例，只学语气和长短。下面才是正在发生的故事。）"},
    ]
    assert staged.messages[5:] == [
        {"role": "assistant", "content": "“进来吧，门口风大。”"},
        {"role": "user", "content": "你好"},
    ]
