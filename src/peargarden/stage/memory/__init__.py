"""Story memory on the stage (pure): the scene-notes ledger, compaction, card memory, the budget, recall.

- :mod:`.ledger` — the ledger and its JSON-patch merge; :mod:`.blocks` — 【世界状态】/【登场名录】 text.
- :mod:`.scribe` — the keeper's prompt and lenient reply parsing (:mod:`.lenient_json`).
- :mod:`.story` — session messages as story (work-mode segments excluded); :mod:`.compaction` — cut
  point and relay-summary prompt; :mod:`.resident` — the card's resident memory in 【前情提要】.
- :mod:`.budget` — history newest → oldest under a token budget; :mod:`.recall` — BM25 recall.

The I/O (side calls, session entries, the card's memory file) is in ``peargarden.app.play.story``.
"""

from .blocks import format_roster, format_state
from .budget import BudgetCut, fit_history
from .compaction import CompactionPlan, plan_compaction
from .ledger import Ledger, PatchResult, apply_patch
from .scribe import parse_patch
from .story import StoryItem, story_items

__all__ = [
    "BudgetCut",
    "CompactionPlan",
    "Ledger",
    "PatchResult",
    "StoryItem",
    "apply_patch",
    "fit_history",
    "format_roster",
    "format_state",
    "parse_patch",
    "plan_compaction",
    "story_items",
]
