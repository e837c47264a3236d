"""The small-model stage profile: a short system prompt with the card, examples and lore bodies."""

from __future__ import annotations

from peargarden.stage import LoreCorpus, StageSettings, Turn
from peargarden.stage.card import StageCard
from peargarden.stage.compact import compact_beat, example_turns, stop_words
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
    system = staged.system
    assert system.startswith("你是青梧。") and "栖水镇客栈「听雨轩」的掌柜" in system
    assert "【栖水镇】江南一座临河的老镇。" in system  # constant
    assert "【镇北渡口】清溪河汇入大江的地方，" in system and "柳" * 401 not in system  # hit, cut short
    assert "怀瑾" not in system  # not hit
    assert "旅人：掌柜的，这雨什么时候能停？" in system and "青梧：只有米酒。" in system
    assert "不要替旅人说话" in system and "lorebook_search" not in system
    assert staged.messages == [
        {"role": "assistant", "content": "“进来吧，门口风大。”"},
        {"role": "user", "content": "你从镇北渡口来？"},
    ]
    assert [h.uid for h in staged.hits] == [2]


def test_stop_words_open_a_line_with_the_user_name() -> None:
    assert "\n旅人：" in stop_words("旅人") and "\nAlice:" in stop_words("Alice")
