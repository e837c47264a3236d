"""Damaged or oddly typed lorebook entries never make the engine raise."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wi_helpers import scan

from kit.examples import examples
from peargarden.worldinfo import WorldInfoSettings, book_from_st

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 300) | st.floats(allow_nan=True) | st.text("怀瑾/{}^$ a1", max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner, max_size=3),
    max_leaves=6,
)
_FIELDS = [
    "key", "keysecondary", "content", "constant", "selective", "selectiveLogic", "order", "position",
    "disable", "excludeRecursion", "preventRecursion", "delayUntilRecursion", "probability",
    "useProbability", "depth", "group", "groupOverride", "groupWeight", "scanDepth", "caseSensitive",
    "matchWholeWords", "useGroupScoring", "role", "sticky", "cooldown", "delay", "characterFilter", "uid",
]  # fmt: skip


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=st.lists(st.dictionaries(st.sampled_from(_FIELDS), _json, max_size=12), min_size=1, max_size=6),
    timed=st.dictionaries(st.sampled_from(["sticky", "cooldown", "x"]), _json, max_size=3),
    recursive=st.booleans(),
)
def test_arbitrary_entries_never_raise(entries: list[dict[str, Any]], timed: dict[str, Any], recursive: bool) -> None:
    book = book_from_st("乱书", {"entries": {str(i): e for i, e in enumerate(entries)}})
    raws = [dict(e.raw) for e in book.entries]
    result = scan(
        raws,
        [("User", "怀瑾 a1 /{}")],
        settings=WorldInfoSettings(recursive=recursive, min_activations=2, use_group_scoring=True),
        random=lambda: 0.5,
        timed_world_info=timed,
        chat_length=3,
    )
    assert isinstance(result.wi_before, str)
