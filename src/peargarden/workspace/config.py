"""Global settings (``config.toml``) merged with one card's settings (``卡.json``).

The code's own defaults live here, in :class:`Settings`.  ``config.toml`` may leave out any key;
what it leaves out keeps the code default.  A card's ``卡.json`` then overrides single fields (the
card value wins per field; an absent field inherits).  ``卡.json`` keys may be written in
Liyuan's camelCase (``userName``) or in our snake_case (``user_name``).

Two deliberate differences between the template and the code: the code's ``creation_mode`` is
``"silent"`` (no write gate), while the seeded ``config.toml`` says ``"ask"``; and the code's
``st_version`` (which SillyTavern release tavern mode matches) is ``"1.12"``, so a data folder made
before the setting existed keeps the requests it had, while a new folder's ``config.toml`` says
``"1.18"``, the release users run now.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput
from peargarden.providers.base import TIMEOUT_KEYS
from peargarden.sandbox.defaults import DEFAULT_BLACKLIST, DEFAULT_NO_ASK
from peargarden.workspace.text_files import decode_user_text

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
CREATION_MODES = ("silent", "ask")
CHAT_MODES = ("stage", "tavern", "work")
ST_VERSIONS = ("1.12", "1.18")  # SillyTavern releases tavern mode can match (peargarden.tavern.version)


def check_st_version(value: str) -> str:
    """``--st-version``: one of the SillyTavern releases matched (1.12 or 1.18)."""
    if value not in ST_VERSIONS:
        raise BadInput(f"SillyTavern 版本（st_version）只能是 {' 或 '.join(ST_VERSIONS)}，实际是 {value!r}",
                       hint="--st-version")  # fmt: skip
    return value


#: The name of the built-in embedded model connection (needs no ``[providers.*]`` table).
LOCAL_PROVIDER = "local"

# The sandbox's own defaults (liyuan.md §6.8); config.toml [sandbox] replaces them.
DEFAULT_BASH_BLACKLIST: tuple[str, ...] = DEFAULT_BLACKLIST
DEFAULT_NO_ASK_PREFIXES: tuple[str, ...] = DEFAULT_NO_ASK


class ModelSettings(msgspec.Struct, frozen=True):
    """Which connection and model a job uses, and how hard it thinks."""

    provider: str = LOCAL_PROVIDER
    model: str = ""
    thinking: str = "medium"
    # For the local provider: a GGUF file (or an embedded model's name, e.g. "qwen-1.5b") to run
    # instead of the default embedded model; "" = the default.
    local_path: str = ""


class ProviderSettings(msgspec.Struct, frozen=True):
    """One named OpenAI-compatible connection (``[providers.<name>]``)."""

    name: str
    base_url: str = ""
    api_key_env: str = ""
    api_key: str = ""
    # Which server family (openai, deepseek, openrouter, ollama, vllm, llamacpp, generic); empty =
    # guessed from the base URL by the providers package.
    profile: str = ""
    # ``[providers.<name>.sampler]``: body fields every request to this connection carries
    # (temperature, top_p, max_tokens, penalties…); they win over a preset's.
    sampler: Mapping[str, float] = msgspec.field(default_factory=dict)
    # ``connect_timeout`` / ``first_byte_timeout`` / ``idle_timeout`` / ``total_timeout`` in seconds,
    # by limit name (``connect`` …); the ones not given keep the providers' defaults.
    timeouts: dict[str, float] = msgspec.field(default_factory=dict)
    # ``stream = false``: ask for the whole reply at once (SillyTavern's streaming switch; for
    # endpoints and proxies that stream badly).
    stream: bool = True


class SandboxSettings(msgspec.Struct, frozen=True):
    blacklist: tuple[str, ...] = DEFAULT_BASH_BLACKLIST
    no_ask_prefixes: tuple[str, ...] = DEFAULT_NO_ASK_PREFIXES


class Settings(msgspec.Struct, frozen=True):
    """Everything configurable, with the code's defaults.

    ``model.provider`` empty means the embedded local model; ``side_model`` fields left empty fall
    back to the main model's (see :meth:`side`).
    """

    user_name: str = "旅人"
    user_persona: str = ""
    language: str = ""  # "" = follow the card (its text's script)
    creation_mode: str = "silent"
    scan_depth: int = 4
    max_lore_injections: int = 3
    greeting: bool = True
    compact_every_n_turns: int = 30
    mode: str = "stage"
    preset: str = ""
    st_version: str = "1.12"
    lorebooks: tuple[str, ...] = ()
    model: ModelSettings = msgspec.field(default_factory=ModelSettings)
    side_model: ModelSettings = msgspec.field(default_factory=lambda: ModelSettings(provider="", thinking="low"))
    providers: Mapping[str, ProviderSettings] = msgspec.field(default_factory=dict)
    sandbox: SandboxSettings = msgspec.field(default_factory=SandboxSettings)

    def main(self) -> ModelSettings:
        """The main model with an empty provider resolved to the embedded one."""
        return ModelSettings(
            self.model.provider or LOCAL_PROVIDER, self.model.model, self.model.thinking, self.model.local_path
        )

    def side(self) -> ModelSettings:
        """The side model (declaration, scene notes, compaction): empty fields inherit the main model."""
        main = self.main()
        if not self.side_model.provider:
            return ModelSettings(
                main.provider, self.side_model.model or main.model, self.side_model.thinking or main.thinking
            )
        # The main model's own connection with the model left blank means the main model, not none.
        same = self.side_model.provider == main.provider
        model = self.side_model.model or (main.model if same else "")
        return ModelSettings(self.side_model.provider, model, self.side_model.thinking or main.thinking)

    def provider_settings(self, name: str) -> ProviderSettings | None:
        """The named connection; ``None`` for the embedded model."""
        if name == LOCAL_PROVIDER:
            return None
        found = self.providers.get(name)
        if found is None:
            raise BadInput(f"config.toml 里没有连接 [providers.{name}]（unknown provider）")
        return found


# Range clamps (the same as Liyuan's settings endpoint).
_RANGES = {"scan_depth": (1, 50), "max_lore_injections": (0, 20), "compact_every_n_turns": (0, 500)}

# 卡.json key → Settings field.  Both spellings are read; camelCase is what Liyuan writes.
CARD_KEYS: dict[str, str] = {
    "userName": "user_name",
    "user_name": "user_name",
    "userPersona": "user_persona",
    "user_persona": "user_persona",
    "language": "language",
    "creationMode": "creation_mode",
    "creation_mode": "creation_mode",
    "scanDepth": "scan_depth",
    "scan_depth": "scan_depth",
    "maxLoreInjections": "max_lore_injections",
    "max_lore_injections": "max_lore_injections",
    "greeting": "greeting",
    "mode": "mode",
    "preset": "preset",
    "lorebooks": "lorebooks",
    "stVersion": "st_version",
    "st_version": "st_version",
}

_SIMPLE_FIELDS = {
    "user_name": str,
    "user_persona": str,
    "language": str,
    "creation_mode": str,
    "scan_depth": int,
    "max_lore_injections": int,
    "greeting": bool,
    "compact_every_n_turns": int,
    "mode": str,
    "preset": str,
    "st_version": str,
}


def load_settings(config_file: Path) -> Settings:
    """Read ``config.toml``; a missing file gives the code defaults."""
    try:
        raw = config_file.read_bytes()
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise BadInput(f"无法读取设置文件：{exc.strerror}", path=config_file) from None
    return parse_settings(raw, where=config_file)


def parse_settings(raw: bytes | str, *, where: str | Path = "config.toml") -> Settings:
    """Settings from the text of a ``config.toml``."""
    text = decode_user_text(raw, where, "设置文件") if isinstance(raw, bytes) else raw
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"TOML 格式错误：{exc}", path=where) from None
    return settings_from_mapping(doc, where=where)


def settings_from_mapping(doc: Mapping[str, Any], *, where: str | Path = "config.toml") -> Settings:
    base = Settings()
    changes: dict[str, Any] = {}
    for name, kind in _SIMPLE_FIELDS.items():
        if name in doc:
            changes[name] = _checked(name, doc[name], kind, where)
    if "lorebooks" in doc:
        changes["lorebooks"] = _string_list("lorebooks", doc["lorebooks"], where)
    if "model" in doc:
        changes["model"] = _model(doc["model"], "model", base.model, where)
    if "side_model" in doc:
        changes["side_model"] = _model(doc["side_model"], "side_model", base.side_model, where)
    if "providers" in doc:
        changes["providers"] = _providers(doc["providers"], where)
    if "sandbox" in doc:
        changes["sandbox"] = _sandbox(doc["sandbox"], where)
    return _validated(msgspec.structs.replace(base, **changes), where)


def merge_card_settings(settings: Settings, card: Mapping[str, Any], *, where: str | Path = "卡.json") -> Settings:
    """Apply a card's ``卡.json`` on top of the global settings: the card value wins per field."""
    changes: dict[str, Any] = {}
    for key, value in card.items():
        name = CARD_KEYS.get(key)
        if name is None or value is None:
            continue
        if name == "lorebooks":
            changes[name] = _string_list(key, value, where)
        else:
            changes[name] = _checked(key, value, _SIMPLE_FIELDS[name], where)
    return _validated(msgspec.structs.replace(settings, **changes), where)


def _checked(key: str, value: Any, kind: type, where: str | Path) -> Any:
    # bool is an int in Python; a scan depth of `true` is a mistake, not 1.
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadInput(f"{key} 应为整数，实际是 {value!r}", path=where)
    if kind is not int and not isinstance(value, kind):
        expected = {str: "字符串", bool: "true 或 false"}[kind]
        raise BadInput(f"{key} 应为{expected}，实际是 {value!r}", path=where)
    return value


def _string_list(key: str, value: Any, where: str | Path) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]  # Liyuan's legacy single-book form
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise BadInput(f"{key} 应为字符串列表", path=where)
    return tuple(value)


def _table(key: str, value: Any, where: str | Path) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadInput(f"[{key}] 应为一个表（table）", path=where)
    return value


def _model(value: Any, key: str, base: ModelSettings, where: str | Path) -> ModelSettings:
    table = _table(key, value, where)
    fields = {
        name: _checked(f"{key}.{name}", table[name], str, where)
        for name in ("provider", "model", "thinking", "local_path")
        if name in table
    }
    model = msgspec.structs.replace(base, **fields)
    if model.thinking and model.thinking not in THINKING_LEVELS:
        raise BadInput(f"{key}.thinking 只能是 {' | '.join(THINKING_LEVELS)}，实际是 {model.thinking!r}", path=where)
    return model


def _providers(value: Any, where: str | Path) -> dict[str, ProviderSettings]:
    result: dict[str, ProviderSettings] = {}
    for name, entry in _table("providers", value, where).items():
        table = _table(f"providers.{name}", entry, where)
        fields = {
            item: _checked(f"providers.{name}.{item}", table[item], str, where)
            for item in ("base_url", "api_key_env", "api_key", "profile")
            if item in table
        }
        sampler = _connection_sampler(f"providers.{name}.sampler", table.get("sampler", {}), where)
        timeouts: dict[str, float] = {}
        for limit in TIMEOUT_KEYS:
            key = f"{limit}_timeout"
            if key in table:
                timeouts[limit] = timeout_seconds(f"providers.{name}.{key}", table[key], where)
        stream = _checked(f"providers.{name}.stream", table["stream"], bool, where) if "stream" in table else True
        result[name] = ProviderSettings(name=name, **fields, sampler=sampler, timeouts=timeouts, stream=stream)
    return result


# Body fields a connection may pin (the OpenAI names; servers that do not know one ignore it).
CONNECTION_SAMPLERS = ("temperature", "top_p", "top_k", "min_p", "frequency_penalty", "presence_penalty",
                       "repetition_penalty", "max_tokens", "seed")  # fmt: skip


def _connection_sampler(key: str, value: Any, where: str | Path) -> dict[str, float]:
    table = _table(key, value, where)
    out: dict[str, float] = {}
    for name, number in table.items():
        if name not in CONNECTION_SAMPLERS:
            raise BadInput(f"[{key}] 不认识 {name}（可用：{', '.join(CONNECTION_SAMPLERS)}）", path=where)
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise BadInput(f"{key}.{name} 应为数字，实际是 {number!r}", path=where)
        out[name] = number
    return out


def timeout_seconds(key: str, value: Any, where: str | Path | None = None) -> float:
    """A timeout limit: a positive number of seconds."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e7:
        raise BadInput(f"{key} 应为正数（秒），实际是 {value!r}", path=where)
    return float(value)


def _sandbox(value: Any, where: str | Path) -> SandboxSettings:
    table = _table("sandbox", value, where)
    fields: dict[str, tuple[str, ...]] = {}
    for item in ("blacklist", "no_ask_prefixes"):
        if item in table:
            fields[item] = _string_list(f"sandbox.{item}", table[item], where)
    return SandboxSettings(**fields)


def _validated(settings: Settings, where: str | Path) -> Settings:
    if settings.creation_mode not in CREATION_MODES:
        raise BadInput(f"creation_mode 只能是 silent 或 ask，实际是 {settings.creation_mode!r}", path=where)
    if settings.mode not in CHAT_MODES:
        raise BadInput(f"mode 只能是 stage、tavern 或 work，实际是 {settings.mode!r}", path=where)
    if settings.st_version not in ST_VERSIONS:
        raise BadInput(f"st_version 只能是 1.12 或 1.18，实际是 {settings.st_version!r}", path=where)
    clamped = {name: min(max(getattr(settings, name), low), high) for name, (low, high) in _RANGES.items()}
    return msgspec.structs.replace(settings, **clamped)
