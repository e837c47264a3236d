"""Lore bodies as short facts for the small-model profile, and a person's pronoun stated."""

from __future__ import annotations

from peargarden.stage import LoreCorpus, StageSettings
from peargarden.stage.card import StageCard
from peargarden.stage.compact import compact_beat
from peargarden.stage.lore.entries import LoreEntry
from peargarden.stage.lore_facts import lore_facts, person_pronoun, sentences

HUAIJIN = (
    "沈怀瑾，镇上人都叫他怀瑾公子，是县城沈家的小儿子。十年前的春天，他来栖水镇借住读书。"
    "他性情温和，写得一手好字。那年秋天，他从镇北渡口搭船走了，临行前说开春就回来。此后十年，再没有一点音信。"
)
UMBRELLA = (
    "听雨轩柜台后的墙上挂着一把旧油纸伞，竹骨断了一根。它从不借给客人。"
    "客人问起，青梧只笑一笑，从没对谁讲过它的来历。每年梅雨过后，她把伞取下来晾一个下午。"
)
INN = "听雨轩是镇上最老的客栈。客栈是青梧的祖父开的，匾额是他亲手所题。青梧十六岁起独自掌店，她记得每一位客人。"


def test_sentences_cut_after_chinese_and_english_stops_and_join_back() -> None:
    text = "他说：“开春就回来。”此后十年；再没有音信！Mr Reed left. He said: “soon.” Then? Nothing"
    parts = sentences(text)
    assert "".join(parts) == text
    assert parts[:3] == ["他说：“开春就回来。”", "此后十年；", "再没有音信！"]
    assert parts[3:] == ["Mr Reed left. ", "He said: “soon.” ", "Then? ", "Nothing"]
    assert sentences("3.5 里的路。") == ["3.5 里的路。"]  # a decimal point ends nothing


def test_facts_are_the_first_sentence_and_what_the_user_asks_about() -> None:
    # Asked about the umbrella's 来历: the sentence that says she never tells it, not the whole body.
    facts = lore_facts(UMBRELLA, "掌柜的，柜台后面那把旧油纸伞，是有什么来历吗？")
    assert facts.startswith("听雨轩柜台后的墙上挂着一把旧油纸伞，竹骨断了一根。")
    assert "从没对谁讲过它的来历。" in facts
    assert len(facts) < len(UMBRELLA)
    # Asked about 怀瑾 leaving by the ferry: when and how he left, in the body's order.
    facts = lore_facts(HUAIJIN, "十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？")
    assert facts.startswith("沈怀瑾，镇上人都叫他怀瑾公子")
    assert facts.index("十年前的春天") < facts.index("从镇北渡口搭船走了")
    assert "写得一手好字" not in facts
    # Nothing asked that the body holds: what the entry is, and no more.
    assert lore_facts(HUAIJIN, "有热水吗？") == "沈怀瑾，镇上人都叫他怀瑾公子，是县城沈家的小儿子。"
    assert lore_facts("只有一句话，没有句号", "随便") == "只有一句话，没有句号"


def test_english_facts_join_sentences_with_a_space() -> None:
    body = "Old Tobin is the ferryman. He is past sixty. He drinks hot cider at the shrine. The rains come in spring."
    facts = lore_facts(body, "Does Tobin still drink cider?")
    assert facts == "Old Tobin is the ferryman. He drinks hot cider at the shrine."
    assert lore_facts(body, "When will the rain stop?").endswith("The rains come in spring.")  # rain ~ rains


def test_a_persons_pronoun_comes_from_the_opening_of_the_entry_about_them() -> None:
    assert person_pronoun(HUAIJIN, ("怀瑾", "沈怀瑾")) == "男"
    assert person_pronoun("周伯是老艄公。他记性极好。青梧也从不记他的账。", ("周伯",)) == "男"
    assert person_pronoun("阿梅是绣娘。她住在桥头，其他人都叫她梅姐。", ("阿梅",)) == "女"
    # Not about a person (the umbrella's body opens with the inn), or both sexes in the opening.
    assert person_pronoun(UMBRELLA, ("旧油纸伞", "油纸伞")) == ""
    assert person_pronoun(INN, ("听雨轩", "客栈")) == ""
    assert person_pronoun("镇北渡口在镇子北头。每天两班船。", ("镇北渡口",)) == ""
    # 其他、他们 are no pronoun of the person.
    assert person_pronoun("阿梅是绣娘。其他绣娘和他们都不来往，她一个人住。", ("阿梅",)) == "女"
    # English: the opening decides; a woman named later does not undo it.
    tobin = "Old Tobin is the ferryman. He is past sixty. He watched Wren grow up; she never keeps his tab."
    assert person_pronoun(tobin, ("Tobin", "old Tobin")) == "he"
    assert person_pronoun("Mira keeps the lamp. She never sleeps.", ("Mira",)) == "she"


def test_the_compact_prompt_sends_facts_with_the_pronoun_stated() -> None:
    card = StageCard(name="青梧", description="{{char}}，听雨轩的掌柜。", personality="温和。", scenario="雨夜。")
    book = [
        LoreEntry(uid=1, keys=("怀瑾", "沈怀瑾"), content=HUAIJIN, comment="怀瑾"),
        LoreEntry(uid=2, keys=("油纸伞",), content=UMBRELLA, comment="旧油纸伞"),
    ]
    settings = StageSettings(user_name="旅人")
    system = compact_beat(card, settings, LoreCorpus(book), [], "怀瑾公子从镇北渡口走了？那把油纸伞呢？").injection
    assert "【怀瑾（男）】沈怀瑾，镇上人都叫他怀瑾公子" in system
    assert "从镇北渡口搭船走了" in system and "写得一手好字" not in system
    assert "【旧油纸伞】听雨轩柜台后的墙上挂着一把旧油纸伞" in system
    english = StageCard(name="Wren", description="{{char}} keeps the shrine.", personality="calm", scenario="Rain.")
    aldric = "Aldric Ashford was a young ranger. Ten years ago he left on the ferry. He wrote letters for others."
    entry = LoreEntry(uid=1, keys=("Aldric",), content=aldric, comment="Aldric")
    prompt = compact_beat(english, StageSettings(user_name="Tom", language="英语"), LoreCorpus([entry]), [], "Aldric?")
    assert "[Aldric (he)] Aldric Ashford was a young ranger." in prompt.injection
