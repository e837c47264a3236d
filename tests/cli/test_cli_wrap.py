"""Replies on a terminal break between words, not wherever the last column falls; what goes to a
pipe or a file is the reply as the model wrote it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.cli import pear_in_process
from kit.examples import examples
from peargarden.cli._wrap import StreamWrap, columns
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

ENGLISH = (
    "*She walks over, clasping your hands in hers, warmth and comfort radiating from her touch.* "
    '"The name\'s Seraphina, guardian of this forest."'
)
CHINESE = "青梧放下算盘，抬眼看了看门外的雨。她说：“这雨下了三天了，客官是从县城来的吧？”"


def wrap(text: str, width: int, piece: int = 3) -> str:
    """*text* streamed through a wrap *piece* characters at a time, as tokens arrive."""
    wrapper = StreamWrap(width)
    return "".join(wrapper.feed(text[i : i + piece]) for i in range(0, len(text), piece)) + wrapper.flush()


def width_of(line: str) -> int:
    return sum(columns(char) for char in line)


def test_english_breaks_between_words_and_keeps_every_word_whole() -> None:
    lines = wrap(ENGLISH, 30).split("\n")
    assert lines[:2] == ["*She walks over, clasping your", "hands in hers, warmth and"]
    assert all(width_of(line) <= 30 for line in lines)
    assert " ".join(lines) == ENGLISH  # only spaces became line breaks


def test_chinese_breaks_anywhere_counting_two_columns_a_character() -> None:
    lines = wrap(CHINESE, 30).split("\n")
    assert lines[0] == "青梧放下算盘，抬眼看了看门外的"  # 15 characters, 30 columns
    assert "".join(lines) == CHINESE and all(width_of(line) <= 30 for line in lines)


def test_the_texts_own_lines_and_indentation_stay() -> None:
    text = "她写道：\n  一、雨停之前不开船。\n  二、灯不灭。"
    assert wrap(text, 40) == text
    assert wrap("x" * 25, 10) == "xxxxxxxxxx\nxxxxxxxxxx\nxxxxx"  # a word longer than a line


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from(["a", "b", " ", "青", "梧", "，", "\n", "word", "  "]), max_size=60).map("".join),
       st.integers(1, 7))  # fmt: skip
def test_streaming_in_any_pieces_gives_the_same_lines(text: str, piece: int) -> None:
    whole = wrap(text, 12, piece=len(text) or 1)
    assert wrap(text, 12, piece=piece) == whole
    assert whole.replace("\n", "").replace(" ", "") == text.replace("\n", "").replace(" ", "")


def test_a_reply_to_a_pipe_is_left_as_the_model_wrote_it(home_dir: Path) -> None:
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply(ENGLISH)
        done = pear_in_process(home_dir, "chat", "--once", "你好", "--mode", "tavern", "--base-url", server.base_url,
                               "--model", "m", check=True)  # fmt: skip
    assert ENGLISH in done.stdout


def test_a_reply_on_a_terminal_is_wrapped_at_its_width(home_dir: Path) -> None:
    """A real terminal (a pseudo-terminal of 40 columns) for stdout: the isatty path."""
    import pty

    with FakeOpenAIServer() as server:
        server.script([text_reply(ENGLISH)])
        leader, follower = pty.openpty()
        command = [sys.executable, "-m", "peargarden", "--home", str(home_dir), "chat", "--once", "你好",
                   "--mode", "tavern", "--base-url", server.base_url, "--model", "m"]  # fmt: skip
        env = {**os.environ, "COLUMNS": "40", "PYTHONIOENCODING": "utf-8"}
        child = subprocess.Popen(command, stdout=follower, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
        os.close(follower)
        chunks: list[bytes] = []
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # the child closed its end
                break
            if not data:
                break
            chunks.append(data)
        assert child.wait(timeout=60) == 0
        os.close(leader)
    lines = [line for line in b"".join(chunks).decode("utf-8").replace("\r\n", "\n").split("\n") if line]
    assert len(lines) > 3 and all(width_of(line) < 40 for line in lines)
    assert " ".join(lines) == ENGLISH
