"""The sentence guard: a small model's claim to be a model, or a sentence its character said before,
held back sentence by sentence — retried while it may be, cut after, never shown on the last try."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from peargarden.providers._repeats import SaidBefore
from peargarden.providers._self_names import names_for
from peargarden.providers._sentence_guard import DEFAULT_FALLBACK, SentenceGuard, Shown
from peargarden.providers._sentences import kept_marks, sentence_end, split_sentences
from peargarden.providers.base import Cast, take_back

GREETING = (
    '"Easy. Don\'t sit up too fast." *She sets the bowl aside.* "This is the Mossbrook shrine. I\'m Wren; I keep it."'
)
FIRST_REPLY = '*She nods.* "I\'m Wren, twenty-six. You are safe here."'
QINGWU = "“进来吧，门口风大。”她放下算盘。“这里是听雨轩，客官说笑了。”"


def _apply(screen: str, out: Shown) -> str:
    """What a reader sees after *out*: its take-back first, then its text."""
    assert screen.endswith(out.back)  # only what was shown can be taken back
    return take_back(screen, out.back) + out.text


def _stream(guard: SentenceGuard, reply: str, step: int = 3) -> str | None:
    screen = ""
    for start in range(0, len(reply), step):
        out = guard.feed(reply[start : start + step])
        if out is None:
            return None
        screen = _apply(screen, out)
    end = guard.finish()
    return None if end is None else _apply(screen, end)


def _text(out: Shown | None) -> str | None:
    """The text of a feed with nothing taken back (None: a retry)."""
    if out is None:
        return None
    assert not out.back
    return out.text


# -- sentences


def test_sentences_end_at_their_marks_with_the_closing_quotes_and_spaces_after() -> None:
    assert split_sentences("“好。”她笑了。还有房吗？") == ["“好。”", "她笑了。", "还有房吗？"]
    assert split_sentences('"Easy." *She smiles.* Rest now.') == ['"Easy." ', "*She smiles.* ", "Rest now."]
    # A full stop ends a sentence only before a space or a closing mark.
    assert split_sentences("It costs 3.5 coins. Mr.Li paid.") == ["It costs 3.5 coins. ", "Mr.Li paid."]
    assert sentence_end("她笑了。") == -1  # complete only once something follows
    assert sentence_end("她笑了。”") == -1 and sentence_end("她笑了。”好") == len("她笑了。”")


@given(st.text(alphabet='好雨a .。！？!?”“"*\n', max_size=40))
def test_sentences_joined_give_the_text_again(text: str) -> None:
    assert "".join(split_sentences(text)) == text


def test_a_cut_sentence_keeps_the_marks_the_rest_needs() -> None:
    assert kept_marks("", "\"I'm Wren, twenty-six. ") == '"'  # it opened the quote
    assert kept_marks('"The rain will stop. ', "I'm Wren.\" ") == '"'  # it closed it
    assert kept_marks("“好。", "客官说笑了。") == ""  # inside the quote: nothing to keep
    assert kept_marks("", "“我是AI。”") == ""  # opened and closed
    assert kept_marks("*她笑了。", "我是AI。*“你好") == "*“"  # closes the action, opens a quote


# -- said before


def test_a_sentence_said_before_is_one_of_four_units_or_more_in_a_row() -> None:
    said = SaidBefore([GREETING, FIRST_REPLY, QINGWU])
    assert said.repeats("I'm Wren, twenty-six.") and said.repeats("i'm wren — twenty six!")
    assert said.repeats("“客官说笑了。”")
    assert not said.repeats("Easy.") and not said.repeats("好的。")  # too short to be a loop
    assert not said.repeats("I'm Wren, and the rain will stop by morning.")
    # Nearly all of it: the same opening with a word added (two thirds or more in one run).
    assert said.repeats("I'm Wren; I keep it safe here.") and said.repeats("“客官说笑了，真是。”")
    assert not said.repeats("I'm Wren; the bell is older than the shrine.")
    # No run spans two messages.
    assert not SaidBefore(["It is late", "tonight we rest"]).repeats("late tonight we")


# -- the guard: claims


def test_a_claim_opening_a_try_that_may_be_retried_stops_it() -> None:
    guard = SentenceGuard(can_retry=True)
    assert _stream(guard, "我是一个由OpenAI开发的AI助手。有什么可以帮你？") is None
    assert guard.outcome == "claim"


def test_a_claim_after_something_was_shown_is_cut_and_the_reply_goes_on() -> None:
    reply = "“客官说笑了。”她摇摇头。“I am Qwen, created by Alibaba Cloud. 这雨今夜停不了。”"
    assert _stream(SentenceGuard(can_retry=True), reply) == "“客官说笑了。”她摇摇头。“这雨今夜停不了。”"


def test_the_last_try_cuts_the_claim_and_keeps_what_is_in_character() -> None:
    reply = "As an AI language model, I don't drink tea. *She pours two cups anyway.* Sit."
    assert _stream(SentenceGuard(can_retry=False), reply) == "*She pours two cups anyway.* Sit."
    zh = "我是通义千问，一个语言模型。客官，今晚还有一间临河的房。"
    assert _stream(SentenceGuard(can_retry=False), zh) == "客官，今晚还有一间临河的房。"


def test_a_last_try_with_nothing_but_a_claim_shows_the_characters_line_instead() -> None:
    line = "（青梧笑了笑，没有接这句话。）"
    for claim in ("I'm a AI model created by OpenAI.", "“我是阿里云开发的超大规模语言模型。”", "我是AI助手"):
        assert _stream(SentenceGuard(can_retry=False, fallback=line), claim) == line
        assert _stream(SentenceGuard(can_retry=False), claim) == DEFAULT_FALLBACK


def test_each_clause_streams_once_it_is_whole_before_its_sentence_is_judged() -> None:
    """Issue 49: the guards held a whole sentence, and a small model writes one a reply — the first
    text came with the reply's end.  Now a clause shows as soon as the next character follows it."""
    guard = SentenceGuard(can_retry=True)
    assert _text(guard.feed("客官说笑")) == ""
    assert _text(guard.feed("了，这")) == "客官说笑了，"  # a clause, its sentence not judged yet
    assert _text(guard.feed("雨下了三天。我")) == "这雨下了三天。"
    assert _text(guard.feed("不过是个开客栈的。")) == ""  # whole only once something follows
    assert _text(guard.feed("”")) == ""
    end = guard.finish()
    assert end is not None and _text(end) == "我不过是个开客栈的。”"


def test_a_long_clause_streams_once_enough_of_it_is_judged_clean() -> None:
    guard = SentenceGuard(can_retry=True)
    long = "她把灯芯拨亮了些又坐回柜台后面拿起算盘" * 4  # no punctuation at all
    assert _text(guard.feed(long)) == long  # no end yet, but no claim in sixty characters either
    assert _text(guard.feed("，")) == "，" and _text(guard.feed("笑了")) == ""  # now clause by clause again


def test_a_sentence_said_before_shown_in_part_is_taken_back_when_it_ends() -> None:
    """A clause of a sentence that turns out to be said before went out: it is taken back (the
    reader sees it go, as a swipe), and the reply goes on."""
    guard = SentenceGuard(can_retry=True, said=["“这雨下了三天，镇上的人都说是老天在哭。”"])
    assert _text(guard.feed("“客官，这雨下了三天，")) == "“客官，"  # the second clause is held: said before
    out = guard.feed("镇上的人都说是老天在哭。”她笑了。")
    assert out == Shown("", "“客官，", "repeat")
    out = guard.feed("好")
    assert out is not None and out.text == "她笑了。" and not out.back  # (its quote marks paired: none kept)
    # A claim in a later sentence goes the same way.
    claim = SentenceGuard(can_retry=True)
    assert _text(claim.feed("有的。我是这里的掌柜，也")) == "有的。我是这里的掌柜，"
    taken = claim.feed("是阿里云开发的模型。好")
    assert taken is not None and taken.back == "我是这里的掌柜，" and taken.reason == "claim"


def test_a_claim_opening_a_try_after_a_clause_was_shown_stops_the_try() -> None:
    """The provider takes back what the try showed (the guard returns None: a retry)."""
    guard = SentenceGuard(can_retry=True)
    assert _text(guard.feed("我叫青梧，是")) == "我叫青梧，"
    assert guard.feed("阿里云开发的语言模型。") is not None
    assert guard.feed("好") is None and guard.outcome == "claim"


def test_short_replies_and_replies_of_marks_only_come_out_whole() -> None:
    assert _stream(SentenceGuard(can_retry=True), "嗯") == "嗯"
    assert _stream(SentenceGuard(can_retry=True), "……") == "……"
    assert _stream(SentenceGuard(can_retry=True), "") == ""


# -- the guard: sentences said before


def test_an_opening_said_before_is_cut_with_its_quote_kept() -> None:
    guard = SentenceGuard(can_retry=True, said=[GREETING, FIRST_REPLY])
    reply = '"I\'m Wren, twenty-six. The rain will stop by morning." *She smiles.*'
    assert _stream(guard, reply) == '"The rain will stop by morning." *She smiles.*'
    zh = SentenceGuard(can_retry=True, said=[QINGWU])
    assert _stream(zh, "“客官说笑了。镇上的桂花糕最好。”") == "“镇上的桂花糕最好。”"


def test_a_try_that_only_says_again_what_was_said_is_retried_then_shown_on_the_last_try() -> None:
    retry = SentenceGuard(can_retry=True, said=[FIRST_REPLY])
    assert _stream(retry, '"I\'m Wren, twenty-six."') is None and retry.outcome == "repeat"
    last = SentenceGuard(can_retry=False, said=[FIRST_REPLY])
    assert _stream(last, '"I\'m Wren, twenty-six."') == '"I\'m Wren, twenty-six."'


def test_a_short_reply_said_again_whole_is_retried() -> None:
    """Qwen2.5-0.5B answered 「I am Rowan.」 six turns running: three units, under a sentence's bound."""
    retry = SentenceGuard(can_retry=True, said=[GREETING, "I am Rowan."])
    assert _stream(retry, "I am Rowan.") is None and retry.outcome == "repeat"
    assert _stream(SentenceGuard(can_retry=True, said=["“好。”"]), "好！") is None
    assert _stream(SentenceGuard(can_retry=False, said=["I am Rowan."]), "I am Rowan.") == "I am Rowan."
    assert _stream(SentenceGuard(can_retry=True, said=["I am Rowan."]), "I am Rowan, yes.") == "I am Rowan, yes."
    assert SaidBefore(["I am Rowan."]).whole("i am rowan") and not SaidBefore(["……"]).whole("……")


def test_a_last_try_of_a_claim_and_a_repeat_shows_the_repeat_not_the_claim() -> None:
    guard = SentenceGuard(can_retry=False, said=[FIRST_REPLY], fallback="*Wren smiles.*")
    assert _stream(guard, "I'm an AI assistant. I'm Wren, twenty-six.") == "I'm Wren, twenty-six."


def test_new_sentences_pass_unchanged() -> None:
    reply = '*Wren opens the shutter.* "It won\'t stop tonight. Drink your tea."'
    assert _stream(SentenceGuard(can_retry=True, said=[GREETING, FIRST_REPLY]), reply) == reply


def test_a_sentence_ending_where_the_echo_guard_stopped_is_shown_at_once() -> None:
    """The echo guard lets a clause through only once it saw the next character: a sentence ending
    there is whole, and is shown without waiting for the next clause (a crash there would lose it)."""
    waiting = SentenceGuard(can_retry=True)
    assert _text(waiting.feed("有的，楼上还空着一间。")) == "有的，"  # the sentence waits for what follows
    guard = SentenceGuard(can_retry=True)
    assert _text(guard.feed("有的，", at_boundary=True)) == "有的，"  # a clause: shown, not yet judged
    assert _text(guard.feed("楼上还空着一间。", at_boundary=True)) == "楼上还空着一间。"
    assert _text(guard.feed("“临河。”", at_boundary=True)) == "“临河。”"
    assert _text(SentenceGuard(can_retry=True).feed("I'm Wren.", at_boundary=True)) == "I'm Wren."
    claimed = SentenceGuard(can_retry=True)
    assert claimed.feed("我是一个由OpenAI开发的AI助手。", at_boundary=True) is None
    assert claimed.outcome == "claim"


# -- someone else's name, the user's words restated

WREN_NAMES = names_for(Cast(own=("Wren",), others=("Aldric", "Aldric Ashford")), ["My name is Rowan."])
QINGWU_NAMES = names_for(Cast(own=("青梧",), user=("旅人",), others=("怀瑾", "怀瑾公子")), ["我叫陆行舟，从县城来。"])


def test_a_reply_opening_with_the_users_name_for_the_character_is_retried() -> None:
    guard = SentenceGuard(can_retry=True, names=WREN_NAMES)
    assert _stream(guard, '"I\'m Rowan; I keep it. The back room is yours."') is None and guard.outcome == "user"
    zh = SentenceGuard(can_retry=True, names=QINGWU_NAMES)
    assert _stream(zh, "我叫陆行舟，从县城来。客官请坐。") is None and zh.outcome == "user"
    lore = SentenceGuard(can_retry=True, names=QINGWU_NAMES)
    assert _stream(lore, "我就是怀瑾。你不认得了？") is None and lore.outcome == "name"


def test_a_later_sentence_taking_someone_elses_name_is_taken_back_with_its_reason() -> None:
    """The panel's reply (seed 1): the first sentence in character, then Aldric's name for Wren."""
    guard = SentenceGuard(can_retry=True, names=WREN_NAMES)
    assert _text(guard.feed('*She sits down again.* "My Thornwood, but ')) == '*She sits down again.* "My Thornwood, '
    out = guard.feed("I'm Aldric; I keep it.\" ")
    assert out is not None and out.text == ""  # held: the sentence so far takes his name
    out = guard.feed("*She smiles.*")
    assert out is not None and out.back == '"My Thornwood, ' and out.reason == "name"
    end = guard.finish()
    assert end is not None and out.text + end.text == "*She smiles.*"  # (its quote opened and closed in it)


def test_the_characters_own_name_passes_the_name_guard() -> None:
    reply = '"I\'m Wren; I keep it. Rest, Rowan."'
    assert _stream(SentenceGuard(can_retry=True, names=WREN_NAMES), reply) == reply
    assert _stream(SentenceGuard(can_retry=True, names=QINGWU_NAMES), "我是青梧。怀瑾走了十年了。") == (
        "我是青梧。怀瑾走了十年了。"
    )


def test_the_last_try_cuts_the_wrong_name_and_never_ends_in_it() -> None:
    guard = SentenceGuard(can_retry=False, names=WREN_NAMES, fallback="*Wren smiles and lets that pass.*")
    assert _stream(guard, "I'm Rowan. *She tops up your tea.*") == "*She tops up your tea.*"
    alone = SentenceGuard(can_retry=False, names=WREN_NAMES, fallback="*Wren smiles and lets that pass.*")
    assert _stream(alone, "I'm Rowan.") == "*Wren smiles and lets that pass.*"


def test_a_reply_opening_with_the_users_words_restated_is_retried_as_an_echo() -> None:
    user = "Ten years ago a young ranger called Aldric left from the Greywater ford. Do you remember him?"
    guard = SentenceGuard(can_retry=True, user_line=user)
    assert _stream(guard, "Aldric left from the Greywater ford in 1649. I remember him.") is None
    assert guard.outcome == "echo"
    later = SentenceGuard(can_retry=True, user_line=user)
    reply = '*She nods slowly.* "Aldric left from the Greywater ford in spring. He never wrote."'
    assert _stream(later, reply) == '*She nods slowly.* "He never wrote."'


def test_a_reply_opening_with_the_users_move_is_retried() -> None:
    """Qwen2.5-1.5B as Wren on issue 49's panel: "*You lean against the wall, looking out at the trees.*"."""
    guard = SentenceGuard(can_retry=True)
    reply = '*You lean against the wall, looking out at the trees.* "It\'s going to stop in a few hours."'
    assert _stream(guard, reply) is None and guard.outcome == "user"
    zh = SentenceGuard(can_retry=True)
    assert _stream(zh, "（你推门进来，带进一阵雨气。）“客官里边请。”") is None and zh.outcome == "user"


def test_a_later_move_of_the_users_is_cut_and_the_characters_own_words_stay() -> None:
    """The panel's reply, seed 2: Wren's answer, then the user's move written for them."""
    reply = (
        '*The old ferry is moored by the cottage.* "It crosses once a day, but it\'s hard to say when." '
        "*You step back from the door and look out into the glade.*"
    )
    assert _stream(SentenceGuard(can_retry=True), reply) == (
        '*The old ferry is moored by the cottage.* "It crosses once a day, but it\'s hard to say when." '
    )
    # Inside an action opened before: the sentence that goes on with "You …" is the user's move.
    inside = "*Wren smiles and nods. You follow her inside, dripping.* \"Sit by the fire.\""
    shown = _stream(SentenceGuard(can_retry=True), inside)
    assert shown is not None and "follow" not in shown  # (the action's closing mark is kept for the rest)
    assert shown.startswith("*Wren smiles and nods.") and shown.endswith('"Sit by the fire."')


def test_the_user_in_the_characters_speech_or_as_an_object_is_no_move_of_theirs() -> None:
    for reply in (
        '"You look tired," she says. *She hands you the key.*',
        "*She smiles.* You look tired, traveller. Sit.",
        "“你好，客官。”（她把钥匙递给你。）“你看起来累了。”",
    ):
        assert _stream(SentenceGuard(can_retry=True), reply) == reply
