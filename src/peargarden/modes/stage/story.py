"""Story memory in the stage request: the covered part of the story leaves the history, the ledger
fills 【世界状态】/【登场名录】, the relay summary and the card's resident memory open the messages as
【前情提要】, and history is cut newest → oldest to the token budget (with a warning).

The stage builder calls :func:`story_request` when the app gave it a story source (a callable that
returns a :class:`~peargarden.stage.memory.view.StoryView` for the current branch).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from peargarden.sessions.context import ContextMessage
from peargarden.stage import StageRequest, Turn, assemble_beat
from peargarden.stage.memory.view import StoryView, budget_messages, drop_covered

from .materials import StageMaterials

__all__ = ["StorySource", "story_history", "story_request"]

StorySource = Callable[[], "StoryView | None"]


def story_history(earlier: Sequence[ContextMessage], view: StoryView | None) -> list[ContextMessage]:
    """The messages the history is rebuilt from: those after the active summary's covered part."""
    if view is None:
        return list(earlier)
    return drop_covered(earlier, view.covers_through, lambda m: m.entry_id)


def story_request(
    materials: StageMaterials,
    history: Sequence[Turn],
    user_text: str,
    view: StoryView,
    *,
    thinking: str | None,
    tool_names: Sequence[str],
    extra_tokens: int = 0,
) -> StageRequest:
    memory = view.recall(user_text) if view.recall is not None and user_text.strip() else None
    staged = assemble_beat(
        materials.files,
        materials.card,
        materials.stage,
        materials.corpus,
        history,
        user_text,
        thinking=thinking,
        tool_names=tool_names,
        summary=view.preface,
        world_state=view.world_state,
        roster=view.roster,
        memory=memory or None,
    )
    # The history and words as assembled (prompt-time regex applied), cut to the budget.
    messages, warning = budget_messages(
        view, staged.system, staged.history, staged.words, staged.injection, extra_tokens=extra_tokens
    )
    warnings = (*staged.warnings, *view.warnings, *((warning,) if warning else ()))
    return replace(staged, messages=messages, warnings=warnings)
