"""A small model's reply streams clause by clause through its guards, and what a guard rejects after
it went out is taken back (issue 49, item 3).

Through the real worker process (``peargarden.providers.llama_worker``) and its pipe protocol; the
runtime is the fake of ``kit/fake_runtime`` (one character a token, the reply it is told to write).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kit.fake_llama import fake_model, misbehave
from peargarden.providers.base import ChatRequest, Done, StreamEvent, TextDelta, TextRetract, stream_text
from peargarden.providers.embedded import EmbeddedProvider
from peargarden.providers.worker_client import WorkerLimits

QUESTION = [{"role": "user", "content": "掌柜，今晚还有空房吗？"}]
LIMITS = WorkerLimits(start=60, silence=30)


def _beat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str, greeting: str = "") -> list[StreamEvent]:
    """One beat of a worker told to write *reply*, after the card's *greeting* and two turns (the
    echo guard reads the last two replies; the sentence guard the greeting too)."""
    misbehave(monkeypatch, f"reply={reply}")
    provider = EmbeddedProvider(fake_model(tmp_path), limits=LIMITS, default_max_tokens=200)
    before = [
        {"role": "assistant", "content": greeting},
        {"role": "user", "content": "我叫陆行舟。"},
        {"role": "assistant", "content": "陆公子，请坐。"},
        {"role": "user", "content": "这雨什么时候停？"},
        {"role": "assistant", "content": "怕是要到明早。"},
    ]
    messages = [*(before if greeting else []), *QUESTION]
    try:
        return list(provider.stream(ChatRequest(messages=messages)))
    finally:
        provider.close()


def _pieces(events: list[StreamEvent]) -> list[str]:
    return [event.text for event in events if isinstance(event, TextDelta)]


def test_a_reply_of_several_sentences_comes_out_clause_by_clause(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before issue 49 a sentence was held whole: a one-sentence reply came in one piece, at its end."""
    reply = "有的，客官，楼上还空着一间临河的房，推开窗就是柳树，夜里能听见船家的橹声。"
    events = _beat(tmp_path, monkeypatch, reply)
    pieces = _pieces(events)
    assert "".join(pieces) == reply and not any(isinstance(e, TextRetract) for e in events)
    assert len(pieces) >= 4  # one sentence, five clauses: shown as they were judged, not at the end
    assert pieces[0] == "有的，客官，"  # the echo guard's opening: eight units at least
    assert isinstance(events[-1], Done) and events[-1].stop_reason == "stop"


def test_a_later_sentence_that_claims_to_be_a_model_is_taken_back_and_the_reply_goes_on(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = "有的，楼上还空着一间。我是这里的掌柜，管着这间客栈，也是阿里云开发的模型。热水在灶上，客官先坐。"
    events = _beat(tmp_path, monkeypatch, reply)
    retracts = [event for event in events if isinstance(event, TextRetract)]
    # (The echo guard holds a clause that ends in a comma until the next one is judged: the first
    # clause of the sentence goes out with the second, and is taken back with the third.)
    assert retracts == [TextRetract("我是这里的掌柜，", "claim")]
    shown_first = events.index(next(e for e in events if isinstance(e, TextDelta) and "掌柜" in e.text))
    assert shown_first < events.index(retracts[0])  # it was shown, then taken back
    assert stream_text(events) == "有的，楼上还空着一间。热水在灶上，客官先坐。"


def test_a_sentence_said_before_is_taken_back_once_it_ends(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    greeting = "“客官说笑了，这雨下了三天，镇上的人都说是老天在哭。”"
    reply = "“有的，这雨啊，下了三天，镇上的人都说是老天在哭。”她笑了笑，把钥匙推过来。"
    events = _beat(tmp_path, monkeypatch, reply, greeting=greeting)
    assert [e.reason for e in events if isinstance(e, TextRetract)] == ["repeat"]
    assert stream_text(events) == "她笑了笑，把钥匙推过来。"


def test_a_try_that_opens_with_a_claim_is_taken_back_whole_before_the_next_try(
    fake_runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fake writes the same reply every try: two tries are dropped (each one's shown clause taken
    back), and the last cuts the claim."""
    reply = "我叫青梧，听雨轩的掌柜，是阿里云开发的语言模型。有的，楼上还空着一间。"
    events = _beat(tmp_path, monkeypatch, reply)
    retracts = [event for event in events if isinstance(event, TextRetract)]
    assert retracts == [TextRetract("我叫青梧，", "claim")] * 3
    assert stream_text(events) == "有的，楼上还空着一间。"
