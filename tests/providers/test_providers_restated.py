"""A sentence made of the user's words: caught on the sentences the quality panel's reader check
counted (issue 49, 2026-12-07), and real answers of the same panels pass."""

from __future__ import annotations

import pytest

from peargarden.providers._restated import restates

FERRY = "How often does the ferry cross at the Greywater ford? I need to find the way to the capital."
ALDRIC = "Ten years ago a young ranger called Aldric left from the Greywater ford. Do you remember him?"
BELL = "That silver bell above the door, does it have a story?"
LONG_EN = (
    "To tell you the truth, I came to the Thornwood on someone's behalf. Old Lady Ashford of the river towns is "
    "ill, and on what may be her deathbed she keeps asking for her youngest son. He left home ten years ago, and "
    "his last letter was sent from this forest. She asked me to find out whether anyone here knows where he went, "
    "even a single word or an old keepsake. I asked my way here, and a boatman told me the guardian of the shrine "
    "remembers every traveller who ever stayed, so I walked through the night in the rain. If you know anything, "
    "please tell me, so I can bring her an answer."
)
LONG_ZH = (
    "实不相瞒，我这次来栖水镇，是受人之托。县城沈家的老夫人病了，临终前一直念叨着小儿子，说他十年前离家，最后一封信"
    "就是从栖水镇寄出的。老夫人托我来问问，镇上可有人知道他的下落，哪怕只是一句话、一件旧物也好。我一路打听过来，"
    "船家说听雨轩的掌柜记得每一位住过的客人，所以冒雨赶了夜路。掌柜若是知道什么，还请告诉我，我好回去给老夫人一个交代。"
)
WATER = "掌柜，有热水吗？我想洗把脸。"
FERRY_ZH = "镇北渡口每天有几班船？我想打听一下去京城的路。"


@pytest.mark.parametrize(
    ("user", "sentence"),
    [
        # The question handed back as news, a word changed or added.
        (ALDRIC, "Aldric left from the Greywater ford in 1649.*"),
        (FERRY, "The ferry does not cross at the Greywater ford."),
        (BELL, "The bell above the door does not have a story."),
        # The long turn re-voiced: a word changed in the middle ("told" → "tell").
        (LONG_EN, "You'll have a boatman tell me the guardian of the shrine.\""),
        # Six words of it inside a sentence of the model's own.
        (LONG_EN, "*I'm not sure, but I don't know anyone here knows where he went.*\""),
        # Five, all but one of them content words (this round's panel, seed 1).
        (LONG_EN, '*Aldric asks me to find out who has left home ten years ago.*"'),
        # Across the user's clause boundary (the comma after 告诉我), 你 for 我.
        (LONG_ZH, "如果只是一句、一项旧物也好，请告诉我我好回去给你老夫人交代。"),
        (WATER, "掌柜有热水，可以洗把脸。"),
    ],
)
def test_a_sentence_made_of_the_users_words_is_caught(user: str, sentence: str) -> None:
    assert restates(user, sentence)


@pytest.mark.parametrize(
    ("user", "sentence"),
    [
        # Answers in the question's words that add their own (the panels' replies).
        (FERRY, "*The ferry crosses at the Greywater ford every two days."),
        (FERRY, "* The ferry can cross at the Greywater ford once a day.*"),
        (FERRY, "You're very close to the capital.\""),
        (FERRY_ZH, "镇北渡口每天有十几班船，他们都是在天亮前和正午各开一班车船。"),
        (WATER, "有热水，但不是洗脸。"),
        (WATER, "掌柜，有一块热水。"),
        ("你好，掌柜。还有空房吗？", "有空房，你来吧。"),
        # Too short to be more than a topic taken up.
        (ALDRIC, "Aldric? Yes."),
    ],
)
def test_real_answers_pass(user: str, sentence: str) -> None:
    assert not restates(user, sentence)
