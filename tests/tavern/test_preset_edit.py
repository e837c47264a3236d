"""Preset edits (prompt texts, order, samplers) and a connection's pinned samplers."""

from __future__ import annotations

import pytest

from peargarden.errors import BadInput, NotFound
from peargarden.tavern.preset_edit import CONNECTION_SAMPLERS, checked_samplers, set_order, set_prompt, set_samplers
from peargarden.workspace.config import parse_settings

PRESET = {"temperature": 1, "prompts": [{"identifier": "main", "content": "主", "x": 1}], "other": [1]}


def test_prompt_text_and_a_built_in_prompt_not_listed_yet() -> None:
    out = set_prompt(PRESET, "main", {"content": "新主提示"})
    assert out["prompts"][0] == {"identifier": "main", "content": "新主提示", "x": 1} and out["other"] == [1]
    out = set_prompt(out, "jailbreak", {"content": "历史后指令", "role": "user"})
    assert out["prompts"][1]["identifier"] == "jailbreak" and out["prompts"][1]["role"] == "user"
    with pytest.raises(NotFound):
        set_prompt(PRESET, "nope", {"content": "x"})
    with pytest.raises(BadInput):
        set_prompt(PRESET, "main", {"injection_depth": 3})
    assert PRESET["prompts"][0]["content"] == "主"  # type: ignore[index]


def test_order_goes_into_the_global_list() -> None:
    out = set_order(PRESET, [{"identifier": "chatHistory", "enabled": True}, {"identifier": "main", "enabled": False}])
    assert out["prompt_order"] == [{"character_id": 100001, "order": [
        {"identifier": "chatHistory", "enabled": True}, {"identifier": "main", "enabled": False}]}]  # fmt: skip
    with pytest.raises(BadInput):
        set_order(PRESET, [{"identifier": "main"}, {"identifier": "main"}])
    with pytest.raises(BadInput):
        set_order(PRESET, [{"identifier": "不存在"}])


def test_samplers_are_checked_and_written_as_js_numbers() -> None:
    out = set_samplers(PRESET, {"temperature": 0.5, "openai_max_tokens": 300.0, "top_p": None})
    assert out["temperature"] == 0.5 and out["openai_max_tokens"] == 300 and isinstance(out["openai_max_tokens"], int)
    for bad in ({"temperature": 3}, {"top_k": 1.5}, {"temp": 1}, {"top_p": "1"}, {"seed": True}):
        with pytest.raises(BadInput):
            checked_samplers(bad)
    assert checked_samplers({"max_tokens": 77}, CONNECTION_SAMPLERS) == {"max_tokens": 77}


def test_a_connection_reads_its_sampler_table() -> None:
    text = '[providers.ds]\nbase_url = "http://x"\n\n[providers.ds.sampler]\ntemperature = 0.6\nmax_tokens = 900\n'
    assert dict(parse_settings(text).providers["ds"].sampler) == {"temperature": 0.6, "max_tokens": 900}
    with pytest.raises(BadInput, match="top_q"):
        parse_settings('[providers.ds]\nbase_url = "http://x"\n[providers.ds.sampler]\ntop_q = 1\n')
    with pytest.raises(BadInput, match="数字"):
        parse_settings('[providers.ds]\nbase_url = "http://x"\n[providers.ds.sampler]\ntemperature = "hot"\n')
