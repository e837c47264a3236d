"""What a file of bytes is, by its first bytes (a server's content type, or a file's name, may lie)."""

from __future__ import annotations

IMAGE_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
AUDIO_TYPES = {"mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "flac": "audio/flac", "aac": "audio/aac"}


def image_kind(data: bytes) -> str | None:
    """``png``, ``jpeg``, ``gif`` or ``webp``; ``None`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def audio_kind(data: bytes) -> str | None:
    """``mp3``, ``wav``, ``ogg``, ``flac`` or ``aac``; ``None`` for anything else (an error page)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav"
    if data.startswith(b"ID3") or data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "mp3"
    if data.startswith(b"OggS"):
        return "ogg"
    if data.startswith(b"fLaC"):
        return "flac"
    if data[:2] in (b"\xff\xf1", b"\xff\xf9"):
        return "aac"
    return None
