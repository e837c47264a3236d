"""Story memory in the stage request: the covered part of the story leaves the history, the ledger
fills 【世界状态】/【登场名录】, the relay summary and the card's resident memory open the messages as
【前情提要】, and history is cut newest → oldest to the token budget (with a warning).

The stage builder calls :func:`story_request` when the app gave it a story source (a callable that
returns a :class:`~peargarden.stage.memory.view.StoryView` for the current branch).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec.structs import replace

from peargarden.sessions.context import ContextMessage
from peargarden.stage import StageRequest, Turn, assemble_beat
from peargarden.stage.memory.budget import BudgetCut
from peargarden.stage.memory.view import StoryView, budget_cut, drop_covered
from peargarden.stage.messages import build_messages, merge_turns
from peargarden.stage.part_budget import PartBudget
from peargarden.text.regex_scripts import is_static

from .materials import StageMaterials
from .prose import StoryProse

__all__ = ["StorySource", "beat_boundary", "fitted_window", "story_history", "story_request"]

# Messages of the story the first budgeted beat of a chat derives; grown ×4 until the budget fills
# inside the window.  The chat's StoryProse then remembers a size fitted to what the budget kept,
# with a margin (a quarter more, and a few beats), so that the next beat derives about what it
# sends: the chat grows by a beat or two between beats, and a size that falls short only costs
# one more pass at ×4.
FIRST_WINDOW = 64
WINDOW_MARGIN = 16

StorySource = Callable[[], "StoryView | None"]


def story_history(earlier: Sequence[ContextMessage], view: StoryView | None) -> Sequence[ContextMessage]:
    """The messages the history is rebuilt from: those after the active summary's covered part
    (*earlier* itself when nothing is covered: read only, never copied)."""
    if view is None or view.covers_through is None:
        return earlier
    return drop_covered(earlier, view.covers_through, lambda m: m.entry_id)


def beat_boundary(messages: Sequence[ContextMessage], index: int) -> int:
    """The nearest index at or before *index* where a user message starts a beat (0 when none)."""
    index = min(index, len(messages) - 1)
    while index > 0 and messages[index].role != "user":
        index -= 1
    return max(index, 0)


def fitted_window(derived: int, kept: int, turns: int) -> int:
    """The window for the next beat: of the *derived* messages, which made *turns* turns, the budget
    kept the newest *kept* turns; as many messages as those took, a quarter more and a margin."""
    needed = -(-derived * kept // max(turns, 1))  # rounded up
    return max(FIRST_WINDOW, needed + needed // 4 + WINDOW_MARGIN)


def story_request(
    materials: StageMaterials,
    source: Sequence[ContextMessage],
    greeting: Sequence[Turn],
    user_text: str,
    view: StoryView,
    prose: StoryProse,
    *,
    thinking: str | None,
    tool_names: Sequence[str],
    extra_tokens: int = 0,
) -> StageRequest:
    """The stage request of a budgeted beat over the story ``greeting + prose.story_turns(source)``,
    with history cut newest → oldest to the budget, derived from the newest messages only, as far
    back as the budget reaches.

    The story is derived (prose replayed, regex scripts run, turns merged) over a window of the
    newest messages that starts at a beat.  When the budget fills inside the window and the window
    holds more merged messages than the keyword scan reads, the request is the one the whole story
    gives: the budget counts newest → oldest and stops at the same turn, prompt-time regex depth is
    counted from the newest message, and the scan reads only the last few merged messages.  The cut
    warning's count adds the turns before the window (remembered between beats by *prose*).
    Otherwise the window grows ×4, up to the whole story.  The next beat starts from a window
    fitted to what this one kept (:func:`fitted_window`), so a beat derives about what it sends.
    A regex script whose replacement runs macros with side effects runs over the whole story, as
    before.
    """
    view, held = _held_preface(view)
    # Every part of the request held to what the whole request may take (``stage.part_budget``).
    stage = replace(materials.stage, budget_tokens=view.context_tokens - view.reserve_tokens, count=view.count)
    memory = view.recall(user_text) if view.recall is not None and user_text.strip() else None
    regex = materials.stage.regex
    windowed = regex is None or all(is_static(script) for script in regex.scripts())
    size = max(prose.window, FIRST_WINDOW)
    while True:
        start = beat_boundary(source, len(source) - size) if windowed and len(source) > size else 0
        turns = prose.story_turns(source[start:])
        if start == 0:
            turns = [*greeting, *turns]
        staged = assemble_beat(
            materials.files,
            materials.card,
            stage,
            materials.corpus,
            turns,
            user_text,
            thinking=thinking,
            tool_names=tool_names,
            summary=view.preface,
            world_state=view.world_state,
            roster=view.roster,
            memory=memory or None,
        )
        cut = budget_cut(view, staged.system, staged.history, staged.words, staged.injection, extra_tokens)
        inside = cut.dropped > 0 and len(merge_turns(staged.history)) > materials.stage.scan_depth
        if start == 0 or inside:
            break
        size *= 4
    if start:
        before = len(greeting) + prose.count_turns(source, start)
        prose.window = fitted_window(len(source) - start, len(cut.kept), len(staged.history))
        cut = BudgetCut(cut.kept, cut.dropped + before, cut.used)
    messages = build_messages(cut.kept, staged.words, staged.injection, summary=view.preface)
    warnings = (*held, *staged.warnings, *view.warnings, *((cut.warning,) if cut.warning else ()))
    return replace(staged, messages=messages, warnings=warnings)


def _held_preface(view: StoryView) -> tuple[StoryView, list[str]]:
    """*view* with its summary and the card's resident memory (the 【前情提要】) each held to the
    request's budget, and the warnings for what was left out."""
    budget = PartBudget(view.context_tokens - view.reserve_tokens, view.count)
    summary = budget.keep("前情提要（剧情摘要）", view.summary)
    resident = budget.keep("角色卡的常驻记忆", view.resident)
    if summary == view.summary and resident == view.resident:
        return view, []
    return replace(view, summary=summary, resident=resident), budget.warnings
