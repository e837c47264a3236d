"""The JSON body SillyTavern 1.12.6 sends to an OpenAI-compatible endpoint (second hop).

Key order follows ST's server (``messages, model, temperature, max_tokens, stream,
presence_penalty, frequency_penalty, top_p, top_k, stop, logit_bias, seed, n`` then extra body
parameters); keys whose value would be ``undefined`` in JavaScript are left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from peargarden.text.tokens import encoding_for_model, packaged_encoding


def _number(value: Any) -> Any:
    """JS ``Number(x)`` as JSON would print it (integral floats without ``.0``)."""
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def chat_completion_model(oai: Mapping[str, Any]) -> str:
    source = str(oai.get("chat_completion_source") or "openai")
    key = {
        "openai": "openai_model",
        "custom": "custom_model",
        "claude": "claude_model",
        "openrouter": "openrouter_model",
        "mistralai": "mistralai_model",
        "makersuite": "google_model",
        "ai21": "ai21_model",
        "windowai": "windowai_model",
        "cohere": "cohere_model",
        "perplexity": "perplexity_model",
        "groq": "groq_model",
        "zerooneai": "zerooneai_model",
    }.get(source, "openai_model")
    return str(oai.get(key) or "")


def _yaml_scalar(text: str) -> Any:
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "~"):
        return None
    return text.strip("'\"")


def parse_simple_yaml(text: str) -> Any:
    """Enough YAML for ST's custom include/exclude body fields: JSON, ``key: value`` lines, ``- item``."""
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if all(ln.strip().startswith("- ") or ln.strip() == "-" for ln in lines):
        return [_yaml_scalar(ln.strip()[1:]) for ln in lines]
    out: dict[str, Any] = {}
    for ln in lines:
        if ":" in ln:
            key, _, value = ln.partition(":")
            out[key.strip()] = _yaml_scalar(value)
    return out


def logit_bias(oai: Mapping[str, Any], model: str) -> dict[str, int | float]:
    """The selected logit-bias preset as ``{token_id: value}`` (text tokenized, or ``[ids]``)."""
    presets = oai.get("bias_presets")
    selected = oai.get("bias_preset_selected")
    if not isinstance(presets, Mapping) or not isinstance(selected, str):
        return {}
    entries = presets.get(selected)
    if not isinstance(entries, list) or not entries:
        return {}
    encoding = packaged_encoding(encoding_for_model(model) or "cl100k_base")
    out: dict[str, int | float] = {}
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        text = entry.get("text")
        value = _number(entry.get("value"))
        if not isinstance(text, str) or not text or not isinstance(value, int | float):
            continue
        ids: list[int] = []
        stripped = text.strip()
        if re.fullmatch(r"\[[\d,\s]*\]", stripped):
            ids = [int(x) for x in json.loads(stripped)]
        else:
            ids = encoding.encode(text, disallowed_special=())
        for token in ids:
            out[str(token)] = value
    return out


MAX_STOP_STRINGS = 4  # openai.js openai_max_stop_strings


def custom_stop_strings(
    power_user: Mapping[str, Any], substitute: Callable[[str], str], limit: int = MAX_STOP_STRINGS
) -> list[str]:
    """``getCustomStoppingStrings(limit)``: the user's "Custom Stopping Strings" (a JSON array in
    ``power_user.custom_stopping_strings``), non-empty strings only, macros substituted unless
    ``custom_stopping_strings_macro`` is off; anything unreadable gives none."""
    raw = power_user.get("custom_stopping_strings")
    if not isinstance(raw, str) or not raw:
        return []
    try:
        parsed = json.loads(raw)
    except ValueError:
        return []
    if not isinstance(parsed, list):
        return []
    strings = [item for item in parsed if isinstance(item, str) and item]
    if power_user.get("custom_stopping_strings_macro", True):
        strings = [substitute(item) for item in strings]
    return strings[:limit] if limit > 0 else strings


def request_body(
    oai: Mapping[str, Any],
    messages: Sequence[Mapping[str, str]],
    gen_type: str,
    *,
    stop: Sequence[str] = (),
    omit_empty_bias: bool = False,
) -> dict[str, Any]:
    """The body ST's server posts to ``<url>/chat/completions`` for the custom/OpenAI sources.

    ``omit_empty_bias``: SillyTavern 1.18 leaves ``logit_bias`` out when it is empty.
    """
    source = str(oai.get("chat_completion_source") or "openai")
    model = chat_completion_model(oai)
    stream = bool(oai.get("stream_openai")) and gen_type != "quiet"
    n = _number(oai.get("n"))
    multi_swipe = (
        isinstance(n, int | float)
        and n > 1
        and gen_type not in ("continue", "impersonate", "quiet")
        and source in ("openai", "custom")
    )
    body: dict[str, Any] = {"messages": [dict(m) for m in messages], "model": model}
    body["temperature"] = _number(oai.get("temp_openai"))
    body["max_tokens"] = oai.get("openai_max_tokens")
    body["stream"] = stream
    body["presence_penalty"] = _number(oai.get("pres_pen_openai"))
    body["frequency_penalty"] = _number(oai.get("freq_pen_openai"))
    body["top_p"] = _number(oai.get("top_p_openai"))
    if stop:
        body["stop"] = list(stop)
    bias = logit_bias(oai, model)
    if bias or not omit_empty_bias:
        body["logit_bias"] = bias
    seed = _number(oai.get("seed"))
    if isinstance(seed, int | float) and seed >= 0:
        body["seed"] = seed
    if multi_swipe:
        body["n"] = n
    if source == "custom":
        include = parse_simple_yaml(str(oai.get("custom_include_body") or ""))
        if isinstance(include, Mapping):
            for key, value in include.items():
                body[str(key)] = value
        exclude = parse_simple_yaml(str(oai.get("custom_exclude_body") or ""))
        keys = list(exclude) if isinstance(exclude, list | Mapping) else []
        for key in keys:
            body.pop(str(key), None)
    return {k: v for k, v in body.items() if v is not None}
