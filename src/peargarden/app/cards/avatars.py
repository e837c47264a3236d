"""Card and persona pictures for the pages: the full image, or a small copy of it, and the one
placeholder for a card or persona without a picture.

A chat page drew every message's speaker with the card's full PNG (552 KB of a 700 KB page for the
bundled card); a message's head is 35 px.  ``thumb`` is a 96 px square cut from the top middle of the
picture (where a card's face usually is), ``tile`` the card grid's 2:3 tile at 256 × 384, both WebP,
made once per version of the file (its path, size and modification time) and kept in memory.

A picture of one flat colour is no picture: new cards and cards exported without one carry a plain
PNG (:func:`peargarden.workspace.exporter.placeholder_png`), and every page draws the same
placeholder instead, the name's first character on the accent colour (:func:`placeholder_svg`; the
chat page's and the persona list's initials look the same).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import io
from pathlib import Path
from typing import Literal

import msgspec
from PIL import Image, ImageOps, UnidentifiedImageError

from peargarden.errors import NotFound, PearError
from peargarden.workspace.home import Home
from peargarden.workspace.inputs import read_input

from ..library.groups import group as open_group
from ..library.groups import group_summary
from ..library.library import card as open_card
from ..library.personas import persona_avatar

Size = Literal["thumb", "tile"]
SIZES: dict[str, tuple[int, int]] = {"thumb": (96, 96), "tile": (256, 384)}
QUALITY = 80  # WebP: a 96 px face is 2–5 KB, a tile 10–25 KB
_MEDIA = {".png": "image/png", ".jpg": "image/jpeg", ".webp": "image/webp", ".gif": "image/gif"}
ACCENT = "#4a6b5d"


class Picture(msgspec.Struct, frozen=True):
    data: bytes
    media_type: str
    etag: str  # changes with the file and the size asked for (a page revalidates, a 304 is a few bytes)


def _media_of(data: bytes) -> str:
    """A CHARX or JSON card's icon is PNG, WebP, JPEG or GIF by its bytes."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "image/jpeg" if data.startswith(b"\xff\xd8\xff") else "image/gif" if data[:4] == b"GIF8" else "image/png"


def placeholder_svg(name: str) -> bytes:
    """The one picture of a card or persona without one: the first character of its name, white on the
    accent colour."""
    initial = html.escape(next(iter(name.strip()), "?"))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 96"><rect width="64" height="96" fill="{ACCENT}"/>'
        f'<text x="32" y="58" font-size="30" font-weight="600" text-anchor="middle" fill="#ffffff" '
        f'font-family="WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif">{initial}</text></svg>'
    ).encode()


def _placeholder(name: str) -> Picture:
    return Picture(placeholder_svg(name), "image/svg+xml", f'"placeholder-{name.encode().hex()[:32]}"')


def _image(data: bytes) -> Image.Image | None:
    try:
        with Image.open(io.BytesIO(data)) as opened:
            return ImageOps.exif_transpose(opened).convert("RGBA")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None


def _flat(image: Image.Image) -> bool:
    low, high = zip(*image.convert("RGB").getextrema(), strict=True)
    return low == high


# Keyed by the file's path and version (its size and modification time): a changed picture is a new
# key.  Only what is small is kept: whether a picture is flat, and the small copies.
@functools.lru_cache(maxsize=1024)
def _is_picture(path: str, version: tuple[int, int], icon: bytes | None) -> bool:
    image = _image(icon if icon is not None else read_input(Path(path)))
    return image is not None and not _flat(image)


@functools.lru_cache(maxsize=1024)
def _small(path: str, version: tuple[int, int], size: str, icon: bytes | None) -> bytes | None:
    image = _image(icon if icon is not None else read_input(Path(path)))
    if image is None or _flat(image):
        return None
    width, height = SIZES[size]
    if width == height:  # a face: the top middle of a portrait
        image = ImageOps.fit(image, (width, height), Image.Resampling.LANCZOS, centering=(0.5, 0.2))
    else:
        image.thumbnail((width, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="WEBP", quality=QUALITY, method=4)
    return out.getvalue()


def _picture(path: Path, size: Size | None, media_type: str, icon: bytes | None = None) -> Picture | None:
    """*path*'s picture (or the card's *icon*) at *size*, ``None`` when it is one flat colour or
    cannot be read."""
    stat = path.stat()
    version = (stat.st_size, stat.st_mtime_ns)
    etag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}-{size or "full"}"'
    if size:
        small = _small(str(path), version, size, icon)
        return Picture(small, "image/webp", etag) if small is not None else None
    if not _is_picture(str(path), version, icon):
        return None
    return Picture(icon if icon is not None else read_input(path), media_type, etag)


def card_picture(home: Home, name: str, size: Size | None = None) -> Picture:
    """The card's picture (its PNG, or the icon of a CHARX or JSON card) at *size*, or the placeholder."""
    folder = open_card(home, name)
    path = folder.card_file()
    shown = folder.folder
    try:
        card = folder.load_card()
        shown = card.name or folder.folder
    except PearError:
        card = None
    if path is not None:
        if path.suffix.lower() == ".png":
            found = _picture(path, size, "image/png")
        else:
            icon = card.icon() if card is not None else None
            found = _picture(path, size, _media_of(icon), icon) if icon else None
        if found is not None:
            return found
    return _placeholder(shown)


def persona_picture(home: Home, name: str, size: Size | None = None) -> Picture:
    """A persona's picture at *size*; ``NotFound`` when it has none (the page draws the initial)."""
    path = persona_avatar(home.personas_dir, name)
    found = _picture(path, size, _MEDIA[path.suffix]) if path is not None else None
    if found is None:
        raise NotFound(f"人设「{name}」没有头像（no picture）")
    return found


# Where each member's face goes in a group's picture (a 64 × 64 square), by how many there are (at most
# four; SillyTavern's group avatars are a collage of the first members too).
_MOSAIC = {
    1: [(0, 0, 64, 64)],
    2: [(0, 0, 32, 64), (32, 0, 32, 64)],
    3: [(0, 0, 32, 64), (32, 0, 32, 32), (32, 32, 32, 32)],
    4: [(0, 0, 32, 32), (32, 0, 32, 32), (0, 32, 32, 32), (32, 32, 32, 32)],
}


def _face(home: Home, card: str | None, name: str, box: tuple[int, int, int, int]) -> str:
    """One member's part of the group picture: its thumb as a data URI, or the placeholder's initial."""
    x, y, width, height = box
    picture = card_picture(home, card, "thumb") if card is not None else None
    if picture is not None and picture.media_type == "image/webp":
        uri = "data:image/webp;base64," + base64.b64encode(picture.data).decode()
        return (f'<image x="{x}" y="{y}" width="{width}" height="{height}" href="{uri}" '
                'preserveAspectRatio="xMidYMid slice"/>')  # fmt: skip
    initial = html.escape(next(iter(name.strip()), "?"))
    size = 30 if width == 64 else 16
    return (f'<rect x="{x}" y="{y}" width="{width}" height="{height}" fill="{ACCENT}"/>'
            f'<text x="{x + width / 2:g}" y="{y + height / 2 + size * 0.35:g}" font-size="{size}" font-weight="600" '
            f'text-anchor="middle" fill="#ffffff" font-family="WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif">'
            f"{initial}</text>")  # fmt: skip


def group_picture(home: Home, group: str) -> Picture:
    """A group's picture made of its members' (the first four, in speaking order): their faces side by
    side or in a square, each the member's thumb (the placeholder's initial for one without a picture),
    as one SVG with the faces inside it (an ``<img>`` loads nothing an SVG points at)."""
    summary = group_summary(open_group(home, group))
    members = summary["members"][:4]
    if not members:
        return _placeholder(str(summary["name"]))
    faces = [_face(home, m["card"], str(m["name"]), box) for m, box in zip(members, _MOSAIC[len(members)], strict=True)]
    lines = "".join(f'<path d="M{x},{y}h{w}v{h}h-{w}z" fill="none" stroke="#ffffff" stroke-width="1.5"/>'
                    for x, y, w, h in _MOSAIC[len(members)]) if len(members) > 1 else ""  # fmt: skip
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">{"".join(faces)}{lines}</svg>'.encode()
    return Picture(svg, "image/svg+xml", f'"group-{hashlib.sha256(svg).hexdigest()[:24]}"')

