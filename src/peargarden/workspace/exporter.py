"""``pear export``: a card or a library lorebook as SillyTavern files.

A card is re-encoded from its card file (unknown fields and ``extensions`` kept by
``peargarden.formats``).  A PNG export keeps the card's own image when it has one (the PNG it was
imported as, or the main icon of a CHARX); otherwise it uses a plain placeholder picture.
"""

from __future__ import annotations

import io
from typing import Literal

from PIL import Image, UnidentifiedImageError

from peargarden.errors import BadInput
from peargarden.formats import Card, card_to_charx, card_to_json, card_to_png

from .cards import CardFolder, open_card
from .home import Home
from .inputs import read_input
from .library import lorebook_path, read_library_lorebook

CardFormat = Literal["png", "json", "charx"]
CardSpec = Literal["v2", "v3"]
CARD_FORMATS: tuple[CardFormat, ...] = ("png", "json", "charx")
CARD_SPECS: tuple[CardSpec, ...] = ("v2", "v3")

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# SillyTavern's avatar size.
_PLACEHOLDER_SIZE = (400, 600)


def export_card(home: Home, name: str, fmt: str, spec: str | None = None) -> tuple[CardFolder, bytes]:
    """The card *name* encoded as *fmt* (``png``, ``json`` or ``charx``)."""
    if fmt not in CARD_FORMATS:
        raise BadInput(f"导出格式（format）只能是 png、json 或 charx，实际是 {fmt!r}", hint="--format")
    if spec is not None and spec not in CARD_SPECS:
        raise BadInput(f"卡的规格（spec）只能是 v2 或 v3，实际是 {spec!r}", hint="--spec")
    if fmt == "charx" and spec == "v2":
        raise BadInput("CHARX 只有 V3 一种（CHARX is always V3）：用 V3，或换一种格式", hint="去掉 --spec v2")
    folder = open_card(home, name)
    card = folder.load_card()
    chosen: CardSpec = default_spec(card)
    if spec == "v2" or spec == "v3":
        chosen = spec
    if fmt == "json":
        return folder, card_to_json(card, chosen)
    image = card_image(folder, card)
    if fmt == "png":
        return folder, card_to_png(card, image or placeholder_png(), chosen)
    return folder, card_to_charx(card, icon=image if image is not None and not card.icon() else None)


def default_spec(card: Card) -> CardSpec:
    """Export in the version the card came in; a V1 card becomes V2."""
    return "v3" if card.source_spec == "v3" else "v2"


def card_image(folder: CardFolder, card: Card) -> bytes | None:
    """The card's picture as PNG bytes, or ``None`` when it has none."""
    path = folder.card_file()
    if path is not None and path.suffix.lower() == ".png":
        data = read_input(path)
        if data.startswith(_PNG_SIGNATURE):
            return data
    icon = card.icon()
    if icon is None:
        return None
    if icon.startswith(_PNG_SIGNATURE):
        return icon
    return _to_png(icon)


def _to_png(image: bytes) -> bytes | None:
    """A CHARX icon in another format (WebP, JPEG) converted to PNG; ``None`` when unreadable."""
    try:
        with Image.open(io.BytesIO(image)) as opened:
            buffer = io.BytesIO()
            opened.convert("RGBA").save(buffer, format="PNG")
            return buffer.getvalue()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None


def placeholder_png() -> bytes:
    """A plain picture in the accent colour for cards that came without one (a PNG card needs one).
    The pages draw a picture of one flat colour as the one placeholder, the name's first character
    on this colour (app/cards/avatars.py)."""
    buffer = io.BytesIO()
    Image.new("RGB", _PLACEHOLDER_SIZE, (0x4A, 0x6B, 0x5D)).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def export_lorebook(home: Home, name: str) -> bytes:
    """A library lorebook's file, byte for byte (after checking it is a lorebook)."""
    read_library_lorebook(home, name)
    return read_input(lorebook_path(home, name))
