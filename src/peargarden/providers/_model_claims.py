"""A small model stepping out of its character to say what it is: 「我是阿里云开发的超大规模语言模型」.

Also its assistant's voice in the character's mouth: "I'm sorry, but I can't assist with that.",
「我无法回答这个问题……如果你有其他问题，欢迎随时问我！」, and the prompt read back as the answer
(「根据设定，…」, its lore note's heading 「这一轮用得上的设定」).

Asked who it is (even in character, 「你是什么模型？」 out of character), Qwen2.5-0.5B answers with its
training's self-introduction.  :func:`claims_to_be_a_model` spots one in a sentence;
:func:`cut_claims` takes the sentences that do out of a reply.  The sentence guard
(:mod:`._sentence_guard`) holds a streamed reply sentence by sentence: a reply that opens with a
claim is dropped unseen and generated again, a later claim is cut.  Pure: text in, text out.
"""

from __future__ import annotations

import re

from ._sentences import cut

__all__ = ["claims_to_be_a_model", "cut_claims"]

CLAIM = re.compile(
    r"(我是|我只是|我叫|本|作为)[^。！？\n]{0,24}(模型|AI|人工智能|助手|程序)"
    r"|阿里|通义|千问|Qwen|OpenAI|Alibaba|ChatGPT|\bGPT\b|聊天机器人|语言模型"
    # 「我的模型是一个人工智能」 (Qwen2.5-0.5B on the panel, seed 1)
    r"|我的(?:模型|型号)|我[^。！？\n]{0,8}(?:AI|人工智能)"
    # "I'm a text-based AI designed to assist…" (Qwen2.5-0.5B asked in Chinese to answer in English)
    r"|\bI(?:'m| am)\b[^.!?\n]{0,30}?\b(?:AI|artificial intelligence|(?<!role )model|chatbot|assistant)\b"
    r"|\bas an? (?:AI|artificial intelligence|language model|assistant)\b"
    # the assistant's refusal in a character's mouth: "I'm sorry, but I can't assist with that."
    r"|\bcan(?:'t|not) assist with"
    # … and its service voice: Qwen2.5-1.5B as 青梧, asked when the rain stops: 「抱歉，我无法回答这个
    # 问题。我的角色只是听雨轩的掌柜……如果你有其他问题，欢迎随时问我！」
    r"|我(?:无法|不能|没有办法)(?:回答|提供)(?:这个|该|此|相关|任何|这方面的)?(?:问题|信息)"
    r"|我的角色|如果(?:你|您)还?有(?:其他|任何|别的)(?:问题|疑问)|欢迎随时(?:问我|提问|咨询)"
    r"|(?:你|您)有什么需要帮助的"
    r"|\bif you have any (?:other |more |further )?questions\b|\bfeel free to ask\b"
    r"|\bhow (?:can|may) I (?:help|assist) you\b|\bmy role (?:is|as)\b"
    # its offer of more help: 「如果需要其他帮助，请随时告诉我」 (Qwen2.5-0.5B as 青梧, issue 49's panel)
    r"|如果(?:你|您)?还?(?:需要|想要)(?:其他|任何|更多|别的)?的?(?:帮助|协助|信息)|请随时(?:告诉|联系|问)我"
    r"|\bif you need (?:any )?(?:other |more |further )?(?:help|assistance)\b"
    # … and the prompt's own words in its mouth: 「我在这轮用得上的设定是：…」, 「根据设定，…」 — the
    # small-model prompt's lore note is headed 「这一轮用得上的设定」 (stage/compact.py)
    r"|用得上的设定|根据(?:你的|我的|这些|以上|上面的|世界)?设定"
    r"|\blore for this turn\b|\baccording to the (?:lore|profile|rules)\b",
    re.IGNORECASE,
)


def claims_to_be_a_model(text: str) -> bool:
    """Whether *text* says it is a model, an AI, an assistant or a program, names a model or its
    maker, or speaks in the assistant's voice (its refusal, its offer of help)."""
    return bool(CLAIM.search(text))


def cut_claims(text: str) -> str:
    """*text* without its sentences that claim to be a model (their quote marks kept); it may be
    left with no words at all: the caller decides what stands in."""
    return cut(text, claims_to_be_a_model)
