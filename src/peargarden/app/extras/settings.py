"""The features' settings: tables of ``config.toml`` beside the rest (``[translate]``, ``[tts]`` with
``[tts.voices]``, ``[pictures]`` with ``[pictures.instructions]``, ``[expressions]``, ``[theme]``).

A table left out keeps every default, and every default is "off": nothing is sent anywhere until
the user names a back end.  A back end's key comes, in order, from the connection it names
(``connection = "openai"``: that ``[providers.openai]``'s address and key), the environment variable
``api_key_env`` names, or a key stored from the page (``keys/extra-<feature>.key``, mode 0600, the way
connections' keys are stored, left out of the vault); config.toml itself never gets one from us.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

from peargarden.errors import BadInput
from peargarden.extras.expressions import LABELS
from peargarden.extras.languages import LANGUAGES
from peargarden.extras.pictures import DEFAULT_INSTRUCTIONS
from peargarden.workspace import atomic
from peargarden.workspace.config import load_settings, parse_settings
from peargarden.workspace.home import Home
from peargarden.workspace.text_files import read_user_text

from ..settings.config_edit import config_document, remove_table, set_value
from ..settings.stored_keys import forget_key, has_stored_key, key_file, store_key, with_stored_key


class TranslateSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    backend: str = ""  # "" (off) | side | libre | deepl | deeplx
    base_url: str = ""
    api_key_env: str = ""
    language: str = "zh"  # the user's language: what replies are translated into
    auto: str = "none"  # none | replies | inputs | both (SillyTavern's auto mode)
    model_language: str = ""  # the language inputs are translated into for the model; "" = the card's


class SpeechSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    backend: str = ""  # "" (off) | browser | openai | gpt-sovits
    base_url: str = ""
    connection: str = ""
    api_key_env: str = ""
    model: str = "tts-1"
    voice: str = "alloy"  # the voice of a character without its own
    speed: float = 1.0
    auto_play: bool = False
    quotes_only: bool = False  # SillyTavern's "Narrate only the quotes"
    skip_asterisks: bool = False  # "Ignore *text, even "quotes", inside asterisks*"
    skip_code: bool = True  # "Skip codeblocks"
    narrate_user: bool = False  # "Narrate user messages"
    text_lang: str = "zh"  # GPT-SoVITS: the language of the text, and of the reference audio's words
    prompt_lang: str = "zh"
    voices: dict[str, str] = msgspec.field(default_factory=dict)  # [tts.voices]: character → voice


class PictureSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    backend: str = ""  # "" (off) | openai | sdwebui | comfyui
    base_url: str = ""
    connection: str = ""
    api_key_env: str = ""
    model: str = ""
    width: int = 512
    height: int = 768
    steps: int = 20
    cfg_scale: float = 7.0
    sampler: str = "Euler a"
    negative: str = ""
    seed: int = -1
    prefix: str = ""  # put before every prompt (SillyTavern's "common prompt prefix")
    workflow: str = ""  # ComfyUI: the workflow file (API format), relative to the data folder or absolute
    instructions: dict[str, str] = msgspec.field(default_factory=dict)  # [pictures.instructions]: kind → text


class ExpressionSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    classify: str = "auto"  # auto (the side model when one is an endpoint, else keywords) | side | keywords
    fallback: str = "neutral"  # the sprite shown when the label has none
    prompt: str = ""  # the side model's instruction ("" = ours; {{labels}} stands for the label list)
    layout: str = "side"  # side (beside the chat) | vn (full height, a visual-novel layout) | off


class ThemeSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str = ""  # an imported SillyTavern theme (library/themes/<name>.json); "" = Pear Garden's own
    mode: str = "light"  # light | dark | auto (the system's)


T = TypeVar("T", bound=msgspec.Struct)

TABLES: dict[str, type[msgspec.Struct]] = {
    "translate": TranslateSettings,
    "tts": SpeechSettings,
    "pictures": PictureSettings,
    "expressions": ExpressionSettings,
    "theme": ThemeSettings,
}
_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("translate", "backend"): ("", "side", "libre", "deepl", "deeplx"),
    ("translate", "auto"): ("none", "replies", "inputs", "both"),
    ("tts", "backend"): ("", "browser", "openai", "gpt-sovits"),
    ("pictures", "backend"): ("", "openai", "sdwebui", "comfyui"),
    ("expressions", "classify"): ("auto", "side", "keywords"),
    ("expressions", "layout"): ("side", "vn", "off"),
    ("theme", "mode"): ("light", "dark", "auto"),
}


def _checked(table: str, kind: type[T], raw: Any, where: object) -> T:
    try:
        found = msgspec.convert(raw if raw is not None else {}, kind)
    except msgspec.ValidationError as error:
        raise BadInput(f"[{table}] 设置不对：{error}", path=str(where)) from None
    for (name, key), allowed in _CHOICES.items():
        value = getattr(found, key) if name == table else None
        if value is not None and value not in allowed:
            shown = " | ".join(repr(a) for a in allowed)
            raise BadInput(f"[{table}] {key} 只能是 {shown}，实际是 {value!r}", path=str(where))
    return found


def feature_settings(home: Home, table: str, kind: type[T]) -> T:
    """The table *table* of config.toml as *kind* (its defaults where it says nothing)."""
    return _checked(table, kind, config_document(home.config_file).get(table), home.config_file)


def translate_settings(home: Home) -> TranslateSettings:
    return feature_settings(home, "translate", TranslateSettings)


def speech_settings(home: Home) -> SpeechSettings:
    return feature_settings(home, "tts", SpeechSettings)


def picture_settings(home: Home) -> PictureSettings:
    return feature_settings(home, "pictures", PictureSettings)


def expression_settings(home: Home) -> ExpressionSettings:
    return feature_settings(home, "expressions", ExpressionSettings)


def theme_settings(home: Home) -> ThemeSettings:
    return feature_settings(home, "theme", ThemeSettings)


def all_settings(home: Home) -> dict[str, Any]:
    """Every feature's table as the page shows it, plus which keys are there (never the keys)."""
    found: dict[str, Any] = {
        name: msgspec.to_builtins(feature_settings(home, name, kind)) for name, kind in TABLES.items()
    }
    for name in ("translate", "tts", "pictures"):
        found[name]["has_key"] = has_stored_key(home, key_name(name))
    found["languages"] = [{"code": code, "zh": zh, "en": en} for code, (zh, en) in LANGUAGES.items()]
    found["labels"] = list(LABELS)
    found["picture_instructions"] = dict(DEFAULT_INSTRUCTIONS)
    return found


def save_settings(home: Home, table: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Change keys of *table* (checked as a whole first: nothing is written when one is wrong); a
    sub-table given (``voices``, ``instructions``) replaces the one in the file, names left out gone."""
    kind = TABLES.get(table)
    if kind is None:
        raise BadInput(f"没有设置表 [{table}]（可用：{'、'.join(TABLES)}）")
    current = dict(config_document(home.config_file).get(table) or {})
    _checked(table, kind, {**current, **values}, home.config_file)
    try:
        text = read_user_text(home.config_file)
    except FileNotFoundError:
        text = ""
    for key, value in values.items():
        if isinstance(value, dict):
            text = remove_table(text, f"{table}.{key}")
            for name, item in value.items():
                text = set_value(text, f"{table}.{key}", str(name), str(item))
        else:
            text = set_value(text, table, key, value)
    parse_settings(text, where=home.config_file)  # the rest of the file still reads
    atomic.write_text(home.config_file, text)
    saved: dict[str, Any] = msgspec.to_builtins(feature_settings(home, table, kind))
    return saved


def key_name(feature: str) -> str:
    """The stored key's name (``keys/extra-<feature>.key``): never a connection's own."""
    return f"extra-{feature}"


def save_key(home: Home, feature: str, key: str) -> None:
    if feature not in ("translate", "tts", "pictures"):
        raise BadInput(f"{feature} 不需要密钥")
    if not key.isascii():  # an API key is ASCII; anything else would fail in the request's header
        raise BadInput("密钥只能是 ASCII 字符（是不是粘贴了别的文字？）")
    if key.strip():
        store_key(home, key_name(feature), key)
    else:
        forget_key(home, key_name(feature))


class Endpoint(msgspec.Struct, frozen=True):
    """Where a feature's requests go and the key they carry (``""`` when none)."""

    base_url: str
    api_key: str


def endpoint(home: Home, feature: str, base_url: str, api_key_env: str, connection: str = "") -> Endpoint:
    """The back end's address and key: a named connection's, else the table's own (the key from its
    environment variable, else the one stored from the page)."""
    if connection:
        settings = with_stored_key(home, load_settings(home.config_file))
        conn = settings.providers.get(connection)
        if conn is None:
            raise BadInput(f"[{feature}] connection = {connection!r}：config.toml 里没有 [providers.{connection}]")
        key = conn.api_key or (os.environ.get(conn.api_key_env, "") if conn.api_key_env else "")
        return Endpoint(base_url or conn.base_url, key)
    key = os.environ.get(api_key_env, "") if api_key_env else ""
    if not key:
        path = key_file(home, key_name(feature))
        try:
            key = path.read_text(encoding="utf-8").strip() if path.is_file() else ""
        except OSError:
            key = ""
    return Endpoint(base_url, key)


def off(feature: str) -> BadInput:
    """The one line a feature that is not configured answers with."""
    names = {"translate": "翻译", "tts": "语音", "pictures": "生图"}
    return BadInput(
        f"{names.get(feature, feature)}没有开启：在「扩展」页或 config.toml 的 [{feature}] 里选一个后端"
        "（off: no backend configured）"
    )
