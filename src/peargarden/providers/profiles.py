"""What differs between OpenAI-compatible servers: thinking parameters and reasoning pass-back.

A profile is chosen from the base URL (or named explicitly in a connection).  It decides:

* which body fields a thinking level becomes (``reasoning_effort``, DeepSeek's ``thinking``
  toggle, OpenRouter's ``reasoning`` object, a chat-template switch for vLLM / llama.cpp);
* whether an assistant message's earlier reasoning is sent back (DeepSeek's thinking mode answers
  400 without ``reasoning_content``; every other server gets it stripped);
* small body quirks (OpenAI wants ``max_completion_tokens``).

``off`` sends no reasoning option at all, except where a server thinks by default and has an
explicit switch (DeepSeek, chat templates) — then the switch is turned off.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import msgspec

from peargarden.errors import BadInput

from .base import ThinkingLevel

Body = dict[str, Any]
ThinkingMapper = Callable[[ThinkingLevel, str], Body]


def _clamp(level: ThinkingLevel, *, minimal: str = "low", xhigh: str = "high") -> str:
    """Most servers know only low/medium/high."""
    return {"minimal": minimal, "xhigh": xhigh}.get(level, level)


# OpenAI rejects reasoning_effort on non-reasoning models (gpt-4o, gpt-4.1 …).
_OPENAI_REASONING_MODEL = re.compile(r"^(o\d|gpt-5|gpt-oss)", re.IGNORECASE)
_OPENAI_XHIGH_MODEL = re.compile(r"gpt-5\.[2-9]", re.IGNORECASE)


def _openai_thinking(level: ThinkingLevel, model: str) -> Body:
    if level == "off" or not _OPENAI_REASONING_MODEL.search(model):
        return {}
    xhigh = "xhigh" if _OPENAI_XHIGH_MODEL.search(model) else "high"
    return {"reasoning_effort": _clamp(level, minimal="minimal", xhigh=xhigh)}


def _deepseek_thinking(level: ThinkingLevel, model: str) -> Body:
    if level == "off":
        # deepseek-reasoner always thinks; only the chat model has the switch.
        return {} if "reasoner" in model else {"thinking": {"type": "disabled"}}
    return {"thinking": {"type": "enabled"}}


def _openrouter_thinking(level: ThinkingLevel, model: str) -> Body:
    if level == "off":
        return {}
    return {"reasoning": {"effort": level}}


def _effort_thinking(level: ThinkingLevel, model: str) -> Body:
    if level == "off":
        return {}
    return {"reasoning_effort": _clamp(level)}


def _template_thinking(level: ThinkingLevel, model: str) -> Body:
    # Qwen3-style chat templates read enable_thinking; templates without it ignore the kwarg.
    body: Body = {"chat_template_kwargs": {"enable_thinking": level != "off"}}
    if level != "off":
        body["reasoning_effort"] = _clamp(level)
    return body


def _deepseek_passback(level: ThinkingLevel, model: str) -> bool:
    return level != "off" or "reasoner" in model


def _never(level: ThinkingLevel, model: str) -> bool:
    return False


class ProviderProfile(msgspec.Struct, frozen=True):
    name: str
    thinking: ThinkingMapper
    # Whether assistant messages carry ``reasoning_content`` back to the server for this request.
    send_reasoning_back: Callable[[ThinkingLevel, str], bool] = _never
    # OpenAI's newer models reject max_tokens in favour of max_completion_tokens.
    rename_max_tokens: bool = False
    # An API key is required (a local server gets a placeholder when none is configured).
    needs_key: bool = True

    def thinking_fields(self, level: ThinkingLevel, model: str) -> Body:
        return self.thinking(level, model)


PROFILES: dict[str, ProviderProfile] = {
    "openai": ProviderProfile("openai", _openai_thinking, rename_max_tokens=True),
    "deepseek": ProviderProfile("deepseek", _deepseek_thinking, send_reasoning_back=_deepseek_passback),
    "openrouter": ProviderProfile("openrouter", _openrouter_thinking),
    "ollama": ProviderProfile("ollama", _effort_thinking, needs_key=False),
    "vllm": ProviderProfile("vllm", _template_thinking, needs_key=False),
    "llamacpp": ProviderProfile("llamacpp", _template_thinking, needs_key=False),
    "generic": ProviderProfile("generic", _effort_thinking, needs_key=False),
}

_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def detect_profile(base_url: str, model: str = "", name: str | None = None) -> ProviderProfile:
    """The profile named explicitly, else the one the base URL points at, else ``generic``."""
    if name:
        try:
            return PROFILES[name.lower()]
        except KeyError:
            known = ", ".join(PROFILES)
            raise BadInput(f"unknown provider profile {name!r} (known: {known})") from None
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if host.endswith("openai.com"):
        return PROFILES["openai"]
    if "deepseek" in host:
        return PROFILES["deepseek"]
    if host.endswith("openrouter.ai"):
        return PROFILES["openrouter"]
    if "ollama" in host or parts.port == 11434:
        return PROFILES["ollama"]
    if "vllm" in host:
        return PROFILES["vllm"]
    if "llama" in host or (host in _LOCAL_HOSTS and parts.port == 8080):
        # 8080 is llama.cpp's llama-server default port.
        return PROFILES["llamacpp"]
    return PROFILES["generic"]
