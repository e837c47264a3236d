"""The claim guard: a small model's 「我是…语言模型」 opening is held, dropped and generated again."""

from __future__ import annotations

from peargarden.providers._model_claims import ClaimGuard, claims_to_be_a_model


def _stream(guard: ClaimGuard, reply: str, step: int = 3) -> str | None:
    shown: list[str] = []
    for start in range(0, len(reply), step):
        out = guard.feed(reply[start : start + step])
        if out is None:
            return None
        shown.append(out)
    end = guard.finish()
    return None if end is None else "".join(shown) + end


def test_claims_are_the_models_self_introductions_not_the_word_model() -> None:
    assert claims_to_be_a_model("我是阿里云开发的超大规模语言模型，我叫通义千问。")
    assert claims_to_be_a_model("我是一个AI助手，可以帮你解答问题。")
    assert claims_to_be_a_model("I am an AI language model.")
    assert not claims_to_be_a_model("什么模型？客官说的话，我听不懂。")
    assert not claims_to_be_a_model("我是听雨轩的掌柜，姓青。")
    # Seen on the quality panels: English asked for in Chinese, and the assistant's refusal.
    assert claims_to_be_a_model("I'm a text-based AI designed to assist with answering questions.")
    assert claims_to_be_a_model("我只是一个AI，不能陪你喝酒。") and claims_to_be_a_model("作为一个人工智能，我没有家。")
    assert claims_to_be_a_model("I'm sorry, but I can't assist with that.")
    assert not claims_to_be_a_model("I am Wren, and I keep the shrine. I can assist the healer at dawn.")
    assert not claims_to_be_a_model("作为掌柜，我记得每一位客人。")


def test_an_opening_claim_stops_a_try_that_may_be_retried() -> None:
    assert _stream(ClaimGuard(can_retry=True), "我是阿里云开发的超大规模语言模型。有什么可以帮你？") is None


def test_the_first_sentence_is_held_until_judged_then_the_rest_streams() -> None:
    guard = ClaimGuard(can_retry=True)
    assert guard.feed("客官说笑") == ""
    assert guard.feed("了。我") == "客官说笑了。我"
    assert guard.feed("不过是个开客栈的。") == "不过是个开客栈的。"
    assert guard.finish() == ""


def test_the_last_try_cuts_the_claim_but_never_leaves_the_reply_empty() -> None:
    reply = "我是通义千问，一个语言模型。客官，今晚还有一间临河的房。"
    assert _stream(ClaimGuard(can_retry=False), reply) == "客官，今晚还有一间临河的房。"
    only = "我是阿里云开发的语言模型。"
    assert _stream(ClaimGuard(can_retry=False), only) == only


def test_a_short_reply_without_a_sentence_end_is_judged_when_it_ends() -> None:
    assert _stream(ClaimGuard(can_retry=True), "嗯") == "嗯"
    assert _stream(ClaimGuard(can_retry=True), "我是AI助手") is None
