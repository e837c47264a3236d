"""The sandbox: a pure verdict (allow / ask / deny) for every tool call, judged before it runs.

Public API: :func:`judge`, :class:`SandboxContext`, :class:`Grants`, :class:`Verdict`,
:func:`grant_unit`, :func:`forbidden_reason`, and the default lists in :mod:`.defaults`.
"""

from .defaults import DEFAULT_BLACKLIST, DEFAULT_NO_ASK
from .verdict import (
    TOOL_ACCESS,
    VERBS,
    Grants,
    SandboxContext,
    Verdict,
    forbidden_reason,
    grant_unit,
    judge,
    judge_bash,
    judge_path,
    unit_path,
)

__all__ = [
    "DEFAULT_BLACKLIST",
    "DEFAULT_NO_ASK",
    "TOOL_ACCESS",
    "VERBS",
    "Grants",
    "SandboxContext",
    "Verdict",
    "forbidden_reason",
    "grant_unit",
    "judge",
    "judge_bash",
    "judge_path",
    "unit_path",
]
