"""Where the data folder is and what lives in it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import msgspec

ENV_HOME = "PEARGARDEN_HOME"

CARD_SETTINGS_FILE = "卡.json"
SUPPLEMENT_BOOK_FILE = "补充设定集.json"
AUTHORING_DIR = "创作"
# Beside a chat's session file: the record of its last beats (their requests, for the prompt
# inspector); a record, not the story, and left out of the vault's snapshots.
BEAT_LOG_FILE = "web-beats.json"

# Characters that may not appear in a folder or file name on some system SillyTavern users run, and
# lone surrogates (a card's JSON may hold "\ud800"; no file system can encode one).
_UNSAFE_NAME = re.compile(r'[\\/:*?"<>|\x00-\x1f\ud800-\udfff]')
# Bidirectional-text controls (marks, embeddings, overrides, isolates): invisible, and a right-to-left
# override turns what a listing shows around ("卡\u202egnp.exe" reads as "卡exe.png").  Removed.
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def default_home() -> Path:
    env = os.environ.get(ENV_HOME)
    if env:
        return Path(env).expanduser()
    return Path.home() / ".peargarden"


# A file name may hold 255 bytes; room is left for "-2", ".png", ".declare.json" and the like.
MAX_NAME_BYTES = 150


def sanitize_name(name: str) -> str:
    """Card/book name → folder or file stem: unsafe characters to ``_``, bidirectional-text controls
    removed, leading dots (a hidden folder no listing shows) and trailing spaces and dots cut, at most
    :data:`MAX_NAME_BYTES` of UTF-8.

    Returns an empty string when nothing usable is left; callers turn that into an error.
    """
    cleaned = _UNSAFE_NAME.sub("_", _BIDI_CONTROLS.sub("", name)).strip().lstrip(".").rstrip(". ").strip()
    if len(cleaned.encode("utf-8")) > MAX_NAME_BYTES:
        cleaned = cleaned.encode("utf-8")[:MAX_NAME_BYTES].decode("utf-8", errors="ignore").rstrip(". ").strip()
    if not cleaned or not any(ch.isalnum() for ch in cleaned):
        return ""
    return cleaned


class Home(msgspec.Struct, frozen=True):
    """The data folder. Constructing one touches nothing on disk."""

    root: Path

    @classmethod
    def resolve(cls, override: str | Path | None = None) -> Home:
        return cls(Path(override).expanduser() if override else default_home())

    @property
    def config_file(self) -> Path:
        return self.root / "config.toml"

    @property
    def system_file(self) -> Path:
        return self.root / "SYSTEM.md"

    @property
    def append_system_file(self) -> Path:
        return self.root / "APPEND_SYSTEM.md"

    @property
    def authoring_file(self) -> Path:
        return self.root / "AUTHORING.md"

    @property
    def cards_dir(self) -> Path:
        return self.root / "cards"

    @property
    def lorebooks_dir(self) -> Path:
        return self.root / "library" / "lorebooks"

    @property
    def presets_dir(self) -> Path:
        return self.root / "library" / "presets"

    @property
    def regex_dir(self) -> Path:
        """Global regex scripts (SillyTavern regex-script files, stored verbatim)."""
        return self.root / "library" / "regex"

    @property
    def personas_dir(self) -> Path:
        return self.root / "library" / "personas"

    @property
    def skills_dir(self) -> Path:
        return self.root / "library" / "skills"

    @property
    def quick_replies_dir(self) -> Path:
        """Quick Reply sets, one SillyTavern set file each (``<name>.json``)."""
        return self.root / "library" / "quick-replies"

    @property
    def quick_replies_file(self) -> Path:
        """Which Quick Reply sets are switched on for every chat."""
        return self.root / "library" / "quick-replies.json"

    @property
    def global_variables_file(self) -> Path:
        """SillyTavern's global variables (``/setglobalvar``, ``{{getglobalvar::}}``)."""
        return self.root / "library" / "variables.json"

    @property
    def vault_dir(self) -> Path:
        return self.root / "vault"

    def card_dir(self, folder: str) -> Path:
        return self.cards_dir / folder

    def exists(self) -> bool:
        return self.config_file.is_file()
