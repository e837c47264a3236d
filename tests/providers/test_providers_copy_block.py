"""The retry's copy block: which tokens it bans after which reply, on one-character tokens."""

from __future__ import annotations

from peargarden.providers._copy_block import SHARED_RUN, CopyBlock, copy_block_for, user_clauses

LONG_TURN = "我一路打听过来，船家说听雨轩的掌柜记得每一位住过的客人，所以冒雨赶了夜路。"
STORY = "你是青梧，栖水镇客栈「听雨轩」的掌柜。她记得每一位住过的客人。【镇北渡口】每天两班船。"


class CharTokens:
    """A tokenizer of one token per character, like a test double of ``llama_cpp.Llama``."""

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return [ord(c) for c in text.decode("utf-8")]

    def detokenize(self, tokens: list[int]) -> bytes:
        return "".join(map(chr, tokens)).encode("utf-8")


def _block(user: str = LONG_TURN, story: str = STORY, context: int = 2) -> CopyBlock:
    return copy_block_for(CharTokens(), user, own_text=story, context=context)


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


def test_a_run_of_the_users_words_is_not_continued() -> None:
    block = _block()
    assert "说" in _banned(block, "青梧：船家")
    assert "赶" in _banned(block, "冒雨")
    assert "家" not in _banned(block, "青梧：船")  # one token of the user's: a word may be taken up
    assert _banned(block, "天晴了") == ""


def test_names_the_story_already_holds_are_free_up_to_a_few_tokens() -> None:
    block = _block("十年前从镇北渡口走的那位公子，掌柜可还记得？")
    assert "渡" not in _banned(block, "那镇北") and "口" not in _banned(block, "镇北渡")
    assert "走" in _banned(block, "北渡口")  # past the name the user's sentence goes on: banned
    # The card's own sentence the user quotes back is shared too, but only SHARED_RUN tokens of it.
    quoted = _block(LONG_TURN)
    assert "每" not in _banned(quoted, "记得")
    assert "住" in _banned(quoted, "得每一位"[-SHARED_RUN:])


def test_the_processor_bans_only_in_the_reply_and_keeps_other_scores() -> None:
    block = _block()
    prompt = _ids("用户：船家说")  # the prompt ends like a run of the user's: not the reply yet
    scores = [0.5] * 0x10000
    out = block(prompt, scores)
    assert out[ord("船")] == float("-inf") and out[ord("说")] == 0.5 and out[ord("听")] == 0.5
    scores = [0.5] * 0x10000
    out = block(prompt + _ids("船家"), scores)  # the processor knows where the reply began
    assert out[ord("说")] == float("-inf") and out[ord("青")] == 0.5


def test_a_strict_block_allows_no_two_new_words_of_the_users_in_a_row() -> None:
    block = _block(context=1)
    assert "家" in _banned(block, "青梧：船")
    assert "雨" not in _banned(block, "青梧：听")  # 听雨轩 is the story's own name
