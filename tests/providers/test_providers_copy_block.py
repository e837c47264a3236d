"""The retry's copy block: which tokens it bans after which reply (one-character tokens, and a
vocabulary with a few longer ones, as Qwen's has)."""

from __future__ import annotations

from peargarden.providers._copy_block import (
    LIMIT,
    SHARED_LIMIT,
    SOURCE_LIMIT,
    CopyBlock,
    copy_block_for,
    run_length,
    user_clauses,
)
from peargarden.providers._paste_meter import PASTE_RUN, PASTE_SHARE, PASTE_SLACK, PasteMeter

LONG_TURN = "我一路打听过来，船家说听雨轩的掌柜记得每一位住过的客人，所以冒雨赶了夜路。"
STORY = "你是青梧，栖水镇客栈「听雨轩」的掌柜。她记得每一位住过的客人。【镇北渡口】每天两班船。"


class CharTokens:
    """A tokenizer of one token per character (its code point), like a test double of
    ``llama_cpp.Llama``; ``words`` are single tokens too (ids above 0x10000)."""

    def __init__(self, words: tuple[str, ...] = ()) -> None:
        self.words = words

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        decoded = text.decode("utf-8")
        if decoded in self.words:
            return [0x10000 + self.words.index(decoded)]
        return [ord(c) for c in decoded]

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(self.words[t - 0x10000] if t >= 0x10000 else chr(t) for t in tokens).encode("utf-8")


def _block(user: str = LONG_TURN, story: str = STORY, limit: int = LIMIT) -> CopyBlock:
    return copy_block_for(CharTokens(), user, own_text=story, limit=limit)


def _ids(text: str) -> list[int]:
    return [ord(c) for c in text]


def _banned(block: CopyBlock, reply: str) -> str:
    return "".join(sorted(map(chr, block.banned(_ids(reply)))))


def test_the_users_clauses_may_not_open_the_reply_or_a_clause_of_it() -> None:
    assert user_clauses(LONG_TURN) == ["我一路打听过来", "船家说听雨轩的掌柜记得每一位住过的客人", "所以冒雨赶了夜路"]
    openers = set("我你船所")  # 你: the line spoken back from the other side (我 → 你)
    block = _block()
    assert set(_banned(block, "")) >= openers
    assert set(_banned(block, "青梧放下算盘。")) >= openers
    assert set(_banned(block, "“好。”")) >= openers  # closing quote marks after the stop
    assert not set(_banned(block, "青梧放下")) & openers  # inside a clause they are free


def test_a_run_of_the_users_words_is_not_continued_past_a_word() -> None:
    assert LIMIT == 5  # one short of a clause the echo guard calls an echo
    block = _block()
    assert "轩" in _banned(block, "青梧：船家说听雨")  # a sixth character of the user's in a row
    assert "雨" not in _banned(block, "青梧：船家说听")  # a word may be taken up
    assert "夜" in _banned(block, "以冒雨赶了")
    assert _banned(block, "天晴了") == ""
    willow = _block("听说镇上送人只送到柳树下，这是什么讲究？")
    assert "下" not in _banned(willow, "送到柳树")  # 柳树下: the user's word, not in the story
    assert "下" in _banned(willow, "只送到柳树")


def test_names_the_story_already_holds_are_free_up_to_the_shared_limit() -> None:
    block = _block("十年前从镇北渡口走的那位公子，掌柜可还记得？")
    assert "口" not in _banned(block, "那镇北渡")
    assert "走" in _banned(block, "从镇北渡口")  # past the name the user's sentence goes on: banned
    # The card's own sentence the user quotes back is shared too, but only so far.
    assert SHARED_LIMIT == 8
    quoted = _block()
    assert "住" not in _banned(quoted, "记得每一位")
    assert "的" not in _banned(quoted, "记得每一位住过")  # eight characters in a row
    assert "的" in _banned(quoted, "掌柜记得每一位住过")  # ten


def test_the_processor_bans_only_in_the_reply_and_keeps_other_scores() -> None:
    block = _block()
    prompt = _ids("用户：船家说")  # the prompt ends like a run of the user's: not the reply yet
    scores = [0.5] * 0x10000
    out = block(prompt, scores)
    assert out[ord("船")] == float("-inf") and out[ord("听")] == 0.5
    scores = [0.5] * 0x10000
    out = block(prompt + _ids("船家说听雨"), scores)  # the processor knows where the reply began
    assert out[ord("轩")] == float("-inf") and out[ord("青")] == 0.5


def test_a_strict_block_allows_runs_of_two_characters() -> None:
    block = _block(limit=2)
    assert "说" in _banned(block, "青梧：船家") and "家" not in _banned(block, "青梧：船")
    assert "雨" not in _banned(block, "听") and "轩" not in _banned(block, "听雨")  # the story's name


def test_the_copy_is_banned_however_the_model_spells_it() -> None:
    """The user's line may have been cut "过的" + "客人" and the model write "过" + "的客人": every
    single token that spells the continuation is banned, and runs are counted in characters."""
    vocab = CharTokens(("过的", "的客人", "客人", "每一位", "船家"))
    block = copy_block_for(vocab, "船家说起你，我想找个住过的客人。", own_text="青梧", limit=4)
    ids = [ord(c) for c in "想找个住"]
    assert {vocab.detokenize([t]).decode() for t in block.banned(ids)} == {"过", "过的"}
    assert block.banned(ids[:-1]) == set()  # 想找个 + 住 is four characters
    assert {vocab.detokenize([t]).decode() for t in block.banned([])} >= {"船", "船家", "我", "你"}


def test_runs_are_measured_in_characters_of_chinese_and_words_of_english() -> None:
    assert run_length("柳树下，这") == 5  # a punctuation mark counts, as it did in characters
    assert run_length("the guardian of this forest,") == 6  # five words and the comma; spaces nothing
    assert run_length("Seraphina") == run_length("Seraph") == 1
    assert run_length("") == 0


def test_an_english_name_longer_than_the_shared_limit_can_be_written_out() -> None:
    """Counted in letters, "Seraphina" (9) was past the shared limit of 8: a retry could not finish
    the card's own name once the user had said it."""
    block = copy_block_for(CharTokens(), "Seraphina, where am I?", own_text="You are Seraphina.")
    assert "a" not in _banned(block, "She nods. Seraphin")


def test_a_run_of_english_words_is_not_continued_past_five() -> None:
    vocab = CharTokens((" well", " behind", " the", " inn", " old"))
    user = "I wander toward the old well behind the inn. Is anyone there?"
    block = copy_block_for(vocab, user, own_text="青梧")

    def banned(reply: str) -> set[str]:
        return {vocab.detokenize([t]).decode() for t in block.banned(_ids(reply))}

    assert " well" not in banned("You wander toward the old")  # four words of the user's in a row
    assert " behind" in banned("You wander toward the old well")  # a sixth: banned
    assert "b" in banned("You wander toward the old well ")  # however the model spells it


def test_a_long_english_word_that_is_one_token_is_banned_whole() -> None:
    """Qwen2.5 spells " enchanted" (ten characters) as one token: the ban looks for whole words,
    not only the first six characters of what follows."""
    vocab = CharTokens((" enchanted",))
    block = copy_block_for(vocab, "I walk with you through the enchanted forest tonight.", own_text="青梧")
    banned = {vocab.detokenize([t]).decode() for t in block.banned(_ids("We walk with you through the"))}
    assert " enchanted" in banned


UMBRELLA = "听雨轩柜台后的墙上挂着一把旧油纸伞，竹骨断了一根，伞面上手绘的几枝桃花已褪成浅褐色。它从不借给客人。"
GREETING = "“进来吧，门口风大。”她放下算盘，“楼上东头那间临河，被褥今早才烘过。”"


def _lore_block(user: str = "", limit: int = LIMIT) -> CopyBlock:
    return copy_block_for(CharTokens(), user, own_text=STORY, limit=limit, sources=[UMBRELLA, GREETING])


def test_a_run_of_the_lore_or_the_greeting_is_not_continued_past_a_phrase() -> None:
    """Asked about the umbrella, Qwen2.5-0.5B pasted 71 characters of its lore entry: a run of a
    source goes on up to SOURCE_LIMIT characters, no further."""
    assert SOURCE_LIMIT == 10
    block = _lore_block()
    assert "几" not in _banned(block, "青梧说：伞面上手绘的")  # 7 in a row, an 8th is a phrase still
    assert "色" not in _banned(block, "那伞桃花已褪成浅褐")  # 9 + 1 = 10
    assert "已" in _banned(block, "伞面上手绘的几枝桃花")  # 10 in a row: the 11th is banned
    assert "烘" in _banned(block, "楼上东头那间临河，被褥今早才")  # the greeting is a source too
    # A first try has no user's line: no opening of a clause is banned, only the runs.
    assert _banned(block, "") == "" and _banned(block, "好。") == ""
    # A run never spans two sources (the umbrella's end and the greeting's start are not one text).
    joined = copy_block_for(CharTokens(), "", sources=["客人问起", "她笑一笑"], source_limit=3)
    assert _banned(joined, "人问起") == ""  # 她 follows 问起 in no source
    assert "笑" in _banned(joined, "她笑一")


def test_the_lore_bound_is_kept_by_any_spelling_and_on_a_retry_too() -> None:
    vocab = CharTokens(("已褪", "已褪成", "桃花"))
    block = copy_block_for(vocab, "那把伞有什么来历？", own_text=STORY, sources=[UMBRELLA])
    banned = {vocab.detokenize([t]).decode() for t in block.banned([ord(c) for c in "伞面上手绘的几枝"] + [0x10002])}
    assert banned >= {"已", "已褪", "已褪成"}
    # The retry's own bans on the user's line still apply beside the lore's.
    retry = _lore_block("掌柜的，柜台后面那把旧油纸伞，是有什么来历吗？", limit=4)
    assert "柜" in _banned(retry, "") and "已" in _banned(retry, "伞面上手绘的几枝桃花")


def test_a_paste_with_a_character_changed_here_and_there_is_stopped_too() -> None:
    """Held to runs of ten, Qwen2.5-0.5B changed a character and pasted on (「竹骨断了一根，伞面上的手绘
    的几枝桃花已褪成深褐色」): at most PASTE_SHARE of a reply, plus a few units, may lie in runs of the
    sources of PASTE_RUN units or more."""
    assert (PASTE_RUN, PASTE_SHARE, PASTE_SLACK) == (5, 0.4, 6)
    block = _lore_block()
    assert "枝" in _banned(block, "竹骨断了一根，伞面上的手绘的几")  # 10 pasted, then 5 more of 16: too much
    assert "枝" not in _banned(block, "竹骨断了一根，伞面上的手绘的")  # 手绘的几 is four: a word, not a paste
    own = "青梧抬头看了一眼墙上，没有接话，只说那把伞挂了很多年了，"
    assert "枝" not in _banned(block, own + "伞面上手绘的几")  # a phrase of the lore in a reply of its own


def test_the_paste_meter_counts_units_of_runs_and_follows_a_growing_reply() -> None:
    rule = "the old rule of the shrine is that the lantern by the door burns all night"
    meter = PasteMeter("听雨轩是栖水镇上最老的一家客栈\x00" + rule, run_length)
    assert not meter.too_much("听雨轩", 3, "是")  # four units: a name and a word
    assert meter.too_much("听雨轩是栖水镇上最老的", 11, "一")  # 12 of 12 pasted, over 0.4 × 12 + 6
    assert not meter.too_much("我们这儿的听雨轩是栖", 5, "水")  # 6 of 11: 0.4 × 11 + 6 = 10.4
    words = "Yes. We keep the lantern by the door"
    assert not meter.too_much(words, len("the lantern by the door"), " burns")  # 6 of 9 words: under 9.6
    pasted = "the old rule of the shrine is that the lantern"
    assert meter.too_much(pasted, len(pasted), " by")  # 11 of 11 words: over 10.4
    assert not meter.too_much("", 0, "听")  # a new reply: nothing counted from the one before
