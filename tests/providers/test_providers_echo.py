"""The echo guard's judgement: replies of Qwen2.5-0.5B that hand the user's line back (shapes taken
from the quality benchmark's saved replies), and replies that only take up the user's topic."""

from __future__ import annotations

import pytest

from peargarden.providers._echo import EchoFilter, echoes, open_marks, split_clauses, strip_echo

LONG_TURN = (
    "实不相瞒，我这次来栖水镇，是受人之托。县城沈家的老夫人病了，临终前一直念叨着小儿子，"
    "说他十年前离家，最后一封信就是从栖水镇寄出的。老夫人托我来问问，镇上可有人知道他的下落，"
    "哪怕只是一句话、一件旧物也好。我一路打听过来，船家说听雨轩的掌柜记得每一位住过的客人，"
    "所以冒雨赶了夜路。掌柜若是知道什么，还请告诉我，我好回去给老夫人一个交代。"
)

ECHOES = [
    # the last clause of the user's line, alone
    ("我叫陆行舟，从县城来，想在镇上住几天。这雨什么时候能停？", "这雨什么时候能停？"),
    # the whole line, twice over
    ("镇北渡口每天有几班船？我想打听一下去京城的路。", "镇北渡口每天有几班船？我想打听一下去京城的路。"),
    # 你 → 我: the line spoken back from the other side
    ("你一个人撑着这间客栈，不累吗？", "我一个人撑着这间客栈，不累吗？"),
    # a reply made only of the user's words, each clause short
    ("掌柜，有热水吗？我想洗把脸。", "想洗把脸。"),
    ("你好，掌柜。还有空房吗？", "你好，掌柜。还有空房吗？当然有。"),
    # a long turn quoted back in the middle of a reply
    (LONG_TURN, "青梧沉默片刻。听雨轩的掌柜记得每一位住过的客人，所以冒雨赶了夜路。"),
    # the question restated as the reply's subject
    ("掌柜的，柜台后面那把旧油纸伞，是有什么来历吗？", "听雨轩柜台后面那把旧油纸伞，是来自家乡的水。"),
    # most of one of the user's clauses said again (8 of its 10 characters)
    (LONG_TURN, "县城沈家的老夫人，我记得她。"),
    # an ASCII-punctuated echo with quote marks
    ("听说镇上送人只送到柳树下，这是什么讲究？", "“听说镇上送人只送到柳树下, 这是什么讲究?”"),
]

NOT_ECHOES = [
    ("你好，掌柜。还有空房吗？", "“有的，楼上东头那间临河，被褥今早才烘过。”"),
    ("你好，掌柜。还有空房吗？", "你好，客官！楼上还有一间。"),  # a greeting back is not an echo
    ("镇北渡口每天有几班船？", "镇北渡口每天两班船，卯时一班，申时一班。"),  # takes up the topic
    ("十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？", "青梧的手顿了一顿。“怀瑾……记得。”"),
    ("在吗", "在吗？"),  # too short to call an echo
    ("掌柜，有热水吗？我想洗把脸。", "“有，后院井边的灶上一直温着。”"),
    # a name or noun phrase of the user's line taken up as the reply's topic (6+ characters, but a
    # small part of the user's clause); the world's short names are never enough on their own
    ("十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？", "那位怀瑾公子，我记得。"),
    ("掌柜的，柜台后面那把旧油纸伞，是有什么来历吗？", "那把旧油纸伞？青梧笑了笑。"),
    (LONG_TURN, "听雨轩的掌柜，就是我。栖水镇上的事，我知道一些。"),
    ("听雨轩在栖水镇哪里？", "听雨轩，栖水镇。青梧指了指河。"),
]


@pytest.mark.parametrize(("user", "reply"), ECHOES)
def test_echo_shapes_are_caught(user: str, reply: str) -> None:
    assert echoes(user, reply)


@pytest.mark.parametrize(("user", "reply"), NOT_ECHOES)
def test_replies_that_take_up_the_topic_are_not_echoes(user: str, reply: str) -> None:
    assert not echoes(user, reply)
    assert strip_echo(user, reply) == reply


def test_clauses_keep_their_closing_punctuation_and_quote_marks() -> None:
    reply = "“今夜是停不了的。”她往你的碗里续了些热茶……\n“和客人一样？”"
    parts = split_clauses(reply)
    assert "".join(parts) == reply
    assert parts[0] == "“今夜是停不了的。”" and parts[1] == "她往你的碗里续了些热茶……\n"


def test_strip_keeps_what_the_reply_says_of_its_own() -> None:
    user = "夜深了，我先上楼歇息。掌柜也早些睡吧。"
    reply = "夜深了，我先上楼歇息。掌柜也早些睡吧。\n青梧点点头，把灯芯拨暗了些。“楼梯滑，慢些走。”"
    assert strip_echo(user, reply) == "青梧点点头，把灯芯拨暗了些。“楼梯滑，慢些走。”"
    assert strip_echo("你一个人撑着这间客栈，不累吗？", "我一个人撑着这间客栈，不累吗？") == ""


def _stream(user: str, pieces: list[str], *, can_retry: bool, earlier: tuple[str, ...] = ()) -> str | None:
    guard = EchoFilter(user, can_retry=can_retry, earlier=earlier)
    out = []
    for piece in pieces:
        shown = guard.feed(piece)
        if shown is None:
            return None
        out.append(shown)
    tail = guard.finish()
    return None if tail is None else "".join(out) + tail


def _pieces(text: str) -> list[str]:
    return [text[i : i + 2] for i in range(0, len(text), 2)]  # two characters a token, as llama.cpp streams


def test_the_filter_stops_a_first_try_that_opens_with_an_echo() -> None:
    user = "镇上有什么好吃的？明天想出去走走。"
    assert _stream(user, _pieces("镇上有什么好吃的？桥头的馄饨。"), can_retry=True) is None
    assert _stream("掌柜，有热水吗？我想洗把脸。", _pieces("想洗把脸。"), can_retry=True) is None


def test_the_filter_drops_an_echo_after_the_reply_began_and_on_the_second_try() -> None:
    user = "镇上有什么好吃的？明天想出去走走。"
    reply = "青梧想了想。“桥头的馄饨不错。”镇上有什么好吃的？明天想出去走走。"
    assert _stream(user, _pieces(reply), can_retry=True) == "青梧想了想。“桥头的馄饨不错。”"
    second = "镇上有什么好吃的？“桥头周记的馄饨，去晚了就没有了。”"
    assert _stream(user, _pieces(second), can_retry=False) == "“桥头周记的馄饨，去晚了就没有了。”"


def test_an_echo_after_a_short_first_clause_still_opens_the_reply() -> None:
    user = "夜深了，我先上楼歇息。掌柜也早些睡吧。"
    assert _stream(user, _pieces("晚上，我先上楼歇息。掌柜也早些睡吧。"), can_retry=True) is None
    last = _stream(user, _pieces("晚上，我先上楼歇息。“楼梯滑，慢些走。”"), can_retry=False)
    assert last == "晚上，“楼梯滑，慢些走。”"
    assert _stream(user, _pieces("“好。”"), can_retry=True) == "“好。”"  # a short reply is shown at its end


def test_a_second_try_that_is_only_echo_is_shown_rather_than_nothing() -> None:
    assert _stream("掌柜，有热水吗？我想洗把脸。", _pieces("有热水吗？"), can_retry=False) == "有热水吗？"


def test_the_filter_shows_a_plain_reply_whole_and_in_order() -> None:
    user = "你好，掌柜。还有空房吗？"
    reply = "“有的。”青梧从柜台后取出钥匙，“楼上东头那间，推窗就是河。”"
    guard = EchoFilter(user, can_retry=True)
    shown = [guard.feed(piece) for piece in _pieces(reply)]
    assert all(part is not None for part in shown)
    assert "".join(part or "" for part in shown) + (guard.finish() or "") == reply
    assert not any(shown[:3])  # "“有的。”": the opening is held until it has 8 characters
    assert any(shown[:-3])  # then clauses go out as they complete, not only at the end


def test_an_earlier_line_of_the_user_handed_back_is_cut_too() -> None:
    """Two turns later the model wrote the user's self-introduction again (the user's part)."""
    guard = EchoFilter(LONG_TURN, can_retry=True, earlier=["我叫陆行舟，从县城来，想在镇上住几天。", ""])
    assert guard.feed("我叫陆行舟，从县城来。") == ""  # short clauses of the user's words: held
    assert guard.finish() is None  # an opening echo: generated once more
    second = EchoFilter(LONG_TURN, can_retry=False, earlier=["我叫陆行舟，从县城来，想在镇上住几天。"])
    reply = "我叫陆行舟，从县城来。青梧放下算盘，“沈家的小儿子……”"
    shown = "".join(second.feed(piece) or "" for piece in _pieces(reply)) + (second.finish() or "")
    assert shown == "青梧放下算盘，“沈家的小儿子……”"


# English is compared in words, Chinese in characters: the same bounds mean a clause in both.
GREETING = (
    "*You wake with a start.* \"Ah, you're awake at last. I was so worried, I found you bloodied and "
    "unconscious.\" \"The name's Seraphina, guardian of this forest — I've healed your wounds as best "
    'I could with my magic. How are you feeling?"'
)


def test_units_count_a_chinese_character_or_an_english_word_as_one() -> None:
    from peargarden.providers._echo import units

    assert units("掌柜，有热水吗？") == "掌柜有热水吗"
    assert len(units("The guardian of this forest.")) == 5
    assert units("Forest") == units("forest") != units("forests")
    assert len(units("住3号房，Room 12。")) == len("住") + 1 + len("号房") + 2
    assert units("“”，。!? \ud800") == ""  # punctuation, spaces and a lone surrogate are no units


def test_english_phrases_of_the_greeting_taken_up_again_are_kept() -> None:
    """The reply Qwen2.5-0.5B gave on SillyTavern's Seraphina card: short phrases of the card's
    greeting again ("guardian of this forest", "with my magic") are the story, not an echo."""
    user = "*I slowly open my eyes.* Where am I? Who are you?"
    reply = (
        "I am Seraphina, the guardian of this forest. You are in my glade. "
        "Your wounds are healed with my magic, rest now."
    )
    assert _stream(user, _pieces(reply), can_retry=False, earlier=(GREETING,)) == reply


ENGLISH_ECHOES = [
    # the user's whole line again
    ("Where am I? Who are you?", "Where am I? Who are you?"),
    # one of the user's clauses said again, at least six words
    ("I wander toward the old well behind the inn. Is anyone there?", "I wander toward the old well behind the inn."),
    # ten words of a long turn quoted inside a new clause
    (
        "My mother sent me here because the last letter from my brother came from this very town.",
        "She nods, because the last letter from my brother came from this very town.",
    ),
    # issue 49: a short clause of the user's again (three words), and the user's line re-voiced
    ("*I wake up slowly...* Where am I?", "*You wake slowly, wincing as you try to sit up.* Where... where am I?"),
    ("I am so tired. I walked all night in the rain.", "You are so tired. You walked all night in the rain."),
]

ENGLISH_NOT_ECHOES = [
    ("*I wake up slowly...* Where am I?", '"You are in my glade, at the Mossbrook shrine." *She smiles.*'),
    ("Thank you.", '"Thank you for the tea, too." *Wren bows.*'),  # two words: no clause of the user's
]


@pytest.mark.parametrize(("user", "reply"), ENGLISH_NOT_ECHOES)
def test_english_replies_that_answer_are_not_echoes(user: str, reply: str) -> None:
    assert not echoes(user, reply)


@pytest.mark.parametrize(("user", "reply"), ENGLISH_ECHOES)
def test_english_echoes_are_caught_in_words(user: str, reply: str) -> None:
    assert echoes(user, reply)


def test_an_english_reply_said_again_word_for_word_is_cut() -> None:
    """A loop across beats: the model's own earlier reply again, a whole sentence of it."""
    reply = "She smiles. I've healed your wounds as best I could with my magic. Rest."
    assert _stream("And then?", _pieces(reply), can_retry=False, earlier=(GREETING,)) == "She smiles. Rest."


def test_a_reply_cut_after_a_comma_ends_in_a_full_stop() -> None:
    """Turn 10 of the quality benchmark ended "镇上有很多好吃的，": the clause after it was the
    user's line again, cut, and the reply hung mid-sentence."""
    user = "镇上有什么好吃的？明天想出去走走。"
    reply = "镇上有很多好吃的，明天想出去走走。"
    assert _stream(user, _pieces(reply), can_retry=False) == "镇上有很多好吃的。"
    quoted = "“镇上有很多好吃的，”明天想出去走走。"
    assert _stream(user, _pieces(quoted), can_retry=False) == "“镇上有很多好吃的。”"


def test_an_english_reply_cut_after_a_comma_ends_in_a_period() -> None:
    reply = "*She smiles softly.* \"I'm Seraphina, I've healed your wounds as best I could with my magic.\""
    shown = _stream("Who are you?", _pieces(reply), can_retry=False, earlier=(GREETING,))
    assert shown == "*She smiles softly.* \"I'm Seraphina.\""  # the quote it opened is closed


def test_a_comma_clause_waits_for_the_next_and_stays_when_that_one_is_kept() -> None:
    user = "镇上有什么好吃的？"
    guard = EchoFilter(user, can_retry=False)
    assert guard.feed("桥头周记的馄饨最好，去晚了") == ""  # the comma clause waits
    assert guard.feed("就没有了。青") == "桥头周记的馄饨最好，去晚了就没有了。"
    assert guard.finish() == "青"
    # a reply that ends in a comma of its own (nothing cut after it) keeps it
    own = EchoFilter(user, can_retry=False)
    assert (own.feed("桥头周记的馄饨最好，") or "") + (own.finish() or "") == "桥头周记的馄饨最好，"


def test_the_marks_a_reply_left_open_are_named_innermost_first() -> None:
    assert open_marks("*她笑了。“好") == "”*"
    assert open_marks("“好。”*点头*") == ""
    assert open_marks('*She smiles.* "Rest now') == '"'
    assert open_marks("「『走吧」") == ""  # a mark closed out of order closes what it holds
    assert open_marks("I'm here, don't worry") == ""  # apostrophes are no quotes


def test_a_reply_cut_inside_a_quote_or_an_action_closes_them() -> None:
    reply = "*She takes your hand.* \"Rest now. I've healed your wounds as best I could with my magic.\""
    shown = _stream("Thank you.", _pieces(reply), can_retry=False, earlier=(GREETING,))
    assert shown == "*She takes your hand.* \"Rest now.\""  # no space left before the closing quote
    user = "镇上有什么好吃的？明天想出去走走。"
    shown = _stream(user, _pieces("*青梧想了想。“桥头的馄饨。明天想出去走走。”*"), can_retry=False)
    assert shown == "*青梧想了想。“桥头的馄饨。”*"
    # nothing cut at the end: the reply is shown as it came, open marks and all
    assert _stream(user, _pieces("“桥头的馄饨，去晚了就没有"), can_retry=False) == "“桥头的馄饨，去晚了就没有"
