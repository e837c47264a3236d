"""Text files of the data folder that people edit by hand: ``config.toml``, a card's ``卡.json``, the
prompt files (``SYSTEM.md``, ``APPEND_SYSTEM.md``, ``AGENTS.md``, ``AUTHORING.md``), personas.

Windows editors save them with a byte-order mark, as UTF-16 ("Unicode") or, on a Chinese Windows, as
GBK ("ANSI"), and with CRLF line ends.  ``Path.read_text`` keeps the mark (TOML and JSON then fail on
line 1, and a prompt starts with an invisible character) and raises ``UnicodeDecodeError`` on the
rest; here they are read by the import rules instead (:func:`peargarden.formats.decode_utf8`).
"""

from __future__ import annotations

from pathlib import Path

from peargarden.formats import decode_utf8

__all__ = ["decode_user_text", "read_user_text"]


def decode_user_text(raw: bytes, path: str | Path, what: str = "文件") -> str:
    """*raw* as text: UTF-8 with its mark dropped, UTF-16 with its mark, lines ending in ``\\n`` (as
    text mode reads them); any other encoding a ``FormatError`` naming *path* (and GBK when it
    looks like it)."""
    text = decode_utf8(raw, str(path), what)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_user_text(path: Path, what: str = "文件") -> str:
    """The text of *path* (see :func:`decode_user_text`); ``OSError`` as ``Path.read_text`` raises it."""
    return decode_user_text(path.read_bytes(), path, what)
