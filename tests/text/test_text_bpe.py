"""Counting in Python over the rank table (``text/bpe.py``) gives tiktoken's tokens, every code point
of the ranges it takes, both vocabularies; a text it does not take goes to tiktoken, and the counter
a process uses stays exact when it moves over to tiktoken."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.text._bpe_classes import CLASS_RUNS
from peargarden.text.bpe import CHECKED_RANGES, MAX_PIECE_BYTES, RankBpe, checked, re_pattern
from peargarden.text.tokens import _PATTERNS, ExactCounter, ExactCounts, packaged_encoding, packaged_ranks

NAMES = ("cl100k_base", "o200k_base")


@cache
def _bpe(name: str) -> RankBpe:
    return RankBpe(packaged_ranks(name), _PATTERNS[name])


def _tiktoken(name: str, text: str) -> list[int]:
    return packaged_encoding(name).encode(text, disallowed_special=())


def _every_checked_code_point(per_text: int) -> Iterator[str]:
    """Texts holding every code point of the checked ranges, each after a letter and a space and
    before a digit: where it falls in the split tells letter, digit, space and other apart."""
    chars = [chr(code) for low, high in CHECKED_RANGES for code in range(low, high + 1)]
    for start in range(0, len(chars), per_text):
        yield "".join(f"x{c}1 {c}" for c in chars[start : start + per_text]) + "'s\n \n"


@pytest.mark.parametrize("name", NAMES)
def test_every_code_point_it_takes_encodes_as_tiktoken_does(name: str) -> None:
    bpe = _bpe(name)
    wrong = [text for text in _every_checked_code_point(500) if bpe.encode(text) != _tiktoken(name, text)]
    assert wrong == []


CORPUS = [
    "青梧放下茶盏，望向窗外的河，半晌才道：“记得。他走的那天，渡口的柳树才抽芽。”",
    "*林月从茶壶边抬起头。* 欢迎光临，{{user}}！今天下雨，来一杯龙井吧。It warms the heart.",
    "<START>\n{{user}}: 你推荐什么茶？\n{{char}}: 今天下雨，来一杯龙井吧。\n\n\n   ",
    "Hello! I'm here; they'll say we've done it, didn't we? 1234567 3.14159 ‰ — “quoted” …",
    "「はい、どうぞ」とカタカナで書いた。한국어 문장도 있습니다. Привет, мир! Ελληνικά.",
    "<|endoftext|><|fim_prefix|>正文<|endofprompt|>",  # special tokens' text counts as plain text
    "😀🎉👍🏻 表情也算：🌧️☕️✨ →←↑↓ ★☆ ①②③ ⅫⅣ ＡＢＣ１２３！？",
    "\t\tindented\r\nwindows line\r\n\r\n  trailing spaces   ",
]


@pytest.mark.parametrize("name", NAMES)
def test_role_play_text_encodes_as_tiktoken_does(name: str) -> None:
    for text in CORPUS:
        assert checked(text), text
        assert _bpe(name).encode(text) == _tiktoken(name, text), text
        assert _bpe(name).count(text) == len(_tiktoken(name, text)), text


_CHECKED_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(" \n\t\r'.,!?:;\"()[]{}<>-_*#|/\\0123456789"),
        st.characters(min_codepoint=0x20, max_codepoint=0x24F),
        st.characters(min_codepoint=0x3000, max_codepoint=0x30FF),
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
        st.characters(min_codepoint=0xFF00, max_codepoint=0xFFEF),
        st.characters(min_codepoint=0x1F300, max_codepoint=0x1F64F),
    ),
    max_size=80,
)


@settings(max_examples=examples(150))
@given(text=_CHECKED_TEXT, name=st.sampled_from(NAMES))
def test_any_text_of_these_characters_encodes_as_tiktoken_does(text: str, name: str) -> None:
    assert _bpe(name).encode(text) == _tiktoken(name, text)


@pytest.mark.parametrize("name", sorted(CLASS_RUNS))
def test_each_written_out_class_holds_what_regex_says_in_the_checked_ranges(name: str) -> None:
    """The runs the split uses for ``re`` are the ``regex`` module's class, code point by code point
    (``regex`` is what the split used before, and what the tests encode both ways against)."""
    regex = pytest.importorskip("regex")
    pattern = regex.compile(name)
    runs = CLASS_RUNS[name]
    ours = {code for low, high in zip(runs[::2], runs[1::2], strict=True) for code in range(low, high + 1)}
    theirs = {code for low, high in CHECKED_RANGES for code in range(low, high + 1) if pattern.fullmatch(chr(code))}
    assert ours == theirs


def test_the_split_needs_no_regex_module() -> None:
    """The written-out pattern has no ``\\p{…}`` left, and a class it does not know is refused."""
    for pattern in _PATTERNS.values():
        assert "\\p{" not in re_pattern(pattern)
    with pytest.raises(ValueError, match="not among"):
        re_pattern(r"\p{Sc}+")


def test_the_ranges_end_where_they_say() -> None:
    inside = {code for low, high in CHECKED_RANGES for code in (low, high)}
    outside = {code for low, high in CHECKED_RANGES for code in (low - 1, high + 1) if code >= 0}
    outside -= {code for low, high in CHECKED_RANGES for code in range(low, high + 1)}
    assert all(checked("文" + chr(code)) for code in inside)
    assert not any(checked("文" + chr(code)) for code in outside)


def test_what_it_does_not_take_is_left_to_tiktoken() -> None:
    bpe = _bpe("cl100k_base")
    newer = "𠀀𪜀"  # CJK extension B: outside the checked ranges
    run = "长" * (MAX_PIECE_BYTES // 3 + 1)  # one piece longer than the merge loop takes
    surrogate = "孤\ud800"
    for text in (newer, "古文" + newer, run, surrogate):
        assert bpe.count(text) is None
        assert bpe.encode(text) is None
    assert ExactCounter("cl100k_base")(newer + run) == len(_tiktoken("cl100k_base", newer + run))


def test_the_counter_stays_exact_when_it_moves_over_to_tiktoken() -> None:
    """A process counts its first characters in Python, the rest with tiktoken once it has counted
    enough for its build to pay, or as soon as a text is not Python's to count."""
    counts = ExactCounts("cl100k_base", python_chars=200)
    texts = [f"第{n}条：我们去西湖{n}喝茶吧，林月说那里的龙井很好。*她笑了笑*" for n in range(12)]
    assert [counts.count(text) for text in texts] == [len(_tiktoken("cl100k_base", t)) for t in texts]
    assert counts.python_left <= 0
    foreign = ExactCounts("cl100k_base")
    assert foreign.count("𠀀") == len(_tiktoken("cl100k_base", "𠀀"))
    assert foreign.python_left == 0
    assert foreign.count("你好") == len(_tiktoken("cl100k_base", "你好"))
