"""A card's sprite set (SillyTavern's expression images): ``cards/<card>/sprites/<label>.<ext>``, plus
the emotion assets of a CHARX card file.

Importable from SillyTavern's layout — a character's folder ``characters/<name>/`` of ``<label>.png``
files (or the ``characters`` folder itself, the card's name picked out of it), a zip of one, or a
CHARX card (its ``emotion`` assets).  Everything is read and checked before anything is written:
a file that is not an image, or a name that is no label, is one line naming it and nothing changes.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import msgspec

from peargarden.errors import BadInput, NotFound
from peargarden.extras.expressions import sprite_label
from peargarden.extras.media_types import IMAGE_TYPES, image_kind
from peargarden.formats import read_card, read_zip
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.inputs import read_input

SPRITES_DIR = "sprites"
# A sprite is a picture, not a film: SillyTavern's upload takes any size, we cap one at 20 MiB.
MAX_SPRITE_BYTES = 20 * 1024 * 1024
CHARX_PREFIX = "charx:"


class Sprite(msgspec.Struct, frozen=True):
    label: str
    name: str  # the file's name in sprites/, or ``charx:<member>`` for a CHARX card's asset


def sprites_dir(card: CardFolder) -> Path:
    return card.path / SPRITES_DIR


_charx_seen: dict[Path, tuple[tuple[int, int], dict[str, str]]] = {}
_charx_lock = threading.Lock()


def _charx_emotions(card: CardFolder) -> dict[str, str]:
    """A CHARX card file's emotion assets, member → label (read once per version of the file)."""
    path = card.card_file()
    if path is None or path.suffix.lower() != ".charx":
        return {}
    stat = path.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _charx_lock:
        seen = _charx_seen.get(path)
        if seen is not None and seen[0] == stamp:
            return seen[1]
    found = emotion_assets(read_card(read_input(path), str(path)).data)
    with _charx_lock:
        _charx_seen[path] = (stamp, found)
    return found


def emotion_assets(data: Mapping[str, object]) -> dict[str, str]:
    """The CHARX ``emotion`` assets a card's data names: archive member → label."""
    found: dict[str, str] = {}
    assets = data.get("assets")
    for asset in assets if isinstance(assets, list) else []:
        if not isinstance(asset, dict) or asset.get("type") != "emotion":
            continue
        uri = str(asset.get("uri") or "")
        if uri.startswith("embeded://"):
            member = uri.removeprefix("embeded://")
            found[member] = sprite_label(str(asset.get("name") or PurePosixPath(member).stem))
    return found


def card_sprites(card: CardFolder) -> list[Sprite]:
    """The card's sprites: its folder's images, then a CHARX card's emotions whose label has none."""
    found: list[Sprite] = []
    folder = sprites_dir(card)
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.suffix.lower().lstrip(".") in ("png", "jpg", "jpeg", "gif", "webp"):
                found.append(Sprite(sprite_label(path.stem), path.name))
    have = {sprite.label for sprite in found}
    for member, label in sorted(_charx_emotions(card).items()):
        if label not in have:
            found.append(Sprite(label, CHARX_PREFIX + member))
    return found


def by_label(sprites: list[Sprite]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for sprite in sprites:
        grouped.setdefault(sprite.label, []).append(sprite.name)
    return grouped


def sprite_file(card: CardFolder, name: str) -> tuple[bytes, str]:
    """A sprite's bytes and content type (``name`` as :func:`card_sprites` gives it)."""
    if name.startswith(CHARX_PREFIX):
        member = name.removeprefix(CHARX_PREFIX)
        if member not in _charx_emotions(card):
            raise NotFound(f"卡「{card.folder}」没有表情 {name}")
        path = card.card_file()
        assert path is not None
        data = read_card(read_input(path), str(path)).assets.get(member, b"")
    else:
        path = sprites_dir(card) / name
        if "/" in name or "\\" in name or name.startswith(".") or not path.is_file():
            raise NotFound(f"卡「{card.folder}」没有表情 {name}")
        data = path.read_bytes()
    kind = image_kind(data)
    if kind is None:
        raise BadInput(f"{name} 不是图片", path=path)
    return data, IMAGE_TYPES[kind]


def sprite_path(card: CardFolder, name: str) -> str:
    """Where a sprite is, relative to the data folder (a CHARX asset as ``<card file>#<member>``)."""
    root = card.home.root
    if name.startswith(CHARX_PREFIX):
        path = card.card_file()
        assert path is not None
        return f"{path.relative_to(root).as_posix()}#{name.removeprefix(CHARX_PREFIX)}"
    return (sprites_dir(card) / name).relative_to(root).as_posix()


def _checked(files: Mapping[str, bytes], where: str) -> dict[str, bytes]:
    """*files* (name → bytes) as sprites to write (``<label>.<ext>`` → bytes), every one checked."""
    chosen: dict[str, bytes] = {}
    for name, data in sorted(files.items()):
        stem = PurePosixPath(name).stem
        kind = image_kind(data)
        if kind is None:
            raise BadInput(f"{name} 不是 PNG、JPEG、GIF 或 WebP 图片", path=where)
        if len(data) > MAX_SPRITE_BYTES:
            raise BadInput(f"{name} 太大（超过 20 MiB）", path=where)
        label = sprite_label(stem)
        if not label or any(ch in label for ch in '/\\:*?"<>|') or label.startswith("."):
            raise BadInput(f"{name}：文件名不能当表情名", path=where)
        own = stem.lower() if stem.lower().startswith(label) else label
        chosen[f"{own}.{'jpg' if kind == 'jpeg' else kind}"] = data
    if not chosen:
        raise BadInput("没有找到表情图片（每张图以表情命名，如 joy.png、开心.png）", path=where)
    return chosen


def _from_zip(data: bytes, filename: str, card_name: str) -> dict[str, bytes]:
    files = read_zip(data, filename)
    if "card.json" in files:  # a CHARX card: its emotion assets
        card = read_card(data, filename)
        return {f"{label}{PurePosixPath(member).suffix}": card.assets[member]
                for member, label in emotion_assets(card.data).items() if member in card.assets}  # fmt: skip
    folders = {PurePosixPath(name).parts[0] for name in files if len(PurePosixPath(name).parts) > 1}
    if card_name in folders:  # SillyTavern's characters/ zipped: the card's own folder
        return {PurePosixPath(n).name: d for n, d in files.items() if PurePosixPath(n).parts[0] == card_name}
    images = {name: d for name, d in files.items() if image_kind(d) is not None}
    return {PurePosixPath(name).name: d for name, d in images.items() if len(PurePosixPath(name).parts) <= 2}


def _from_folder(folder: Path, card_name: str) -> dict[str, bytes]:
    if (folder / card_name).is_dir():  # SillyTavern's characters/ folder: the card's own
        folder = folder / card_name
    return {path.name: read_input(path, limit=MAX_SPRITE_BYTES + 1) for path in sorted(folder.iterdir())
            if path.is_file() and not path.name.startswith(".")}  # fmt: skip


def import_sprites(card: CardFolder, source: Path | None = None, files: Mapping[str, bytes] | None = None) -> list[str]:
    """Sprites for *card* from a folder, a zip or a CHARX file at *source*, or from uploaded *files*
    (name → bytes; one zip among them is opened).  Returns the files written, by name."""
    name = card.load_card().name or card.folder
    if source is not None:
        where = str(source)
        if source.is_dir():
            found = _from_folder(source, name)
        elif source.is_file():
            found = _from_zip(read_input(source), where, name)
        else:
            raise NotFound(f"没有这个文件或文件夹：{source}")
    else:
        where = "上传的文件"
        uploaded = dict(files or {})
        zipped = [key for key in uploaded if key.lower().endswith((".zip", ".charx"))]
        found = _from_zip(uploaded[zipped[0]], zipped[0], name) if zipped else uploaded
    chosen = _checked(found, where)
    folder = sprites_dir(card)
    for file_name, data in chosen.items():
        atomic.write_bytes(folder / file_name, data)
        for old in folder.glob(f"{PurePosixPath(file_name).stem}.*"):
            if old.name != file_name and old.suffix.lower().lstrip(".") in ("png", "jpg", "jpeg", "gif", "webp"):
                old.unlink()  # the same label in another format: the new one replaced it
    return sorted(chosen)
