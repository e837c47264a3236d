"""A message translated: the requests each back end takes and its answer read back (pure).

Back ends, as SillyTavern's translate extension drives them:

- the side model: one system + user request, the translation as the whole answer;
- LibreTranslate: ``POST …/translate`` with ``{"q", "source": "auto", "target", "format": "text",
  "api_key"}``, answering ``{"translatedText", "detectedLanguage": {"language"}}``;
- DeepL: ``POST …/v2/translate`` as a form (``text``, ``target_lang``) with ``Authorization:
  DeepL-Auth-Key …``, answering ``{"translations": [{"detected_source_language", "text"}]}``;
- DeepLX (DeepL's shape on a self-hosted server): ``POST`` the URL with ``{"text", "source_lang":
  "auto", "target_lang"}``, answering ``{"data", "source_lang"}``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import msgspec

from .languages import deepl_code, from_backend_code, language_name, libre_code

BACKENDS = ("side", "libre", "deepl", "deeplx")


class Translation(msgspec.Struct, frozen=True):
    """What ``pear translate --json`` prints: the text and the language it came from (``""`` unknown)."""

    text: str
    source_lang: str


class BadAnswer(ValueError):
    """A back end answered 200 with something that holds no translation."""


def side_request(text: str, target: str) -> tuple[str, str]:
    """The side model's (system, user) request for *text* into language *target*."""
    system = (
        f"You are a translator. Translate the user's text into {language_name(target)}. "
        "Answer with the translation only: no notes, no quotes around it, no 'Translation:' label. "
        "Keep the line breaks, Markdown, HTML tags and {{macros}} as they are, and keep names consistent."
    )
    return system, text


_FENCE = re.compile(r"^```[\w-]*\n(.*)\n```$", re.S)
_LABEL = re.compile(r"^(?:译文|翻译|translation|translated text)\s*[:：]\s*", re.I)
_QUOTES = (('"', '"'), ("“", "”"), ("「", "」"))


def side_answer(answer: str, original: str) -> str:
    """The side model's answer as the translation: a code fence or a ``译文：`` label it added taken
    off, and quotes around the whole (when the original had none)."""
    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced and not original.strip().startswith("```"):
        text = fenced.group(1).strip()
    text = _LABEL.sub("", text, count=1).strip()
    for left, right in _QUOTES:
        wrapped = len(text) >= 2 and text.startswith(left) and text.endswith(right)
        if wrapped and not original.strip().startswith(left) and text.count(left) == 1:
            text = text[len(left) : -len(right)].strip()
    if not text:
        raise BadAnswer("副模型的回答是空的（empty translation）")
    return text


def endpoint_url(base_url: str, path: str) -> str:
    """*base_url* with *path* added unless it ends with it already (users paste either)."""
    base = base_url.strip().rstrip("/")
    return base if urlsplit(base).path.endswith(path) else f"{base}{path}"


def libre_body(text: str, target: str, api_key: str) -> dict[str, Any]:
    return {"q": text, "source": "auto", "target": libre_code(target), "format": "text", "api_key": api_key}


def libre_answer(answer: Any) -> Translation:
    if not isinstance(answer, dict) or not isinstance(answer.get("translatedText"), str):
        raise BadAnswer("LibreTranslate 的回答里没有 translatedText")
    detected = answer.get("detectedLanguage")
    source = from_backend_code(detected.get("language")) if isinstance(detected, dict) else ""
    return Translation(answer["translatedText"], source)


def deepl_form(text: str, target: str) -> dict[str, str]:
    return {"text": text, "target_lang": deepl_code(target)}


def deepl_answer(answer: Any) -> Translation:
    found = answer.get("translations") if isinstance(answer, dict) else None
    first = found[0] if isinstance(found, list) and found else None
    if not isinstance(first, dict) or not isinstance(first.get("text"), str):
        raise BadAnswer("DeepL 的回答里没有 translations[0].text")
    return Translation(first["text"], from_backend_code(first.get("detected_source_language")))


def deeplx_body(text: str, target: str) -> dict[str, Any]:
    return {"text": text, "source_lang": "auto", "target_lang": deepl_code(target)}


def deeplx_answer(answer: Any) -> Translation:
    if not isinstance(answer, dict) or not isinstance(answer.get("data"), str):
        raise BadAnswer("DeepLX 的回答里没有 data")
    return Translation(answer["data"], from_backend_code(answer.get("source_lang")))
