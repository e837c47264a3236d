"""The scan text and key matching (SillyTavern ``WorldInfoBuffer``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from peargarden.text.jsstring import JS_SPACE_RUN, js_trim

from . import _js

MAX_SCAN_DEPTH = 1000
MATCHER = "\x01"
JOINER = "\n" + MATCHER


@lru_cache(maxsize=65536)
def whole_word_pattern(key: str) -> re.Pattern[str]:
    # ST builds /(?:^|\W)(key)(?:$|\W)/ without flags: \W is ASCII-only, ^/$ are the string ends.
    return re.compile(r"(?:\A|[^A-Za-z0-9_])" + re.escape(key) + r"(?:\Z|[^A-Za-z0-9_])")


@lru_cache(maxsize=65536)
def is_multi_word(key: str) -> bool:
    return len(JS_SPACE_RUN.split(key)) > 1


class ScanBuffer:
    """Messages newest first (trimmed, at most 1000), plus injected and recursion text."""

    def __init__(self, messages_newest_first: Sequence[str], settings_depth: int) -> None:
        self._depth_buffer = [js_trim(m) for m in messages_newest_first[:MAX_SCAN_DEPTH]]
        self.settings_depth = settings_depth
        self.inject: list[str] = []
        self.recurse: list[str] = []
        self.skew = 0
        self._text_cache: dict[tuple[int, bool], str] = {}
        self._lower_cache: dict[str, str] = {}

    def invalidate(self) -> None:
        """Call when inject/recurse/skew change (between loops)."""
        self._text_cache.clear()
        self._lower_cache.clear()

    def depth(self) -> int:
        return self.settings_depth + self.skew

    def add_recurse(self, text: str) -> None:
        self.recurse.append(text)
        self.invalidate()

    def advance(self) -> None:
        self.skew += 1
        self.invalidate()

    def text(self, scan_depth: Any, min_activations: bool, extras: tuple[str, ...] = ()) -> str:
        """``buffer.get(entry, scanState)`` for an entry whose ``scanDepth`` is ``scan_depth``.

        ``extras`` (1.18 match sources: persona, description, …) follow the messages.
        """
        if extras:
            depth_raw = self.depth() if scan_depth is None or scan_depth is _js.UNDEFINED else scan_depth
            return self._text(depth_raw, min_activations, extras)
        if scan_depth is None or scan_depth is _js.UNDEFINED:
            cached = self._text_cache.get((-1, min_activations))
            if cached is not None:
                return cached
            result = self._text(self.depth(), min_activations)
            self._text_cache[(-1, min_activations)] = result
            return result
        return self._text(scan_depth, min_activations)

    def _text(self, raw: Any, min_activations: bool, extras: tuple[str, ...] = ()) -> str:
        depth_number = _js.to_number(raw)
        if not depth_number > 0:  # also NaN: ``NaN <= 0`` is false in JS, but slice(0, NaN) is empty
            if depth_number != depth_number:  # NaN
                depth = 0
            else:
                return ""
        else:
            depth = int(min(depth_number, MAX_SCAN_DEPTH))
        with_recurse = bool(self.recurse) and not min_activations
        cache_key = (depth, not with_recurse)
        cached = None if extras else self._text_cache.get(cache_key)
        if cached is not None:
            return cached
        result = MATCHER + JOINER.join(self._depth_buffer[:depth])
        for extra in extras:
            result += JOINER + extra
        if self.inject:
            result += JOINER + JOINER.join(self.inject)
        if with_recurse:
            result += JOINER + JOINER.join(self.recurse)
        if not extras:
            self._text_cache[cache_key] = result
        return result

    def lower(self, text: str) -> str:
        cached = self._lower_cache.get(text)
        if cached is None:
            cached = text.lower()
            if len(self._lower_cache) < 64:
                self._lower_cache[text] = cached
        return cached
