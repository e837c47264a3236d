"""The card project ``cards/<card>/创作/``: expand a card into one file per slot, check, apply, undo.

Layout::

    创作/manifest.json              which file holds which slot, the card's hash at expansion (base)
    创作/sources/<label>-<id>.txt   one file per slot (.js for scripts, .html for regex templates)
    创作/snapshots/<sha256>.card    the card bytes the project was expanded from (and the undo copy)

``apply`` writes back only the slots whose file text differs from the card at expansion, refuses
when the card file changed underneath (and says which slots differ), refuses while a script or regex
has a syntax problem (with line and column), keeps everything it does not understand untouched (the
card is rebuilt from the parsed card with only those slots replaced) and keeps the previous bytes so
``undo`` can put them back.

Slot files keep the field's text exactly: line endings as the card has them (a card written on
Windows keeps its ``\r\n``) and lone UTF-16 surrogates (legal in SillyTavern's JavaScript strings)
as WTF-8 bytes, so expand → check reports nothing.  An editor that turns ``\r\n`` into ``\n`` changes
nothing either; an edited field gets the card's line ending back when it is applied.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import msgspec

from peargarden.authoring import Problem, Slot, card_slots, check_regex, check_script, get_at, set_at
from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.formats import Card, card_like, read_card
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import AUTHORING_DIR
from peargarden.workspace.inputs import read_input

MANIFEST = "manifest.json"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_CRS_LF = re.compile(r"\r+\n")


def slot_bytes(text: str) -> bytes:
    """A slot's file bytes: UTF-8, lone surrogates as WTF-8 (``surrogatepass``), line endings as is."""
    return text.encode("utf-8", "surrogatepass")


def slot_text(data: bytes) -> str:
    """A slot file's text, without newline translation (the inverse of :func:`slot_bytes`)."""
    return data.decode("utf-8", "surrogatepass")


def read_slot_text(path: Path) -> str:
    return slot_text(path.read_bytes())


def _lf(text: str) -> str:
    # \r+\n, not \r\n: one CRLF → LF pass over "\r\r\n" leaves "\r\n", which must still match.
    return _CRS_LF.sub("\n", text)


def same_text(edited: str, original: object) -> bool:
    """The file says what the card says, line endings aside."""
    return isinstance(original, str) and (edited == original or _lf(edited) == _lf(original))


def with_line_endings(edited: str, original: object) -> str:
    """*edited* with the original field's ``\r\n`` back when the editor wrote bare ``\n``."""
    if isinstance(original, str) and "\r\n" in original and "\r" not in edited:
        return edited.replace("\n", "\r\n")
    return edited


class Change(msgspec.Struct):
    slot: str
    label: str
    file: str


class FileProblem(msgspec.Struct):
    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class CheckReport(msgspec.Struct):
    changes: list[Change] = msgspec.field(default_factory=list)
    problems: list[FileProblem] = msgspec.field(default_factory=list)
    # The card file changed since the expansion: slots whose value differs underneath.
    stale: bool = False
    changed_underneath: list[str] = msgspec.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "changes": [msgspec.structs.asdict(c) for c in self.changes],
            "problems": [msgspec.structs.asdict(p) for p in self.problems],
            "stale": self.stale,
            "changed_underneath": self.changed_underneath,
        }


class CardProject:
    def __init__(self, folder: CardFolder) -> None:
        self.folder = folder
        self.root = folder.path / AUTHORING_DIR

    # -- reading -------------------------------------------------------------------------------
    def _card_path(self) -> Path:
        path = self.folder.card_file()
        if path is None:
            raise NotFound(f"卡「{self.folder.folder}」没有角色卡文件（no card file）", path=self.folder.path)
        return path

    def _manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise NotFound("还没有展开这张卡（not expanded yet）", path=path, hint="先运行 pear card expand") from None
        except (OSError, ValueError) as error:
            raise BadInput(f"创作清单损坏：{error}", path=path) from None
        if not isinstance(value, dict) or value.get("version") != 1:
            raise BadInput("创作清单格式不对（unknown manifest）", path=path)
        return value

    def _snapshot(self, sha: str) -> Card:
        path = self.root / "snapshots" / f"{sha}.card"
        return read_card(read_input(path), str(path))

    def _texts(self, manifest: dict[str, Any]) -> dict[str, str | None]:
        texts: dict[str, str | None] = {}
        for slot_id, info in manifest["slots"].items():
            try:
                texts[slot_id] = read_slot_text(self.root / info["file"])
            except (OSError, UnicodeDecodeError):
                texts[slot_id] = None
        return texts

    # -- expand --------------------------------------------------------------------------------
    def expand(self, *, force: bool = False) -> list[str]:
        """Write one file per slot; returns the files written.  Edited files are never overwritten
        unless ``force``; a card changed underneath with unapplied edits is refused."""
        card_path = self._card_path()
        data = read_input(card_path)
        card = read_card(data, str(card_path))
        sha = _sha(data)
        old: dict[str, Any] | None = None
        if (self.root / MANIFEST).exists():
            old = self._manifest()
            if old["base"] != sha and not force:
                pending = self.check().changes
                if pending:
                    names = "、".join(c.label for c in pending)
                    raise ConflictError(
                        f"卡文件在展开后被改过，而创作/里还有未应用的修改：{names}。先应用它们，或丢弃"
                        "（card changed since expansion and edits are pending）",
                        hint="pear card apply，或用 --force 丢弃",
                        path=card_path,
                    )
        # Everything is prepared before the first write, and a first expansion that fails half-way
        # removes its folder: a failed expand leaves nothing behind.
        writes: list[tuple[str, bytes]] = []
        manifest_slots: dict[str, Any] = {}
        for slot in card_slots(card.data):
            rel = f"sources/{slot.file_name}"
            value = get_at(card.data, slot.path)
            keep = old is not None and old["base"] == sha and not force and (self.root / rel).exists()
            if not keep:
                writes.append((rel, slot_bytes(value if isinstance(value, str) else "")))
            manifest_slots[slot.id] = {"kind": slot.kind, "label": slot.label, "path": list(slot.path), "file": rel}
        fresh = not self.root.exists()
        try:
            written = self._write_expansion(writes, data, sha, card_path, manifest_slots, old)
        except BaseException:
            if fresh:
                shutil.rmtree(self.root, ignore_errors=True)
            raise
        return written

    def _write_expansion(
        self,
        writes: list[tuple[str, bytes]],
        data: bytes,
        sha: str,
        card_path: Path,
        manifest_slots: dict[str, Any],
        old: dict[str, Any] | None,
    ) -> list[str]:
        written: list[str] = []
        for rel, body in writes:
            atomic.write_bytes(self.root / rel, body)
            written.append(rel)
        atomic.write_bytes(self.root / "snapshots" / f"{sha}.card", data)
        manifest = {
            "version": 1,
            "card_file": card_path.name,
            "base": sha,
            "slots": manifest_slots,
            "previous": old.get("previous") if old else None,
        }
        atomic.write_json(self.root / MANIFEST, manifest)
        self._remove_orphans(manifest)
        return written

    def _remove_orphans(self, manifest: dict[str, Any]) -> None:
        sources = self.root / "sources"
        wanted = {Path(info["file"]).name for info in manifest["slots"].values()}
        if sources.is_dir():
            for path in sources.iterdir():
                if path.is_file() and path.name not in wanted:
                    path.unlink()

    # -- check ---------------------------------------------------------------------------------
    def check(self) -> CheckReport:
        manifest = self._manifest()
        base = self._snapshot(manifest["base"])
        report = CheckReport()
        texts = self._texts(manifest)
        for slot_id, info in manifest["slots"].items():
            text = texts[slot_id]
            if text is None:
                report.problems.append(FileProblem(info["file"], 1, 1, "文件缺失或无法读取（missing file）"))
                continue
            if not same_text(text, get_at(base.data, tuple(info["path"]))):
                report.changes.append(Change(slot_id, info["label"], info["file"]))
            problems: list[Problem] = []
            if info["kind"] == "script":
                problems = check_script(text)
            elif info["kind"] == "regex-pattern":
                problems = check_regex(text)
            report.problems.extend(FileProblem(info["file"], p.line, p.column, p.message) for p in problems)
        card_path = self._card_path()
        current_bytes = read_input(card_path)
        if _sha(current_bytes) != manifest["base"]:
            report.stale = True
            current = read_card(current_bytes, str(card_path))
            for info in manifest["slots"].values():
                path = tuple(info["path"])
                if get_at(current.data, path) != get_at(base.data, path):
                    report.changed_underneath.append(info["label"])
        return report

    # -- apply / undo --------------------------------------------------------------------------
    def apply(self) -> list[Change]:
        report = self.check()
        if report.problems:
            first = "；".join(str(p) for p in report.problems[:3])
            raise BadInput(f"有 {len(report.problems)} 处问题，未写回：{first}", path=self.root)
        card_path = self._card_path()
        if report.stale:
            underneath = "、".join(report.changed_underneath) or "（仅格式或图片）"
            mine = "、".join(c.label for c in report.changes) or "无"
            raise ConflictError(
                f"原卡在展开后被其他操作修改（changed underneath: {underneath}；你的修改: {mine}）。"
                "请重新展开后再改（card changed since expansion）",
                path=card_path,
            )
        if not report.changes:
            return []
        manifest = self._manifest()
        current_bytes = read_input(card_path)
        card = read_card(current_bytes, str(card_path))
        texts = self._texts(manifest)
        for change in report.changes:
            path = tuple(manifest["slots"][change.slot]["path"])
            edited = texts[change.slot]
            set_at(card.data, path, None if edited is None else with_line_endings(edited, get_at(card.data, path)))
        new_bytes = card_like(card, current_bytes, str(card_path))
        new_sha = _sha(new_bytes)
        atomic.write_bytes(self.root / "snapshots" / f"{new_sha}.card", new_bytes)
        atomic.write_bytes(card_path, new_bytes)
        manifest["previous"] = {"base": manifest["base"], "applied": new_sha}
        manifest["base"] = new_sha
        atomic.write_json(self.root / MANIFEST, manifest)
        return report.changes

    def undo(self) -> None:
        manifest = self._manifest()
        previous = manifest.get("previous")
        if not previous:
            raise NotFound("没有可以撤销的写回（nothing to undo）", path=self.root / MANIFEST)
        card_path = self._card_path()
        if _sha(read_input(card_path)) != previous["applied"]:
            raise ConflictError("卡在写回之后又被修改过，不能撤销（card changed after the apply）", path=card_path)
        if self.check().changes:
            raise ConflictError("创作/里还有未应用的修改，先 apply 或丢弃后再撤销（pending edits）", path=self.root)
        old = (self.root / "snapshots" / f"{previous['base']}.card").read_bytes()
        atomic.write_bytes(card_path, old)
        manifest["previous"] = None
        atomic.write_json(self.root / MANIFEST, manifest)
        self.expand(force=True)


def write_card(folder: CardFolder, card: Card) -> Path:
    """Write *card* over the folder's card file, atomically and in that file's own format: a PNG keeps
    every image byte (only the card chunks change), a CHARX its assets, a JSON card its spec."""
    path = folder.card_file()
    if path is None:
        raise NotFound(f"卡「{folder.folder}」的文件夹里没有角色卡文件（no card file）", path=folder.path)
    atomic.write_bytes(path, card_like(card, read_input(path), str(path)))
    return path


def slots_of(folder: CardFolder) -> list[Slot]:
    """The slots the card has now (for listings)."""
    return card_slots(folder.load_card().data)
