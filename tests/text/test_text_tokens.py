"""Offline token counting equal to tiktoken, with ST's per-message costs."""

from __future__ import annotations

import gzip

import pytest

from peargarden.errors import FormatError
from peargarden.text.tokens import (
    EstimateCounter,
    TiktokenCounter,
    build_encoding,
    counter_for_model,
    encoding_for_model,
    full_text_tokens,
    message_tokens,
    packaged_encoding,
    read_packaged_ranks,
)


def test_cl100k_counts_match_sillytavern_recordings() -> None:
    # Per-message costs from oracle case 01 (token_counts.json).
    count = counter_for_model("gpt-3.5-turbo")
    assert (
        message_tokens(count, "system", "Write Lin Yue's next reply in a fictional chat between Lin Yue and User.")
        == 20
    )
    assert message_tokens(count, "system", "今天下雨，来一杯龙井吧。It warms the heart.", "example_assistant") == 31
    assert message_tokens(count, "user", "Hello! 今天有什么好茶？") == 17
    assert message_tokens(count, "user", "") == 0


def test_full_string_count_adds_six() -> None:
    count = counter_for_model("gpt-3.5-turbo")
    assert full_text_tokens(count, "西湖的雨") == count("西湖的雨") + 6
    assert full_text_tokens(count, "") == 0


def test_o200k_is_chosen_for_gpt4o_and_counts_chinese_cheaper() -> None:
    assert encoding_for_model("gpt-4o-mini") == "o200k_base"
    assert encoding_for_model("gpt-4-turbo") == "cl100k_base"
    assert encoding_for_model("qwen2.5-7b") is None
    text = "林月把茶杯推到你面前，窗外的雨还在下。"
    o200k = TiktokenCounter(packaged_encoding("o200k_base"))
    cl100k = TiktokenCounter(packaged_encoding("cl100k_base"))
    assert 0 < o200k(text) < cl100k(text)
    assert o200k.encoding.decode(o200k.encoding.encode(text)) == text


def test_special_token_text_is_counted_as_plain_text() -> None:
    count = counter_for_model("gpt-3.5-turbo")
    assert count("<|endoftext|>") > 1


def test_tampered_rank_data_is_refused() -> None:
    raw = gzip.decompress(read_packaged_ranks("cl100k_base"))
    tampered = raw.replace(b" 0\n", b" 1\n", 1)
    with pytest.raises(FormatError):
        build_encoding("cl100k_base", loader=lambda _name: gzip.compress(tampered))


def test_cjk_estimator_for_unknown_models() -> None:
    estimate = counter_for_model("qwen2.5-7b", default=None)
    assert isinstance(estimate, EstimateCounter)
    chinese = "雨停了就走吧" * 10  # 60 CJK characters
    english = "a" * 70  # 70 / 3.5 = 20
    assert estimate(chinese) == 66  # 60 × 1.0 × 1.1
    assert estimate(english) == 22
    assert EstimateCounter(cjk_factor=1.5)(chinese) > estimate(chinese)
    assert estimate("") == 0
