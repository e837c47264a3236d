"""What a card's event listeners changed in a beat's request, laid on it (``live_events``), pure.

SillyTavern's listeners of ``chat_completion_prompt_ready`` edit ``{chat}`` (the prompt's messages) in
place, and those of ``chat_completion_settings_ready`` the object SillyTavern then posts to its
server, whose fields become the request's body: the messages, the model, the sampler fields, the
stream flag.  A field left as it was sent changes nothing — a request no listener touched goes out
byte for byte as built.  What the page hands back crossed from the frames: checked (text messages
only, bounded), a value of the wrong kind is one warning and is not used.
"""

from __future__ import annotations

import math
from typing import Any

from peargarden.providers.base import ChatRequest

MAX_MESSAGES = 5000
MAX_TEXT = 4_000_000  # characters of all the messages' text together
_ROLES = ("system", "user", "assistant")
# Body fields a listener may change, beyond the messages: numbers, then the rest by kind.
_NUMBERS = ("temperature", "max_tokens", "presence_penalty", "frequency_penalty", "top_p", "top_k", "top_a",
            "min_p", "repetition_penalty", "seed", "n")  # fmt: skip
_KINDS = {"model": "文字", "stream": "true/false", "stop": "文字的数组", "logit_bias": "对象"}


def prompt_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The request's messages as a listener reads them (``{role, content}``, a name when they have one)."""
    out = []
    for message in request.messages:
        shown = {"role": message.get("role"), "content": message.get("content")}
        if isinstance(message.get("name"), str):
            shown["name"] = message["name"]
        out.append(shown)
    return out


def _messages(given: Any, request: ChatRequest, sent: list[dict[str, Any]]) -> list[dict[str, Any]] | str:
    """The new messages (the request's own where a listener left one as it was), or why not."""
    if not isinstance(given, list) or len(given) > MAX_MESSAGES:
        return f"提示词要是不超过 {MAX_MESSAGES} 条消息的数组"
    unchanged: dict[str, list[dict[str, Any]]] = {}
    for shown, original in zip(sent, request.messages, strict=True):
        unchanged.setdefault(repr(shown), []).append(original)
    out: list[dict[str, Any]] = []
    total = 0
    for message in given:
        kept = unchanged.get(repr(message))
        if kept:
            out.append(kept.pop(0))
            continue
        if not isinstance(message, dict) or message.get("role") not in _ROLES:
            return "提示词的每条消息都要有 role（system、user 或 assistant）"
        content = message.get("content")
        if not isinstance(content, str):
            return "提示词消息的 content 只能是文字"
        total += len(content)
        made = {"role": message["role"], "content": content}
        if isinstance(message.get("name"), str) and message["name"]:
            made["name"] = message["name"]
        out.append(made)
    if total > MAX_TEXT:
        return f"提示词太长（超过 {MAX_TEXT} 个字符）"
    return out


def _value_ok(key: str, value: Any) -> bool:
    if value is None:
        return True
    if key in _NUMBERS:
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if key == "model":
        return isinstance(value, str) and 0 < len(value) <= 200
    if key == "stream":
        return isinstance(value, bool)
    if key == "stop":
        return isinstance(value, list) and len(value) <= 16 and all(isinstance(v, str) and len(v) <= 500 for v in value)
    return isinstance(value, dict) and len(value) <= 1000  # logit_bias


def _field(request: ChatRequest, key: str, value: Any) -> None:
    if key == "model":
        request.model = value or request.model
    elif key == "stream":
        request.stream = value
    elif value is None:
        request.sampler.pop(key, None)
    else:
        request.sampler[key] = value


def apply_changes(
    request: ChatRequest, sent: list[dict[str, Any]], settings: dict[str, Any], answer: dict[str, Any]
) -> list[str]:
    """Lay on *request* what the listeners changed: *sent* the messages and *settings* the body the
    events carried, *answer* ``{"chat", "settings"}`` as the listeners left them (the body's messages
    are the prompt's, changed further by the settings' listeners).  The warnings of what was not used."""
    warnings: list[str] = []
    left = answer.get("settings") if isinstance(answer.get("settings"), dict) else {}
    assert isinstance(left, dict)
    given = left.get("messages", answer.get("chat"))
    if given is not None and given != sent:
        made = _messages(given, request, sent)
        if isinstance(made, str):
            warnings.append(f"卡的脚本改过的提示词没有用上：{made}")
        else:
            request.messages = made
    for key in (*_NUMBERS, *_KINDS):
        if key not in left or left[key] == settings.get(key):
            continue
        value = left[key]
        if not _value_ok(key, value):
            kind = _KINDS.get(key, "数")
            warnings.append(f"卡的脚本把请求的 {key} 改成了 {str(value)[:40]!r}，不是{kind}，没有用上")
            continue
        _field(request, key, value)
    return warnings


__all__ = ["apply_changes", "prompt_messages"]
