"""The stage's tools: look lore up, write it down (behind the write gate), the draft sheet, ``ask``.

Lore tools work on the card's corpus — mounted library books in mount order, then the card's
supplement book ``补充设定集.json`` — and find the card through :class:`StageToolEnv` (given, or built
from the :class:`ToolContext`'s ``home`` and ``card_dir``).  Entries are named by fingerprint
(``lore:<12 hex>``), which stays stable across books and uids.

``lorebook_write`` writes into the supplement book (uids from 9000) unless the model names a mounted
book; imported originals are never written unless named.  With ``creation_mode = "ask"`` the write
gate reads the user's words of this beat; a blocked call tells the model not to ask the user whether
to write.  Every write is atomic; a constant entry written while the card has an ``AGENTS.md`` is
mirrored into it at once.

Draft tools keep the sheet in ``ctx.beat_state["draft"]``; ``draft_seal`` and ``ask`` end the beat.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from peargarden.agent.events import ChoiceEvent, ProseEvent
from peargarden.agent.tools import AccessClass, Tool, ToolContext, ToolResult
from peargarden.errors import BadInput, NotFound, PearError
from peargarden.stage.ask import HANDED_OVER, parse_ask
from peargarden.stage.draft import DraftSheet
from peargarden.stage.lore.book import (
    SUPPLEMENT_UID_START,
    add_book_entry,
    delete_book_entry,
    dump_book,
    find_book_entry,
    new_supplement_book,
    update_book_entry,
)
from peargarden.stage.lore.entries import LoreEntry, fingerprint
from peargarden.stage.lore.gate import check_write_gate
from peargarden.stage.lore.search import STAGE_SEARCH_LIMIT, format_search_hits, search_entries
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import Home

from . import materials as sm

__all__ = [
    "LORE_TOOL_NAMES",
    "STAGE_TOOL_NAMES",
    "StageToolEnv",
    "draft_sheet",
    "stage_tools",
]

DUPLICATE_TEXT = "内容与已有条目重复，未写入。"


class StageToolEnv(msgspec.Struct, frozen=True):
    """The data folder and the card the tools work on.  ``creation_mode`` overrides the settings."""

    home: Home
    folder: CardFolder
    creation_mode: str | None = None

    @classmethod
    def from_context(cls, ctx: ToolContext) -> StageToolEnv:
        if ctx.home is None or ctx.card_dir is None:
            raise BadInput("设定工具需要一张打开的卡（no card in this beat）")
        home = Home(Path(ctx.home))
        return cls(home, CardFolder(home, Path(ctx.card_dir).name))

    def materials(self) -> sm.StageMaterials:
        return sm.load_stage_materials(self.home, self.folder)

    def gate_mode(self, materials: sm.StageMaterials) -> str:
        return self.creation_mode if self.creation_mode is not None else materials.creation_mode


def draft_sheet(ctx: ToolContext) -> DraftSheet:
    """The beat's draft sheet (created on first use)."""
    sheet = ctx.beat_state.get("draft")
    if not isinstance(sheet, DraftSheet):
        sheet = DraftSheet()
        ctx.beat_state["draft"] = sheet
    return sheet


Runner = Callable[[dict[str, Any], ToolContext, "StageToolEnv | None"], ToolResult]


class _StageTool(Tool):
    def __init__(
        self,
        name: str,
        description: str,
        parameters: dict[str, Any],
        access: AccessClass,
        runner: Runner,
        env: StageToolEnv | None,
    ) -> None:
        self.name = name
        self.description = description
        self.parameters = parameters
        self.access = access
        self._runner = runner
        self._env = env

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            return self._runner(args, ctx, self._env)
        except PearError as error:
            return ToolResult(error.message, is_error=True)


def _env(ctx: ToolContext, env: StageToolEnv | None) -> StageToolEnv:
    return env if env is not None else StageToolEnv.from_context(ctx)


# ---------------------------------------------------------------------------------------------- lore


def _macros(materials: sm.StageMaterials, text: str) -> str:
    """Lore text as the model sees it elsewhere in the beat: SillyTavern's macros substituted."""
    run = materials.stage.macros
    return run(text) if run is not None else text


def _entry_json(entry: LoreEntry) -> dict[str, Any]:
    return {"title": entry.title, "ref": f"lore:{entry.fp}", "book": entry.book}


def _run_search(args: dict[str, Any], ctx: ToolContext, env: StageToolEnv | None) -> ToolResult:
    query = str(args.get("query") or "").strip()
    try:
        materials = _env(ctx, env).materials()
    except PearError as error:
        return ToolResult(f"检索失败：{error.message}。按已知事实继续写。", is_error=True)
    hits = search_entries(materials.corpus.entries, query, STAGE_SEARCH_LIMIT)
    return ToolResult(
        _macros(materials, format_search_hits(hits)),
        details={
            "activity": f"查设定「{query}」· {len(hits)} 条",
            "query": query,
            "hits": [{**_entry_json(h.entry), "score": h.score} for h in hits],
        },
    )


def _parse_ref(ref: str) -> str:
    value = ref.strip()
    if value.startswith("lore:"):
        value = value[len("lore:") :]
    if len(value) != 12 or any(c not in "0123456789abcdef" for c in value.lower()):
        raise BadInput(f"「{ref}」不是条目指纹（应形如 lore:0123456789ab，可从 lorebook_search/lorebook_list 得到）")
    return value.lower()


def _find(materials: sm.StageMaterials, ref: str) -> LoreEntry:
    fp = _parse_ref(ref)
    for entry in materials.corpus.entries:
        if entry.fp == fp:
            return entry
    raise NotFound(f"没有指纹为 {fp} 的条目；用 lorebook_list 看看现有条目")


def _run_read(args: dict[str, Any], ctx: ToolContext, env: StageToolEnv | None) -> ToolResult:
    materials = _env(ctx, env).materials()
    entry = _find(materials, str(args.get("ref") or ""))
    total = len(entry.content)
    start = max(0, min(int(args.get("start") or 0), total))
    end_arg = args.get("end")
    end = total if end_arg is None else max(start, min(int(end_arg), total))
    sources = [e.book for e in materials.corpus.entries if e.fp == entry.fp]
    payload = {
        "ref": f"lore:{entry.fp}",
        "title": _macros(materials, entry.title),
        "start": start,
        "end": end,
        "total": total,
        "content": _macros(materials, entry.content[start:end]),
        "sources": sources,
    }
    return ToolResult(json.dumps(payload, ensure_ascii=False), details=_entry_json(entry))


def _list_line(entry: LoreEntry) -> str:
    keys = "、".join(k.strip() for k in entry.keys if k.strip())
    marks = (("常驻", entry.constant), ("**已停用**", not entry.enabled), ("补充", entry.overlay))
    flags = [flag for flag, on in marks if on]
    parts = [f"- {entry.title or '条目'}", f"关键词 {keys}" if keys else "无关键词"]
    if flags:
        parts.append("·".join(flags))
    parts.append(f"指纹 {entry.fp}")
    return "｜".join(parts)


def _run_list(args: dict[str, Any], ctx: ToolContext, env: StageToolEnv | None) -> ToolResult:
    materials = _env(ctx, env).materials()
    keyword = str(args.get("keyword") or "").strip().lower()
    entries = [
        e
        for e in materials.corpus.entries
        if not keyword
        or keyword in e.title.lower()
        or any(keyword in k.lower() for k in e.keys)
        or keyword in e.content.lower()
    ]
    if not entries:
        return ToolResult("没有符合的条目。" if keyword else "这张卡还没有任何设定条目。")
    books = "、".join(b.name for b in materials.books if b.path.is_file()) or "（无）"
    head = f"共 {len(entries)} 条（书：{books}）"
    return ToolResult(head + "\n" + "\n".join(_list_line(e) for e in entries), details={"count": len(entries)})


def _gate(name: str, ctx: ToolContext, env: StageToolEnv, materials: sm.StageMaterials) -> ToolResult | None:
    verdict = check_write_gate(name, ctx.user_text, env.gate_mode(materials))
    if verdict.allowed:
        return None
    return ToolResult(verdict.receipt, is_error=True, details={"gate": "blocked"})


def _target(materials: sm.StageMaterials, book: str | None) -> sm.BookSource:
    supplement = next(b for b in materials.books if b.overlay)
    if not book or not book.strip():
        return supplement
    wanted = book.strip().removesuffix(".json")
    for source in materials.books:
        if source.name == wanted or source.path.name == book.strip():
            return source
    names = "、".join(b.name for b in materials.books)
    raise NotFound(f"这张卡没有挂载名为「{wanted}」的世界书；可写入的有：{names}")


def _read_target(source: sm.BookSource) -> dict[str, Any]:
    if source.overlay and not source.path.is_file():
        return new_supplement_book()
    return sm.read_book_file(source.path)


def _save(materials: sm.StageMaterials, source: sm.BookSource, book: dict[str, Any]) -> None:
    atomic.write_text(source.path, dump_book(book))
    sm.forget_corpus()
    # A constant entry may have changed: keep an existing AGENTS.md mirror current.
    sm.sync_agents_mirror(sm.load_stage_materials(materials.home, materials.folder))


def _run_write(args: dict[str, Any], ctx: ToolContext, env: StageToolEnv | None) -> ToolResult:
    environment = _env(ctx, env)
    materials = environment.materials()
    blocked = _gate("lorebook_write", ctx, environment, materials)
    if blocked is not None:
        return blocked
    title = str(args.get("title") or "").strip()
    content = str(args.get("content") or "").strip()
    keys = [str(k) for k in args.get("keys") or [] if str(k).strip()]
    if not title or not content:
        raise BadInput("lorebook_write 需要 title 和 content。")
    constant = bool(args.get("constant", False))
    source = _target(materials, args.get("book"))
    if any(e.fp == fingerprint(content) for e in materials.corpus.entries):
        return ToolResult(DUPLICATE_TEXT, is_error=True)
    added = add_book_entry(
        _read_target(source),
        title=title,
        keys=keys,
        content=content,
        constant=constant,
        uid_start=SUPPLEMENT_UID_START if source.overlay else 0,
    )
    if added is None:
        return ToolResult(DUPLICATE_TEXT, is_error=True)
    book, uid = added
    _save(materials, source, book)
    key_text = f"关键词 {'、'.join(keys)}" if keys else "无关键词"
    resident = "（常驻注入）" if constant else ""
    return ToolResult(
        f"已固化为正典：【{title}】{key_text}{resident}，写在 {source.name}。此后检索可命中，跨会话保留。",
        details={"book": source.name, "uid": uid, "ref": f"lore:{fingerprint(content)}", "title": title},
    )


def _locate(materials: sm.StageMaterials, fp: str) -> sm.BookSource:
    """The book file that holds entry *fp* (the first, in corpus order)."""
    for source in materials.books:
        if not source.path.is_file():
            continue
        if find_book_entry(sm.read_book_file(source.path), fp) is not None:
            return source
    raise NotFound(f"没有指纹为 {fp} 的条目；用 lorebook_list 看看现有条目")


def _run_update(args: dict[str, Any], ctx: ToolContext, env: StageToolEnv | None) -> ToolResult:
    environment = _env(ctx, env)
    materials = environment.materials()
    blocked = _gate("lorebook_update", ctx, environment, materials)
    if blocked is not None:
        return blocked
    fp = _parse_ref(str(args.get("ref") or ""))
    source = _locate(materials, fp)
    keys = args.get("keys")
    updated = update_book_entry(
        sm.read_book_file(source.path),
        fp,
        title=args.get("title"),
        keys=[str(k) for k in keys] if isinstance(keys, list) else None,
        content=args.get("content"),
        constant=args.get("constant"),
    )
    if updated is None:
        raise NotFound(f"没有指纹为 {fp} 的条目")
    _save(materials, source, updated)
    return ToolResult(f"已修改条目（原指纹 {fp}），写在 {source.name}。", details={"book": source.name})


def _run_delete(args: dict[str, Any], ctx: ToolContext, env: StageToolEnv | None) -> ToolResult:
    environment = _env(ctx, env)
    materials = environment.materials()
    blocked = _gate("lorebook_delete", ctx, environment, materials)
    if blocked is not None:
        return blocked
    fp = _parse_ref(str(args.get("ref") or ""))
    source = _locate(materials, fp)
    removed = delete_book_entry(sm.read_book_file(source.path), fp)
    if removed is None:
        raise NotFound(f"没有指纹为 {fp} 的条目")
    _save(materials, source, removed)
    return ToolResult(f"已从 {source.name} 删除条目 {fp}。", details={"book": source.name})


# --------------------------------------------------------------------------------------------- draft


def _run_draft_write(args: dict[str, Any], ctx: ToolContext, _env_: StageToolEnv | None) -> ToolResult:
    sheet = draft_sheet(ctx)
    version = sheet.write(str(args.get("content") or ""), args.get("version"))
    text = f"稿件 v{version} 已写好（{len(sheet.text)} 字）。满意了就用 draft_seal 收笔。"
    return ToolResult(text, details={"version": version})


def _run_draft_append(args: dict[str, Any], ctx: ToolContext, _env_: StageToolEnv | None) -> ToolResult:
    sheet = draft_sheet(ctx)
    version = sheet.append(str(args.get("content") or ""), args.get("version"))
    return ToolResult(f"已续写，稿件 v{version}（{len(sheet.text)} 字）。", details={"version": version})


def _run_draft_edit(args: dict[str, Any], ctx: ToolContext, _env_: StageToolEnv | None) -> ToolResult:
    sheet = draft_sheet(ctx)
    version = sheet.edit(str(args.get("old_text") or ""), str(args.get("new_text") or ""), args.get("version"))
    return ToolResult(f"已修改，稿件 v{version}（{len(sheet.text)} 字）。", details={"version": version})


def _run_draft_seal(args: dict[str, Any], ctx: ToolContext, _env_: StageToolEnv | None) -> ToolResult:
    sheet = draft_sheet(ctx)
    version = sheet.seal()
    return ToolResult(
        f"已收笔（v{version}），本拍正文定稿。",
        details={"prose": sheet.text, "version": version},
        ends_beat=True,
        reader=ProseEvent(text=sheet.text, version=version),
    )


def _run_ask(args: dict[str, Any], ctx: ToolContext, _env_: StageToolEnv | None) -> ToolResult:
    card = parse_ask(args)
    choice = ChoiceEvent(question=card.question, options=card.options, free_text=card.free_text)
    return ToolResult(HANDED_OVER, details=card.to_json(), ends_beat=True, reader=choice)


# ------------------------------------------------------------------------------------------ registry

_REF = {
    "type": "string",
    "description": "条目指纹，形如 lore:0123456789ab（lorebook_search/lorebook_list 给出）",
}
_VERSION = {"type": "integer", "description": "你看到的稿件版本号（可省略）；不一致时会被拒绝，请重读"}

_SPECS: list[tuple[str, str, dict[str, Any], AccessClass, Runner]] = [
    (
        "lorebook_search",
        "在这张卡的世界书（挂载的书和补充设定集）里检索设定，返回最相关的 3 条的正文。"
        "消息里的【相关设定】【设定集索引】只有标题；落笔前用它取正文。可用空格分开多个词。",
        {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "要查的人名、地名、物件或事件，可多个词"}},
            "required": ["query"],
        },
        "read",
        _run_search,
    ),
    (
        "lorebook_read",
        "按指纹读取一条设定的全文（可给 start/end 取一段）。",
        {
            "type": "object",
            "properties": {
                "ref": _REF,
                "start": {"type": "integer", "minimum": 0},
                "end": {"type": "integer", "minimum": 0},
            },
            "required": ["ref"],
        },
        "read",
        _run_read,
    ),
    (
        "lorebook_list",
        "列出这张卡的全部设定条目（标题、关键词、常驻/停用/补充标记、指纹）；索引被截断时用它找没列出的名字。",
        {
            "type": "object",
            "properties": {"keyword": {"type": "string", "description": "只列出含这个词的条目"}},
        },
        "read",
        _run_list,
    ),
    (
        "lorebook_write",
        "把用户明确要求保留的世界设定写进设定集"
        "（默认写进这张卡的补充设定集；book 可指定一本已挂载的世界书）。"
        "跨会话保留，此后检索可命中。只在用户明确要求时使用：不要自作主张，也不要问用户“要不要记下来”。"
        "只写世界设定（人物、地点、物件、规矩），不写剧情进度；内容重复会被拒绝。",
        {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "条目标题"},
                "keys": {"type": "array", "items": {"type": "string"}, "description": "触发关键词"},
                "content": {"type": "string", "description": "设定正文"},
                "constant": {"type": "boolean", "description": "是否常驻（每拍都给你）；默认否"},
                "book": {"type": "string", "description": "写进哪本已挂载的世界书；省略则写进补充设定集"},
            },
            "required": ["title", "keys", "content"],
        },
        "write",
        _run_write,
    ),
    (
        "lorebook_update",
        "按指纹修改一条设定（标题、关键词、正文、是否常驻，给哪项改哪项）。只在用户明确要求时使用。",
        {
            "type": "object",
            "properties": {
                "ref": _REF,
                "title": {"type": "string"},
                "keys": {"type": "array", "items": {"type": "string"}},
                "content": {"type": "string"},
                "constant": {"type": "boolean"},
            },
            "required": ["ref"],
        },
        "write",
        _run_update,
    ),
    (
        "lorebook_delete",
        "按指纹删除一条设定（不可撤销，会改动它所在的世界书文件）。只在用户明确要求删除时使用。",
        {"type": "object", "properties": {"ref": _REF}, "required": ["ref"]},
        "write",
        _run_delete,
    ),
    (
        "draft_write",
        "在稿纸上起草或整篇替换这一拍的正文。",
        {
            "type": "object",
            "properties": {"content": {"type": "string", "description": "正文全文"}, "version": _VERSION},
            "required": ["content"],
        },
        "none",
        _run_draft_write,
    ),
    (
        "draft_append",
        "在稿件末尾接着写一段。",
        {
            "type": "object",
            "properties": {"content": {"type": "string"}, "version": _VERSION},
            "required": ["content"],
        },
        "none",
        _run_draft_append,
    ),
    (
        "draft_edit",
        "把稿件里的一段原文（必须逐字一致且只出现一次）换成新文字。",
        {
            "type": "object",
            "properties": {
                "old_text": {"type": "string", "description": "要替换的原文"},
                "new_text": {"type": "string", "description": "新文字"},
                "version": _VERSION,
            },
            "required": ["old_text", "new_text"],
        },
        "none",
        _run_draft_edit,
    ),
    (
        "draft_seal",
        "收笔：稿件定稿为这一拍的正文，本拍结束，之后不能再改。",
        {"type": "object", "properties": {}},
        "none",
        _run_draft_seal,
    ),
    (
        "ask",
        "把一个岔口交给用户：一个问题，2–4 个选项（用户也可以自己写）。本拍到此结束，用户的选择是下一条消息。"
        "用在用户问方向，或这一拍取决于只有用户能定、卡和世界书里都没有答案的变量时；一次只问一个，不要事事都问。",
        {
            "type": "object",
            "properties": {
                "question": {"type": "string"},
                "options": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
            },
            "required": ["question", "options"],
        },
        "none",
        _run_ask,
    ),
]

STAGE_TOOL_NAMES: tuple[str, ...] = tuple(spec[0] for spec in _SPECS)
LORE_TOOL_NAMES: tuple[str, ...] = tuple(name for name in STAGE_TOOL_NAMES if name.startswith("lorebook_"))


def stage_tools(env: StageToolEnv | None = None, *, names: tuple[str, ...] = STAGE_TOOL_NAMES) -> list[Tool]:
    """The stage tools (all, or those in *names*), working on *env* or on the beat's context."""
    return [
        _StageTool(name, description, parameters, access, runner, env)
        for name, description, parameters, access, runner in _SPECS
        if name in names
    ]
