"""Story memory at the I/O edge: scene notes after a beat, compaction, the card's resident memory.

What lives where:

- The ledger (场记) is a ``story-notes`` custom entry on the branch (``{"ledger", "beat"}``): the
  latest one on the active path is the current ledger, so it follows swipes, rewinds and branches.
- A relay summary is a ``story-summary`` custom entry (``{"summary", "coversThroughId", "turns",
  "chars"}``); the latest on the path is active.  The covered messages stay in the session file; the
  stage leaves them out of the history and shows the summary as 【前情提要】.
- The card's resident memory is ``<card>/记忆/常驻摘要.md`` (≤ 1,200 characters, the user may edit
  it); every chat of the card gets it in 【前情提要】.  A compaction merges its new summary into it.
- Settings: ``[story]`` in ``config.toml``, then ``"story"`` in ``卡.json`` (see :class:`StorySettings`).

Side calls are guarded by the leaf: when the branch moved during the call (a swipe, a rewind, a
new message) the result is discarded.  A failing side call skips that step and says so; any other
failure ends the bookkeeping, which the service's step runner says as one warning; the beat itself
is never harmed.
"""

from __future__ import annotations

import time
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from peargarden.agent.result import BeatResult
from peargarden.errors import BadInput, FormatError, PearError
from peargarden.stage.history import beat_result, story_turns
from peargarden.stage.memory import Ledger, apply_patch, format_roster, format_state, parse_patch, plan_compaction
from peargarden.stage.memory.compaction import (
    AUTO_MIN_CHARS,
    MANUAL_MIN_CHARS,
    SUMMARY_MAX_TOKENS,
    SUMMARY_SYSTEM,
    CompactionPlan,
    fit_lines,
    summary_user_text,
)
from peargarden.stage.memory.recall import recall_block
from peargarden.stage.memory.resident import RESIDENT_MAX, resident_block, resident_budget
from peargarden.stage.memory.scribe import SCRIBE_MAX_TOKENS, SCRIBE_SYSTEM, scribe_user_text
from peargarden.stage.memory.story import (
    StoryItem,
    dialogue_lines,
    last_beat,
    story_items,
    story_since,
    tokens_over,
)
from peargarden.stage.memory.view import StoryView
from peargarden.text.tokens import EstimateCounter, TextCounter, counter_for_model
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.text_files import read_user_text

from ..base import BranchView, SideCall, TreeReader
from .compaction_ends import plan_from_ends

__all__ = [
    "MEMORY_DIR",
    "NOTES_TYPE",
    "RESIDENT_FILE",
    "SUMMARY_TYPE",
    "StorySettings",
    "after_beat",
    "compact_story",
    "current_ledger",
    "keep_scene_notes",
    "read_resident",
    "resident_path",
    "stage_story",
    "story_settings",
    "story_view",
]

NOTES_TYPE = "story-notes"
SUMMARY_TYPE = "story-summary"
MEMORY_DIR = "记忆"
RESIDENT_FILE = "常驻摘要.md"
RECALL_SECONDS = 5.0


# -- settings ------------------------------------------------------------------------------------


class StorySettings(msgspec.Struct, frozen=True):
    """``[story]`` in config.toml (keys as below), overridden by ``"story": {...}`` in 卡.json.

    ``compact_every`` defaults to the global ``compact_every_n_turns`` (0 = only by budget);
    ``compact_tokens`` 0 means half of ``context_tokens − reserve_tokens``; ``side_context_tokens``
    is the side model's window, which bounds every side request (0: the same as ``context_tokens``).
    """

    scene_notes: bool = True
    keep_rounds: int = 6
    compact_every: int = 30
    compact_tokens: int = 0
    context_tokens: int = 32768
    reserve_tokens: int = 4096
    recall: bool = False
    side_context_tokens: int = 0

    @property
    def compact_threshold(self) -> int:
        return self.compact_tokens or max(1, (self.context_tokens - self.reserve_tokens) // 2)

    @property
    def side_window(self) -> int:
        return self.side_context_tokens or self.context_tokens


_INT_KEYS = {
    "keep_rounds": (0, 100),
    "compact_every": (0, 500),
    "compact_tokens": (0, 10_000_000),
    "context_tokens": (256, 10_000_000),
    "reserve_tokens": (0, 1_000_000),
    "side_context_tokens": (0, 10_000_000),
}
_BOOL_KEYS = ("scene_notes", "recall")


def _story_table(doc: object, base: StorySettings, where: Path) -> StorySettings:
    if doc is None:
        return base
    if not isinstance(doc, Mapping):
        raise BadInput("story 设置应是一个表 / 对象", path=where)
    changes: dict[str, Any] = {}
    for key, (low, high) in _INT_KEYS.items():
        if key in doc:
            value = doc[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadInput(f"story.{key} 应是整数", path=where)
            changes[key] = max(low, min(high, value))
    for key in _BOOL_KEYS:
        if key in doc:
            if not isinstance(doc[key], bool):
                raise BadInput(f"story.{key} 应是 true 或 false", path=where)
            changes[key] = doc[key]
    return replace(base, **changes)


def story_settings(config_file: Path, card: CardFolder, compact_every_n_turns: int = 30) -> StorySettings:
    base = StorySettings(compact_every=compact_every_n_turns)
    try:
        doc = tomllib.loads(read_user_text(config_file))
    except (OSError, tomllib.TOMLDecodeError, FormatError):
        doc = {}  # load_settings already reports a broken config.toml
    base = _story_table(doc.get("story"), base, config_file)
    return _story_table(card.settings().get("story"), base, card.path)


# -- reading the branch --------------------------------------------------------------------------


def tree_items(tree: TreeReader) -> list[StoryItem]:
    return story_items([StoryItem(entry.id, entry.message) for entry in tree.messages()])


def _latest_data(tree: TreeReader, custom_type: str) -> dict[str, Any] | None:
    entries = tree.customs(custom_type)
    data = entries[-1].body.get("data") if entries else None
    return data if isinstance(data, dict) else None


def current_ledger(tree: TreeReader) -> Ledger:
    data = _latest_data(tree, NOTES_TYPE)
    return Ledger.from_json(data.get("ledger")) if data else Ledger()


def active_summary(tree: TreeReader) -> dict[str, Any] | None:
    data = _latest_data(tree, SUMMARY_TYPE)
    return data if data and isinstance(data.get("summary"), str) else None


def resident_path(card: CardFolder) -> Path:
    return card.path / MEMORY_DIR / RESIDENT_FILE


def read_resident(card: CardFolder) -> str:
    try:
        return read_user_text(resident_path(card)).strip()
    except (OSError, FormatError):
        return ""


def story_counter(model: str) -> TextCounter:
    try:
        return counter_for_model(model, default=None)
    except PearError:
        return EstimateCounter()


def story_view(tree: TreeReader, card: CardFolder, settings: StorySettings, model: str = "") -> StoryView:
    """The branch's story memory for the stage builder (read once per beat)."""
    ledger = current_ledger(tree)
    summary = active_summary(tree)
    text = str(summary["summary"]) if summary else ""
    covers = summary.get("coversThroughId") if summary else None
    state = format_state(ledger)
    roster = format_roster(ledger)
    resident = resident_block(read_resident(card), resident_budget(text, state, roster))
    recall: Callable[[str], str] | None = None
    if settings.recall:
        docs = _recall_docs(tree, covers if isinstance(covers, str) else None)

        def recall(query: str) -> str:
            deadline = time.monotonic() + RECALL_SECONDS
            return recall_block(docs, query, expired=lambda: time.monotonic() > deadline)

    return StoryView(
        summary=text,
        covers_through=covers if isinstance(covers, str) else None,
        world_state=state,
        roster=roster,
        resident=resident,
        context_tokens=settings.context_tokens,
        reserve_tokens=settings.reserve_tokens,
        count=story_counter(model),
        recall=recall,
    )


def _recall_docs(tree: TreeReader, covers: str | None) -> list[str]:
    """Earlier prose the context no longer holds: the beats a summary covers, one text per turn."""
    if covers is None:
        return []
    items = tree_items(tree)
    ids = [item.entry_id for item in items]
    if covers not in ids:
        return []

    covered = items[: ids.index(covers) + 1]
    return [turn.text for turn in story_turns([item.message for item in covered]) if turn.text.strip()]


# -- side calls ----------------------------------------------------------------------------------


class Outcome(msgspec.Struct):
    """What one bookkeeping step did: ``written`` (an entry was appended), or why not
    (``branch_moved``: the branch moved during the side call, so its result was discarded)."""

    written: bool = False
    warning: str = ""
    note: str = ""
    branch_moved: bool = False
    remaining: int = 0  # beats still due for compaction after this step
    turns: int = 0  # beats this step covered
    chars: int = 0


def keep_scene_notes(view: BranchView, side: SideCall) -> Outcome:
    """One side call that turns the latest beat into a ledger patch, appended at the leaf."""
    tree = view.tree
    leaf = tree.leaf
    beat = last_beat(tree.messages())  # read from the end: a beat of a long chat is its last few
    if not any(item.role == "assistant" for item in beat):
        return Outcome(note="没有可记的正文")
    ledger = current_ledger(tree)
    count = story_counter(view.model)
    fixed = SCRIBE_SYSTEM + scribe_user_text(ledger, [])
    room = _side_room(view_story_settings(view), SCRIBE_MAX_TOKENS, count(fixed))
    lines = fit_lines(dialogue_lines(beat, view.user_name, view.char_name), room, count)
    try:
        reply = side(SCRIBE_SYSTEM, scribe_user_text(ledger, lines), SCRIBE_MAX_TOKENS, purpose="scene_notes")
    except PearError as error:
        return Outcome(warning=f"场记没记上（旁路模型出错：{error}），本拍跳过记账")
    if tree.leaf != leaf:
        return Outcome(note="记账期间分支变了，这次的场记作废", branch_moved=True)
    patch = parse_patch(reply)
    if patch is None:
        return Outcome(warning="场记没记上（旁路模型的回复里没有 JSON），本拍跳过记账")
    result = apply_patch(ledger, patch)
    if not result.changed:
        return Outcome(note="本拍没有需要记的变化")
    view.append_custom(NOTES_TYPE, {"ledger": result.ledger.to_json(), "beat": leaf})
    return Outcome(written=True, note="；".join(result.warnings))


RESIDENT_SYSTEM = f"""你在维护一张角色卡的常驻记忆：以后每一局新对话开场都会读到它。
把【现有常驻记忆】和【新的接力摘要】合并成一份新的常驻记忆：人物与关系、既定事实、未了之事、用户的玩法偏好。
不超过 {RESIDENT_MAX} 字，只写确实发生过的事。只输出常驻记忆正文。"""


def _update_resident(card: CardFolder, side: SideCall, summary: str) -> str:
    """Merge *summary* into the card's resident memory; returns a warning ("" when fine)."""
    current = read_resident(card)
    user = "【现有常驻记忆】\n" + (current or "（空）") + "\n\n【新的接力摘要】\n" + summary
    try:
        reply = side(RESIDENT_SYSTEM, user, 2048, purpose="resident_memory").strip()
    except PearError as error:
        return f"卡的常驻记忆没更新（旁路模型出错：{error}）"
    if not reply:
        return "卡的常驻记忆没更新（旁路模型没有回复）"
    atomic.write_text(resident_path(card), resident_block(reply, RESIDENT_MAX) + "\n")
    return ""


def compact_story(view: BranchView, side: SideCall, *, manual: bool = False) -> Outcome:
    """Summarise the older part of the branch when it is due (always try when *manual*)."""
    settings = view_story_settings(view)
    tree = view.tree
    leaf = tree.leaf
    summary = active_summary(tree)
    covers = summary.get("coversThroughId") if summary else None
    count = story_counter(view.model)
    previous = str(summary["summary"]) if summary else ""
    ledger = current_ledger(tree)
    # The side request's own budget: its window, less the reply, the instructions, the previous
    # summary and the ledger; the dialogue gets the rest (a long import is covered step by step).
    fixed = count(SUMMARY_SYSTEM) + count(summary_user_text(previous, ledger, _EMPTY_PLAN, "", ""))
    room = _side_room(settings, SUMMARY_MAX_TOKENS, fixed)
    every = 1 if manual else settings.compact_every
    # By count the covered text must be worth a summary; over budget anything older must go.
    min_chars_over, min_chars = (MANUAL_MIN_CHARS, MANUAL_MIN_CHARS) if manual else (1, AUTO_MIN_CHARS)
    messages = tree.messages()
    covers = covers if isinstance(covers, str) else None
    plan = plan_from_ends(
        messages,
        covers,
        keep_rounds=settings.keep_rounds,
        every=every,
        min_chars_over=min_chars_over,
        min_chars=min_chars,
        budget=room,
        count=count,
        limit=settings.compact_threshold,
    )
    if plan is None:  # not decided at the ends: the whole story after the summary
        live = story_since(messages, covers)
        over = tokens_over(live, count, settings.compact_threshold)  # newest → oldest, stopped once over
        plan = plan_compaction(
            live,
            keep_rounds=settings.keep_rounds,
            every=every,
            over_budget=over,
            min_chars=min_chars_over if over else min_chars,
            budget=room,
            count=count,
        )
    if plan is None:
        if manual:
            raise BadInput(f"没有可以压缩的剧情（最近 {settings.keep_rounds} 轮之前的内容太少）")
        return Outcome()
    user = summary_user_text(previous, ledger, plan, view.user_name, view.char_name, budget=room, count=count)
    try:
        text = side(SUMMARY_SYSTEM, user, SUMMARY_MAX_TOKENS, purpose="compaction").strip()
    except PearError as error:
        return Outcome(warning=f"没能压缩剧情（旁路模型出错：{error}），下一拍再试")
    if tree.leaf != leaf:
        return Outcome(note="压缩期间分支变了，这次的摘要作废", branch_moved=True)
    if not text:
        return Outcome(warning="没能压缩剧情（旁路模型没有回复），下一拍再试")
    view.append_custom(
        SUMMARY_TYPE,
        {"summary": text, "coversThroughId": plan.covers_through_id, "turns": plan.turns, "chars": plan.chars},
    )
    left = plan.remaining_turns
    progress = f"前情压缩：这次压了 {plan.turns} 轮，还有 {left} 轮待压缩" if left else ""
    resident = _update_resident(view.folder, side, text)
    return Outcome(True, resident, progress, remaining=left, turns=plan.turns, chars=plan.chars)


_EMPTY_PLAN = CompactionPlan((), "", 0, 0)
SIDE_MARGIN = 256  # tokens kept free in a side request for the chat template and counting slack


def _side_room(settings: StorySettings, reply_tokens: int, fixed_tokens: int) -> int:
    """Tokens a side request's dialogue may take: the side model's window less the reply, the fixed
    text and a margin (never less than a small floor, so a tiny window still sends one cut beat)."""
    return max(512, settings.side_window - reply_tokens - fixed_tokens - SIDE_MARGIN)


# -- the mode's steps ----------------------------------------------------------------------------


def view_story_settings(view: BranchView) -> StorySettings:
    return story_settings(view.config_file, view.folder, view.env.settings.compact_every_n_turns)


def bookkeeping(view: BranchView, side: SideCall) -> list[str]:
    """Scene notes, then the compaction check, for the beat that just ended; the warnings to show."""
    settings = view_story_settings(view)
    warnings: list[str] = []
    if settings.scene_notes:
        notes = keep_scene_notes(view, side)
        warnings += [text for text in (notes.warning,) if text]
        if notes.branch_moved:
            warnings.append(notes.note)
    if side.stopped():
        return warnings
    compaction = compact_story(view, side)
    warnings += [text for text in (compaction.warning, compaction.note if compaction.remaining else "") if text]
    return warnings


def after_beat(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
    """The stage's after-beat step: story bookkeeping for a sealed story beat of a chat that keeps
    story memory (``None``: nothing is due, decided without a side call).  The work runs when it is
    iterated; a failure in it costs the beat nothing (the service's step runner says it in one line)."""
    if not (view.story_memory and _due(view, result)):
        return None
    return _bookkeeping_steps(view, side)


def _bookkeeping_steps(view: BranchView, side: SideCall) -> Iterator[str]:
    yield from bookkeeping(view, side)


def _due(view: BranchView, result: BeatResult) -> bool:
    if result.action == "impersonate" or result.stop_reason in ("error", "aborted"):
        return False
    beat = last_beat(view.tree.messages())
    messages = [item.message for item in beat if item.role != "user"]
    return bool(messages) and beat_result(messages).sealed


def stage_story(view: BranchView) -> StoryView:
    """The stage's story for the branch: summary, scene notes, resident memory and recall when the
    chat keeps story memory; without it no summary or notes, but the same token budget (``[story]``
    ``context_tokens`` − ``reserve_tokens``) cuts the history newest → oldest, with its warning."""
    settings = view_story_settings(view)
    if view.story_memory:
        return story_view(view.tree, view.folder, settings, view.model)
    return StoryView(
        context_tokens=settings.context_tokens,
        reserve_tokens=settings.reserve_tokens,
        count=story_counter(view.model),
    )
