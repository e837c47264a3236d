"""Preset declaration on disk: the label cache, the side-model call, the card's files, the report.

- The preset stays byte-for-byte at ``library/presets/<stem>.json``; its labels are cached beside it
  in ``library/presets/<stem>.declare.json``, keyed by sha256 of each piece's compiled text, shared by
  all cards.  Only pieces the cache does not know go to the side model, in one call.  After a failed
  call the model is not asked again for 60 s; unknown pieces fall back to ``writing`` for this routing
  without that fallback being saved.
- Routing writes ``（预设）`` entries into the card's ``APPEND_SYSTEM.md`` and ``AGENTS.md`` (created
  from the card projection when missing, so nothing the card said is lost) and sets the card's active
  preset in ``卡.json``.  ``卡.json``'s earlier bytes and the files' earlier texts are kept in
  ``cards/<card>/预设声明.json`` so :func:`remove_declaration` leaves the card exactly as before.
- A readable report goes to ``cards/<card>/预设转译报告.md``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from peargarden.agent.loop import BeatInput, BuiltRequest, RequestBuilder
from peargarden.declare import (
    STATIONS,
    STATUS_TEXT,
    Compiled,
    Labels,
    Piece,
    Station,
    compile_preset,
    is_station,
    label_prompt,
    merge_section,
    parse_labels,
    route,
    strip_preset_entries,
    user_entry_names,
)
from peargarden.errors import BadInput, NotFound, PearError, ProviderError
from peargarden.formats import read_preset
from peargarden.modes.stage.materials import AGENTS_FILE, CARD_APPEND_FILE, StageMaterials, load_stage_materials
from peargarden.providers.base import ChatRequest, Provider, stream_text
from peargarden.stage.agents_file import agents_from_projection
from peargarden.stage.entries import parse_entries
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.home import Home
from peargarden.workspace.inputs import read_input
from peargarden.workspace.text_files import read_user_text

STATE_FILE = "预设声明.json"
REPORT_FILE = "预设转译报告.md"
RETRY_AFTER_FAILURE = 60.0

# A labeller takes (system, user) and returns the model's reply text.
Labeller = Callable[[str, str], str]


def preset_path(home: Home, stem: str) -> Path:
    return home.presets_dir / f"{stem}.json"


def cache_path(home: Home, stem: str) -> Path:
    return home.presets_dir / f"{stem}.declare.json"


def load_preset_file(home: Home, stem: str) -> dict[str, Any]:
    path = preset_path(home, stem)
    if not path.is_file():
        raise NotFound(f"没有这个预设：{stem}（先导入预设文件）", path=path)
    return read_preset(read_input(path), str(path))


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise BadInput(f"文件损坏：{error}", path=path) from None
    return value if isinstance(value, dict) else None


def load_cache(home: Home, stem: str) -> dict[str, Any]:
    cache = _read_json(cache_path(home, stem)) or {}
    if cache.get("version") != 1 or not isinstance(cache.get("labels"), dict):
        cache = {"version": 1, "preset": stem, "labels": {}, "lastFailure": None}
    return cache


def provider_labeller(provider: Provider, model: str = "") -> Labeller:
    """One side call: system + user in, the whole reply text out."""

    def ask(system: str, user: str) -> str:
        request = ChatRequest(
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            model=model,
            sampler={"max_tokens": 16384},
            thinking="low",
        )
        return stream_text(provider.stream(request))

    return ask


class DeclareResult(msgspec.Struct):
    compiled: Compiled
    labels: Labels
    model_called: bool = False
    asked: list[str] = msgspec.field(default_factory=list)  # piece ids sent to the model
    warnings: list[str] = msgspec.field(default_factory=list)
    changed_files: list[str] = msgspec.field(default_factory=list)

    def _piece_json(self, piece: Piece) -> dict[str, Any]:
        return {
            "id": piece.id,
            "name": piece.name,
            "role": piece.role,
            "where": piece.where,
            "station": self.labels.stations[piece.id],
            "note": self.labels.notes.get(piece.id, ""),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "model_called": self.model_called,
            "asked": self.asked,
            "pieces": [self._piece_json(p) for p in self.compiled.pieces],
            "blocks": [{"id": b.id, "name": b.name, "status": b.status} for b in self.compiled.blocks],
            "defaulted": self.labels.defaulted,
            "warnings": self.warnings,
            "changed_files": self.changed_files,
        }


def _names(home: Home, folder: CardFolder) -> tuple[str, str, StageMaterials]:
    materials = load_stage_materials(home, folder)
    return materials.card.name or folder.folder, materials.settings.user_name, materials


def declare_preset(
    home: Home,
    card: str,
    stem: str,
    *,
    labeller: Labeller | None = None,
    given: Sequence[dict[str, Any]] | None = None,
    now: Callable[[], float] = time.time,
) -> DeclareResult:
    """Compile *stem*, label its pieces (cache, then *given* labels or the side model), route them."""
    folder = open_card(home, card)
    preset = load_preset_file(home, stem)
    char, user, materials = _names(home, folder)
    compiled = compile_preset(preset, char=char, user=user)
    cache = load_cache(home, stem)
    labels, result_asked, model_called, warnings = _label(compiled.pieces, cache, stem, labeller, given, now)
    result = DeclareResult(compiled, labels, model_called, result_asked, warnings)
    if compiled.unsupported_macros:
        result.warnings.append("不支持的宏已去掉：" + "、".join(compiled.unsupported_macros))
    if compiled.uses_last_user_message:
        users = "、".join(compiled.uses_last_user_message)
        result.warnings.append(f"这些块引用了 {{{{lastusermessage}}}}（转译时按空串处理）：{users}")
    _write_cache_if_changed(home, stem, cache)
    print_ = _fingerprint(home, stem, char, user)
    result.changed_files = _apply_routing(home, folder, stem, compiled.pieces, labels, materials, print_)
    _write_report(folder, stem, result)
    return result


def _label(
    pieces: Sequence[Piece],
    cache: dict[str, Any],
    stem: str,
    labeller: Labeller | None,
    given: Sequence[dict[str, Any]] | None,
    now: Callable[[], float],
) -> tuple[Labels, list[str], bool, list[str]]:
    known: dict[str, dict[str, Any]] = cache["labels"]
    warnings: list[str] = []
    if given is not None:
        by_id = {str(g.get("id")): g for g in given if isinstance(g, dict)}
        for piece in pieces:
            item = by_id.get(piece.id)
            if item is not None and is_station(item.get("station")):
                known[piece.key] = {"id": piece.id, "name": piece.name, "station": item["station"],
                                    "note": str(item.get("note") or ""), "source": "user"}  # fmt: skip
            elif item is not None:
                warnings.append(f"{piece.id}：站点「{item.get('station')}」不存在，按 writing 处理")
    unknown = [p for p in pieces if p.key not in known]
    asked: list[str] = []
    called = False
    if unknown and given is None and labeller is not None:
        last = cache.get("lastFailure")
        if isinstance(last, (int, float)) and now() - last < RETRY_AFTER_FAILURE:
            warnings.append("旁路模型刚失败过，60 秒内不再询问；未知块暂按 writing 处理")
        else:
            system, user_text = label_prompt(stem, unknown)
            asked = [p.id for p in unknown]
            called = True
            try:
                reply = labeller(system, user_text)
            except ProviderError as error:
                cache["lastFailure"] = now()
                warnings.append(f"旁路模型调用失败，未知块暂按 writing 处理：{error}")
            else:
                cache["lastFailure"] = None
                parsed = parse_labels(reply, unknown)
                for piece in unknown:
                    if piece.id in parsed.defaulted or piece.id in parsed.unknown:
                        continue  # a fallback is never saved: the next run asks again
                    known[piece.key] = {"id": piece.id, "name": piece.name, "station": parsed.stations[piece.id],
                                        "note": parsed.notes.get(piece.id, ""), "source": "model"}  # fmt: skip
    labels = Labels()
    for piece in pieces:
        item = known.get(piece.key)
        if item is not None and is_station(item.get("station")):
            labels.stations[piece.id] = item["station"]
            labels.notes[piece.id] = str(item.get("note") or "")
        else:
            labels.stations[piece.id] = "writing"
            labels.notes[piece.id] = ""
            labels.defaulted.append(piece.id)
    return labels, asked, called, warnings


def _write_cache_if_changed(home: Home, stem: str, cache: dict[str, Any]) -> None:
    path = cache_path(home, stem)
    if _read_json(path) != cache:
        atomic.write_json(path, cache)


def _read_text(path: Path) -> str | None:
    try:
        return read_user_text(path)
    except FileNotFoundError:
        return None


def _apply_routing(
    home: Home,
    folder: CardFolder,
    stem: str,
    pieces: Sequence[Piece],
    labels: Labels,
    materials: StageMaterials,
    fingerprint: str = "",
) -> list[str]:
    append_path = folder.path / CARD_APPEND_FILE
    agents_path = folder.path / AGENTS_FILE
    append_text = _read_text(append_path)
    agents_text = _read_text(agents_path)
    state_path = folder.path / STATE_FILE
    state = _read_json(state_path)
    settings_bytes = folder.settings_file.read_bytes() if folder.settings_file.exists() else None
    if state is None:
        state = {
            "version": 1,
            "before": {CARD_APPEND_FILE: append_text, AGENTS_FILE: agents_text},
            "settings_before": settings_bytes.decode("utf-8") if settings_bytes is not None else None,
        }
    state["preset"] = stem
    state["fingerprint"] = fingerprint
    taken = user_entry_names(append_text or "") + user_entry_names(agents_text or "")
    routed = route(pieces, labels.stations, taken)
    changed: list[str] = []
    new_append = merge_section(append_text or "", routed.append_markdown)
    if append_text is None and not new_append.strip():
        new_append_value = None
    else:
        new_append_value = new_append if new_append.endswith("\n") or not new_append else new_append + "\n"
    base_agents = agents_text
    if (base_agents is None or not base_agents.strip()) and routed.agents_section:
        base_agents = agents_from_projection(materials.card, materials.corpus.constants)
        state.setdefault("projection", base_agents)
    new_agents_value = None
    if base_agents is not None:
        merged = merge_section(base_agents, routed.agents_section)
        new_agents_value = merged if merged.endswith("\n") or not merged else merged + "\n"
    for path, old, new in ((append_path, append_text, new_append_value), (agents_path, agents_text, new_agents_value)):
        if new is not None and new != old:
            atomic.write_text(path, new)
            changed.append(path.name)
    settings = folder.settings()
    if settings.get("preset") != stem:
        settings["preset"] = stem
        folder.write_settings(settings)
        changed.append(folder.settings_file.name)
    atomic.write_json(state_path, state)
    return changed


def _write_report(folder: CardFolder, stem: str, result: DeclareResult) -> None:
    now = dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M")
    stations = result.labels.stations
    asked = f"是（{'、'.join(result.asked)}）" if result.model_called else "否"
    lines = [f"# 预设转译报告：{stem}", "", f"- 时间：{now}", f"- 片段：{len(result.compiled.pieces)}"]
    lines += [f"- 本次询问旁路模型：{asked}", ""]
    lines.append("## 每个块的去向")
    by_piece = {p.id: p for p in result.compiled.pieces}
    for block in result.compiled.blocks:
        if block.id in by_piece:
            station: Station = stations[block.id]
            info = STATIONS[station]
            note = result.labels.notes.get(block.id, "")
            fallback = "（未声明，默认）" if block.id in result.labels.defaulted else ""
            lines.append(f"- {block.name}（{block.id}）→ {station} {info.label}{fallback}：{info.destination}"
                         + (f" —— {note}" if note else ""))  # fmt: skip
        else:
            lines.append(f"- {block.name}（{block.id}）：{STATUS_TEXT[block.status]}")
    if result.warnings:
        lines += ["", "## 提醒"] + [f"- {w}" for w in result.warnings]
    lines += [
        "",
        "## 已知代价",
        "- 破限信中成对的一问一答被展平成引用文字。",
        "- 依赖预设输出状态栏、选项的卡不再由预设输出它们：场记、面板与 ask 接手。",
        f"- 声明缓存：library/presets/{stem}.declare.json（所有卡共用）。",
    ]
    atomic.write_text(folder.path / REPORT_FILE, "\n".join(lines) + "\n")


def remove_declaration(home: Home, card: str) -> list[str]:
    """Take every ``（预设）`` entry out of the card's files and unset the active preset."""
    folder = open_card(home, card)
    state_path = folder.path / STATE_FILE
    state = _read_json(state_path) or {"before": {}, "settings_before": None}
    before: dict[str, str | None] = state.get("before") or {}
    changed: list[str] = []
    for name in (CARD_APPEND_FILE, AGENTS_FILE):
        path = folder.path / name
        current = _read_text(path)
        if current is None:
            continue
        stripped = strip_preset_entries(current)
        original = before.get(name) if name in before else current
        if original is None:
            # The file was created by declaration: delete it when only program-owned text is left.
            if _only_program_text(stripped, state.get("projection")):
                path.unlink()
                changed.append(name)
                continue
            new = stripped
        elif stripped.strip() == strip_preset_entries(original).strip():
            new = original  # nothing else changed since: the exact earlier bytes
        else:
            new = stripped
        if new != current:
            atomic.write_text(path, new)
            changed.append(name)
    settings = folder.settings()
    if "preset" in settings:
        settings_before = state.get("settings_before")
        previous = json.loads(settings_before) if isinstance(settings_before, str) else None
        rest = {k: v for k, v in settings.items() if k != "preset"}
        if isinstance(settings_before, str) and previous == rest:
            atomic.write_text(folder.settings_file, settings_before)
        elif settings_before is None and not rest and state.get("before") is not None:
            folder.settings_file.unlink()
        else:
            folder.write_settings(rest)
        changed.append(folder.settings_file.name)
    for extra in (state_path, folder.path / REPORT_FILE):
        if extra.exists():
            extra.unlink()
    return changed


def _only_program_text(text: str, projection: object) -> bool:
    if isinstance(projection, str) and text.strip() == projection.strip():
        return True
    for entry in parse_entries(text):
        if entry.source is not None:
            continue  # （角色卡）/（世界书·…）: the program's own
        if entry.content.strip():
            return False  # the user wrote something here
    return True


def relabel(home: Home, stem: str, card: str, piece_id: str, station: str) -> DeclareResult:
    """The user's own label for one block (kept in the shared cache), then re-route the card."""
    if not is_station(station):
        raise BadInput(f"站点只能是 {'、'.join(STATIONS)}，不是「{station}」")
    folder = open_card(home, card)
    char, user, _ = _names(home, folder)
    compiled = compile_preset(load_preset_file(home, stem), char=char, user=user)
    if piece_id not in {p.id for p in compiled.pieces}:
        raise NotFound(f"预设里没有可声明的块「{piece_id}」（关闭、占位或丢弃的块不能声明）")
    return declare_preset(home, card, stem, given=[{"id": piece_id, "station": station}])


def preset_labels(home: Home, stem: str) -> list[dict[str, Any]]:
    load_preset_file(home, stem)
    cache = load_cache(home, stem)
    return [dict(value, key=key) for key, value in cache["labels"].items()]


SAMPLER_KEYS = ("temperature", "top_p", "top_k", "frequency_penalty", "presence_penalty", "repetition_penalty")


def _fingerprint(home: Home, stem: str, char: str, user: str) -> str:
    """What the routing depends on: the preset's bytes (block switches included) and the names."""
    digest = hashlib.sha256(preset_path(home, stem).read_bytes())
    digest.update(f"\x00{char}\x00{user}".encode())
    return digest.hexdigest()


def active_preset(folder: CardFolder) -> str:
    value = folder.settings().get("preset")
    return value if isinstance(value, str) else ""


def preset_sampler(home: Home, folder: CardFolder) -> dict[str, Any]:
    """The active preset's numeric samplers (applied to stage requests, never put into prompt text)."""
    stem = active_preset(folder)
    if not stem or not preset_path(home, stem).is_file():
        return {}
    preset = load_preset_file(home, stem)
    return {
        key: preset[key]
        for key in SAMPLER_KEYS
        if isinstance(preset.get(key), (int, float)) and not isinstance(preset.get(key), bool)
    }


def preset_warnings(home: Home, folder: CardFolder) -> list[str]:
    """What a beat should say about the card's active preset without touching anything."""
    stem = active_preset(folder)
    if stem and not preset_path(home, stem).is_file():
        return [f"当前预设「{stem}」不在 library/presets/ 里，未应用"]
    return []


def stale_preset(home: Home, folder: CardFolder) -> str:
    """The active preset's name when it (or a block switch, or the names) changed since the last
    routing, so it must be declared again; "" when it is current, absent or unreadable (reads only)."""
    stem = active_preset(folder)
    if not stem or not preset_path(home, stem).is_file():
        return ""
    try:
        char, user, _ = _names(home, folder)
        state = _read_json(folder.path / STATE_FILE) or {}
        if state.get("preset") == stem and state.get("fingerprint") == _fingerprint(home, stem, char, user):
            return ""
    except (PearError, OSError):
        return ""
    return stem


def sync_active_preset(home: Home, folder: CardFolder, labeller: Callable[[], Labeller]) -> list[str]:
    """Re-route the card's active preset when it changed since the last routing (see
    :func:`stale_preset`); only pieces the cache does not know reach the side model.  Returns
    warnings; a failure here never stops a beat."""
    stem = stale_preset(home, folder)
    if not stem:
        return []
    try:
        result = declare_preset(home, folder.folder, stem, labeller=labeller())
    except PearError as error:
        return [f"预设声明同步失败：{error}"]
    return result.warnings


def with_preset(builder: RequestBuilder, sampler: dict[str, Any], warnings: Sequence[str] = ()) -> RequestBuilder:
    """*builder* with the preset's samplers (fields the builder set itself win) and sync warnings."""
    if not sampler and not warnings:
        return builder

    def build(inp: BeatInput) -> BuiltRequest:
        built = builder(inp)
        out = built if isinstance(built, BuiltRequest) else BuiltRequest(built)
        out.request.sampler = {**sampler, **out.request.sampler}
        if inp.round == 0:
            out.warnings = [*warnings, *out.warnings]
        return out

    return build
