"""Language codes: what a user types (``zh``, ``zh-CN``, ``中文``, ``English``) to one code, and each
translation back end's spelling of it.

The codes are ISO 639-1 (``zh``, ``en``, ``ja`` …) plus ``zh-TW`` for traditional Chinese.  SillyTavern's
translate extension sends ``zh-CN``/``zh-TW``; LibreTranslate calls them ``zh``/``zt``, DeepL ``ZH``/
``ZH-HANT`` (and wants ``EN-US`` or ``EN-GB`` as a target, ``EN`` being deprecated).
"""

from __future__ import annotations

from peargarden.errors import BadInput

# code → (中文名, English name); the order is the order a page lists them in.
LANGUAGES: dict[str, tuple[str, str]] = {
    "zh": ("简体中文", "Chinese (Simplified)"),
    "zh-TW": ("繁体中文", "Chinese (Traditional)"),
    "en": ("英语", "English"),
    "ja": ("日语", "Japanese"),
    "ko": ("韩语", "Korean"),
    "ru": ("俄语", "Russian"),
    "fr": ("法语", "French"),
    "de": ("德语", "German"),
    "es": ("西班牙语", "Spanish"),
    "pt": ("葡萄牙语", "Portuguese"),
    "it": ("意大利语", "Italian"),
    "vi": ("越南语", "Vietnamese"),
    "th": ("泰语", "Thai"),
    "id": ("印尼语", "Indonesian"),
    "ar": ("阿拉伯语", "Arabic"),
}

_ALIASES: dict[str, str] = {
    "zh-cn": "zh", "zh_cn": "zh", "zh-hans": "zh", "cn": "zh", "chinese": "zh", "中文": "zh", "汉语": "zh",
    "简中": "zh", "简体": "zh", "zh-tw": "zh-TW", "zh_tw": "zh-TW", "zh-hant": "zh-TW", "zh-hk": "zh-TW",
    "zt": "zh-TW", "繁中": "zh-TW", "繁体": "zh-TW", "繁體中文": "zh-TW", "english": "en", "en-us": "en",
    "en-gb": "en", "英文": "en", "japanese": "ja", "日文": "ja", "日本語": "ja", "korean": "ko", "韩文": "ko",
    "한국어": "ko", "russian": "ru", "俄文": "ru",
}  # fmt: skip

# The names stage.language.text_language gives a text's script.
_SCRIPT_NAMES = {"中文": "zh", "日语": "ja", "韩语": "ko", "英语": "en", "俄语": "ru"}


def language_code(value: str, *, what: str = "") -> str:
    """*value* as one of :data:`LANGUAGES`' codes; ``BadInput`` (naming *what*, a setting) when it is none."""
    text = value.strip()
    if text in LANGUAGES:
        return text
    lowered = text.lower()
    for code, (zh, en) in LANGUAGES.items():
        if lowered in (code.lower(), en.lower()) or text == zh:
            return code
    if lowered in _ALIASES:
        return _ALIASES[lowered]
    if text in _ALIASES:
        return _ALIASES[text]
    known = "、".join(LANGUAGES)
    raise BadInput(f"{what + ' ' if what else ''}不认识的语言：{value!r}（可用：{known}）")


def language_name(code: str) -> str:
    """A code's name as a model reads it: ``简体中文 (Chinese (Simplified))``."""
    zh, en = LANGUAGES.get(code, (code, code))
    return f"{zh} ({en})"


def script_code(name: str) -> str:
    """``stage.language.text_language``'s answer (``中文`` …) as a code; ``""`` when unknown."""
    return _SCRIPT_NAMES.get(name, "")


def libre_code(code: str) -> str:
    """LibreTranslate's spelling (SillyTavern sends ``zh`` for zh-CN and ``zt`` for zh-TW)."""
    return "zt" if code == "zh-TW" else code


def deepl_code(code: str) -> str:
    """DeepL's target spelling: upper case, ``ZH-HANT`` for traditional Chinese, ``EN-US``/``PT-BR``
    for the targets DeepL no longer takes bare."""
    return {"zh-TW": "ZH-HANT", "en": "EN-US", "pt": "PT-BR"}.get(code, code.upper())


def from_backend_code(value: object) -> str:
    """A detected language as a back end reports it (``EN``, ``zh``, ``zt``, ``ZH-HANT``) as our code;
    ``""`` when there is none."""
    if not isinstance(value, str) or not value.strip():
        return ""
    text = value.strip()
    try:
        return language_code(text)
    except BadInput:
        base = text.split("-")[0].lower()
        return base if base in LANGUAGES else text.lower()
