"""Character cards V1, V2 and V3 in one normalised model.

A ``Card`` holds the V3-shaped ``data`` object (a superset of V2's) and every top-level key the
source had (SillyTavern's "hybrid" mirror of the V1 fields, private keys, unknown keys).  Nothing
unknown is dropped: unknown ``data`` fields and ``extensions`` are carried through every
conversion, exactly as SillyTavern keeps them.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

import msgspec

from peargarden.errors import FormatError

from ._common import JsonObject

Spec = Literal["v1", "v2", "v3"]

SPEC_V2 = "chara_card_v2"
SPEC_V3 = "chara_card_v3"

V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")

# The V2 data fields every SillyTavern validator requires, with the value used when one is missing.
_V2_STRING_FIELDS = (
    *V1_FIELDS,
    "creator_notes",
    "system_prompt",
    "post_history_instructions",
    "creator",
    "character_version",
)
_V2_LIST_FIELDS = ("alternate_greetings", "tags")

# Pygmalion / "gradio" JSON exports use other names for the V1 fields.
_GRADIO_NAMES = {
    "char_name": "name",
    "char_persona": "description",
    "char_greeting": "first_mes",
    "example_dialogue": "mes_example",
    "world_scenario": "scenario",
}

# SillyTavern's V1 editor placeholder; it is not a creator note.
_CREATOR_NOTES_PLACEHOLDER = "Creator's notes go here."


class Card(msgspec.Struct):
    """A character card: ``data`` (V3 shape) plus the source's other top-level keys.

    ``top`` keeps the source object's top-level keys in their order (its ``data`` value is
    ignored; ``data`` is the truth).  ``assets`` holds the extra files of a CHARX archive by their
    path inside the zip.  ``source_spec`` tells which version the card was read from.
    """

    data: JsonObject
    top: JsonObject = msgspec.field(default_factory=dict)
    source_spec: Spec = "v3"
    assets: dict[str, bytes] = msgspec.field(default_factory=dict)

    @classmethod
    def new(cls, name: str, **fields: Any) -> Card:
        """A fresh V3 card with every required field present (``fields`` override the defaults)."""
        data: JsonObject = {"name": name}
        data.update(fields)
        return cls(data=_fill_required(data), source_spec="v3")

    @property
    def name(self) -> str:
        return str(self.data.get("name", ""))

    @property
    def extensions(self) -> JsonObject:
        ext = self.data.setdefault("extensions", {})
        if not isinstance(ext, dict):
            ext = self.data["extensions"] = {}
        return ext

    @property
    def character_book(self) -> JsonObject | None:
        book = self.data.get("character_book")
        return book if isinstance(book, dict) else None

    @character_book.setter
    def character_book(self, book: JsonObject | None) -> None:
        if book is None:
            self.data.pop("character_book", None)
        else:
            self.data["character_book"] = book

    def icon(self) -> bytes | None:
        """The main icon's bytes when it is an embedded CHARX asset, else None."""
        icons = [a for a in self.data.get("assets") or [] if isinstance(a, dict) and a.get("type") == "icon"]
        icons.sort(key=lambda a: a.get("name") != "main")
        for asset in icons:
            uri = str(asset.get("uri", ""))
            if uri.startswith("embeded://") and uri[len("embeded://") :] in self.assets:
                return self.assets[uri[len("embeded://") :]]
        return None

    def copy(self) -> Card:
        return Card(copy.deepcopy(self.data), copy.deepcopy(self.top), self.source_spec, dict(self.assets))


def card_from_object(obj: JsonObject, filename: str) -> Card:
    """Normalise a parsed card JSON object (V1, V2, V3, ST hybrid or gradio) into a ``Card``."""
    spec = obj.get("spec")
    if spec in (SPEC_V2, SPEC_V3):
        data = obj.get("data")
        if not isinstance(data, dict):
            raise FormatError("角色卡的 data 字段缺失或不是对象（card 'data' missing）", path=filename)
        data = copy.deepcopy(data)
        if not isinstance(data.get("name"), str) and isinstance(obj.get("name"), str):
            data["name"] = obj["name"]
        _check_name(data, filename)
        source: Spec = "v3" if spec == SPEC_V3 else "v2"
        return Card(data=_fill_required(data), top=copy.deepcopy(obj), source_spec=source)
    if spec is not None:
        raise FormatError(f"不认识的角色卡规格 spec={spec!r}（unknown card spec）", path=filename)
    if is_v1_object(obj):
        return _from_v1(obj, filename)
    raise FormatError("这个 JSON 不是角色卡（JSON is not a character card）", path=filename)


def is_card_object(obj: JsonObject) -> bool:
    """True when *obj* looks like a card of any version."""
    return (obj.get("spec") in (SPEC_V2, SPEC_V3) and isinstance(obj.get("data"), dict)) or is_v1_object(obj)


def is_v1_object(obj: JsonObject) -> bool:
    if "spec" in obj or "entries" in obj:
        return False
    if isinstance(obj.get("char_name"), str):
        return True
    return isinstance(obj.get("name"), str) and any(
        isinstance(obj.get(k), str) for k in ("description", "personality", "scenario", "first_mes", "mes_example")
    )


def _from_v1(obj: JsonObject, filename: str) -> Card:
    flat = {_GRADIO_NAMES.get(k, k): v for k, v in obj.items()}
    data: JsonObject = {k: _as_text(flat.get(k)) for k in V1_FIELDS}
    _check_name(data, filename)
    notes = flat.get("creatorcomment", flat.get("creator_notes", ""))
    data["creator_notes"] = "" if notes == _CREATOR_NOTES_PLACEHOLDER else _as_text(notes)
    tags = flat.get("tags")
    data["tags"] = list(tags) if isinstance(tags, list) else []
    data["extensions"] = {
        "talkativeness": flat.get("talkativeness", 0.5),
        "fav": bool(flat.get("fav", False)),
        "world": "",
        "depth_prompt": {"prompt": "", "depth": 4, "role": "system"},
    }
    return Card(data=_fill_required(data), top=copy.deepcopy(flat), source_spec="v1")


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _check_name(data: JsonObject, filename: str) -> None:
    if not isinstance(data.get("name"), str):
        raise FormatError("角色卡缺少名字 name（card has no name）", path=filename)


def _fill_required(data: JsonObject) -> JsonObject:
    """Add the V2-required fields that are missing (existing values, even odd ones, are kept)."""
    for key in _V2_STRING_FIELDS:
        data.setdefault(key, "")
    for key in _V2_LIST_FIELDS:
        data.setdefault(key, [])
    if not isinstance(data.get("extensions"), dict):
        data["extensions"] = {}
    return data


def _mirror(data: JsonObject) -> JsonObject:
    """The V1 fields SillyTavern mirrors at the top level of a stored card (data wins)."""
    ext = data.get("extensions") if isinstance(data.get("extensions"), dict) else {}
    assert isinstance(ext, dict)
    mirror: JsonObject = {k: data.get(k, "") for k in V1_FIELDS}
    mirror["creatorcomment"] = data.get("creator_notes", "")
    mirror["avatar"] = "none"
    mirror["talkativeness"] = ext.get("talkativeness", 0.5)
    mirror["fav"] = ext.get("fav", False)
    mirror["tags"] = copy.deepcopy(data.get("tags", []))
    return mirror


def card_to_object(card: Card, spec: Literal["v2", "v3"] = "v3") -> JsonObject:
    """The card as a JSON object.

    ``v2``: SillyTavern's hybrid (V1 fields mirrored at the top, ``spec: chara_card_v2``).
    ``v3``: ``spec: chara_card_v3``; the top-level mirror is written only if the source had one.
    ``data`` is the same in both (SillyTavern keeps V3-only fields in V2 files too).
    """
    data = copy.deepcopy(card.data)
    if spec == "v3":
        data.setdefault("group_only_greetings", [])
        version = card.top.get("spec_version") if card.source_spec == "v3" else None
        spec_fields: JsonObject = {
            "spec": SPEC_V3,
            "spec_version": version if isinstance(version, str) and version.startswith("3") else "3.0",
        }
    else:
        spec_fields = {"spec": SPEC_V2, "spec_version": "2.0"}
    mirror = _mirror(data)
    out: JsonObject = {}
    if spec == "v2":
        # A hybrid starts with the mirrored V1 fields, as SillyTavern stores it.
        out.update({k: v for k, v in mirror.items() if k not in card.top})
    for key, value in card.top.items():
        if key in spec_fields:
            out[key] = spec_fields[key]
        elif key == "data":
            out[key] = data
        elif key in mirror:
            # "avatar" is a stored file name; only its absence is filled in.
            out[key] = copy.deepcopy(value) if key == "avatar" else mirror[key]
        else:
            out[key] = copy.deepcopy(value)
    out.update(spec_fields)
    out["data"] = data
    return out
