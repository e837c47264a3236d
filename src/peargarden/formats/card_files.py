"""Card containers: JSON, PNG (``chara``/``ccv3`` text chunks) and CHARX (zip)."""

from __future__ import annotations

import base64
import binascii
import copy
from typing import Literal

from peargarden.errors import FormatError

from . import _charx, _png
from ._common import (
    JsonObject,
    check_size,
    dumps_compact,
    dumps_pretty,
    loads_object,
    parse_json_bytes,
    refuse_other_image,
)
from .cards import Card, card_from_object, card_to_object

CARD_KEYWORDS = ("ccv3", "chara")  # preference order on read
CHARX_CARD_FILE = "card.json"
CHARX_ICON_PATH = "assets/icon/image/main.png"


def read_card(data: bytes, filename: str) -> Card:
    """A card from PNG, CHARX or JSON bytes (told apart by content, not by the file name)."""
    check_size(data, filename)
    if _png.is_png(data):
        return read_card_png(data, filename)
    if _charx.is_zip(data):
        return read_charx(data, filename)
    refuse_other_image(data, filename)
    return card_from_object(parse_json_bytes(data, filename, "角色卡 JSON "), filename)


def read_card_png(data: bytes, filename: str) -> Card:
    """The card in a PNG: ``ccv3`` preferred over ``chara``; tEXt, zTXt and iTXt are all read."""
    check_size(data, filename)
    found: dict[str, list[str]] = {}
    for chunk in _png.split_chunks(data, filename):
        keyword = _png.text_keyword(chunk)
        if keyword is not None and keyword.lower() in CARD_KEYWORDS:
            found.setdefault(keyword.lower(), []).append(_png.text_value(chunk, filename))
    payloads = [text for key in CARD_KEYWORDS for text in found.get(key, [])]
    if not payloads:
        raise FormatError("PNG 里没有角色卡数据（chara/ccv3 块）（no card data in PNG）", path=filename)
    first_error: FormatError | None = None
    for text in payloads:
        # A damaged ccv3 chunk next to an intact chara chunk still yields the card.
        try:
            return card_from_object(_decode_payload(text, filename), filename)
        except FormatError as exc:
            first_error = first_error or exc
    assert first_error is not None
    raise first_error


def _decode_payload(text: str, filename: str) -> JsonObject:
    stripped = text.strip()
    if stripped.startswith("{"):
        # Some tools store the JSON itself instead of base64.
        return loads_object(stripped, filename, "PNG 内角色卡 JSON ")
    try:
        raw = base64.b64decode(stripped, validate=True)
    except (binascii.Error, ValueError):
        raise FormatError("PNG 内角色卡数据不是合法的 base64（bad base64 in card chunk）", path=filename) from None
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError("PNG 内角色卡数据不是 UTF-8（card chunk is not UTF-8）", path=filename) from None
    return loads_object(decoded, filename, "PNG 内角色卡 JSON ")


def card_to_json(card: Card, spec: Literal["v2", "v3"] = "v3") -> bytes:
    """Pretty JSON (4-space indent, like SillyTavern's export), UTF-8."""
    return dumps_pretty(card_to_object(card, spec)).encode("utf-8")


def card_to_png(card: Card, image: bytes, spec: Literal["v2", "v3"] = "v3", *, image_name: str = "image.png") -> bytes:
    """*image* with the card embedded; every other chunk and all image bytes stay identical.

    Old card chunks (``chara``/``ccv3`` in tEXt, zTXt or iTXt) are dropped; then ``chara`` (the
    V2 hybrid) and ``ccv3`` (V3) are both inserted just before IEND, as SillyTavern always writes
    them.  *spec* names the version the caller exports; both chunks are written either way, so
    V2-only readers and V3 readers each find their own.
    """
    del spec  # both versions always go in (see above)
    check_size(image, image_name)
    chunks = _png.split_chunks(image, image_name)
    inserted = [
        _png.text_chunk("chara", _b64(card_to_object(card, "v2"))),
        _png.text_chunk("ccv3", _b64(card_to_object(card, "v3"))),
    ]
    out = [_png.PNG_SIGNATURE]
    for chunk in chunks:
        keyword = _png.text_keyword(chunk)
        if keyword is not None and keyword.lower() in CARD_KEYWORDS:
            continue
        if chunk.type == b"IEND":
            out.extend(inserted)
        out.append(chunk.raw)
    return b"".join(out)


def card_like(card: Card, original: bytes, filename: str) -> bytes:
    """*card* in the format of the card file *original*: a PNG keeps every image byte (only the card
    chunks change), a CHARX its assets, a JSON card its spec."""
    if original.startswith(b"\x89PNG\r\n\x1a\n"):
        return card_to_png(card, original, image_name=filename)
    if original.startswith(b"PK"):
        return card_to_charx(card, assets=card.assets)
    return card_to_json(card, "v2" if card.source_spec in ("v1", "v2") else "v3")


def _b64(obj: JsonObject) -> str:
    return base64.b64encode(dumps_compact(obj).encode("utf-8")).decode("ascii")


def read_charx(data: bytes, filename: str) -> Card:
    """A CHARX card; its other files land in ``card.assets`` (path → bytes)."""
    check_size(data, filename)
    files = _charx.read_archive(data, filename)
    if CHARX_CARD_FILE not in files:
        raise FormatError("CHARX 压缩包里没有 card.json（card.json missing）", path=filename)
    obj = parse_json_bytes(files.pop(CHARX_CARD_FILE), filename, "CHARX 内 card.json ")
    card = card_from_object(obj, filename)
    card.assets = files
    return card


def card_to_charx(card: Card, assets: dict[str, bytes] | None = None, *, icon: bytes | None = None) -> bytes:
    """A CHARX zip: ``card.json`` (V3) plus *assets* (default ``card.assets``).

    With *icon* (e.g. the PNG avatar), it is stored at ``assets/icon/image/main.png`` and the card's
    ``assets`` list points its main icon there.
    """
    files = dict(card.assets if assets is None else assets)
    out_card = card
    if icon is not None:
        out_card = card.copy()
        files[CHARX_ICON_PATH] = icon
        entry = {"type": "icon", "uri": "embeded://" + CHARX_ICON_PATH, "name": "main", "ext": "png"}
        listed = [
            a
            for a in out_card.data.get("assets") or []
            if not (isinstance(a, dict) and a.get("type") == "icon" and a.get("name") == "main")
        ]
        out_card.data["assets"] = [entry, *copy.deepcopy(listed)]
    files.pop(CHARX_CARD_FILE, None)
    body = dumps_pretty(card_to_object(out_card, "v3")).encode("utf-8")
    return _charx.write_archive({CHARX_CARD_FILE: body, **files})
