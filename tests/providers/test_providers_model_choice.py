"""Which packaged model a machine runs by default (issue 49, item 1): the 1.5B when it writes fast
enough for a person who waits, judged on its rates per CPU-second, else the 0.5B — one line says why.

The rates below are the self-test's on the shared 2-core VM (2026-12-07, load 13 – 18): 0.5B 120 /
21.7 tok/s prompt / generation per CPU-second (6.1 tok/s generation on the wall clock), 1.5B 61 / 12.1
with llama.cpp's extra buffer types off and 44 / 9.5 with them on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from peargarden.providers.model_choice import (
    MAX_FIRST_TEXT_S,
    Choice,
    Speed,
    choose,
    predicted_large,
    read_choice,
    worth_fetching,
    write_choice,
)

SMALL = Speed("qwen-0.5b", 120.0, 21.7, wall_prompt_tok_s=17.1, wall_gen_tok_s=6.1)


def test_the_larger_model_is_chosen_when_it_is_fast_enough_for_a_person_who_waits() -> None:
    large = Speed("qwen-1.5b", 61.0, 12.1, wall_prompt_tok_s=9.7, wall_gen_tok_s=5.2)
    assert large.first_text() == pytest.approx(400 / 61 + 16 / 12.1)
    model, line = choose(SMALL, large)
    assert model == "qwen-1.5b"
    assert line.startswith("内置模型选用 qwen-1.5b：qwen-1.5b 12.1 tok/s、首句约 7.9 秒，够快")
    assert "按每 CPU 秒折算" in line and "\n" not in line  # how it was judged, on one line


def test_too_slow_a_start_or_too_slow_a_reply_keeps_the_small_model_and_says_which() -> None:
    slow_start = Speed("qwen-1.5b", 44.0, 9.5)  # 9.1 s to read a beat's prompt, 10.8 s to the first words
    model, line = choose(SMALL, slow_start)
    assert model == "qwen-0.5b" and "首句太慢" in line and "10.8 秒" in line
    slow_reply = Speed("qwen-1.5b", 200.0, 7.5)
    model, line = choose(SMALL, slow_reply)
    assert model == "qwen-0.5b" and "生成太慢" in line
    # Not the moment's wall clock: a busy machine's 3.9 tok/s says nothing against a CPU that does 12.
    busy = Speed("qwen-1.5b", 61.0, 12.1, wall_prompt_tok_s=2.0, wall_gen_tok_s=1.0)
    assert choose(SMALL, busy)[0] == "qwen-1.5b"


def test_the_large_model_is_fetched_only_when_the_small_ones_rates_come_near_the_bar() -> None:
    assert worth_fetching(SMALL, "qwen-1.5b")
    weak = Speed("qwen-0.5b", 30.0, 6.0)  # a CPU where even the 0.5B is slow
    assert not worth_fetching(weak, "qwen-1.5b")
    guess = predicted_large(weak, "qwen-1.5b")
    assert guess.predicted and guess.first_text() > MAX_FIRST_TEXT_S
    model, line = choose(weak, guess)
    assert model == "qwen-0.5b" and "按 0.5B 推算" in line  # a prediction never picks the large model


def test_the_choice_is_kept_per_machine_and_written_whole(tmp_path: Path) -> None:
    choice = Choice("qwen-1.5b", "内置模型选用 qwen-1.5b：…", [SMALL], machine="abc123")
    path = write_choice(choice, tmp_path)
    assert path.name == "choice.json" and list(tmp_path.iterdir()) == [path]  # no temp file left
    assert read_choice("abc123", tmp_path) == choice
    assert read_choice("another-cpu", tmp_path) is None
    path.write_text("{not json", encoding="utf-8")
    assert read_choice("abc123", tmp_path) is None  # unreadable: measured again
