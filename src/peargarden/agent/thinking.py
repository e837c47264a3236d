"""Thinking levels (pi's ``off | minimal | low | medium | high | xhigh``) and their defaults.

The level travels in :class:`peargarden.providers.base.ChatRequest.thinking`; each provider maps it to
its own parameters (``reasoning_effort`` and the like).  Defaults: ``medium`` for remote models, ``off``
for the embedded one (it cannot think, and with thinking off the stage sends lore as bodies).
"""

from __future__ import annotations

from peargarden.errors import BadInput
from peargarden.providers.base import THINKING_LEVELS, ThinkingLevel

REMOTE_DEFAULT: ThinkingLevel = "medium"
EMBEDDED_DEFAULT: ThinkingLevel = "off"


def parse_level(value: str) -> ThinkingLevel:
    cleaned = value.strip().lower()
    for level in THINKING_LEVELS:
        if level == cleaned:
            return level
    raise BadInput(f"思考档位只能是 {' | '.join(THINKING_LEVELS)}，收到 {value!r}")


def default_level(embedded: bool) -> ThinkingLevel:
    return EMBEDDED_DEFAULT if embedded else REMOTE_DEFAULT


def clamp(level: ThinkingLevel, available: tuple[ThinkingLevel, ...]) -> ThinkingLevel:
    """The nearest available level, searching upwards first, then downwards (pi's rule)."""
    if not available or level in available:
        return level if available else "off"
    index = THINKING_LEVELS.index(level)
    for candidate in THINKING_LEVELS[index + 1 :]:
        if candidate in available:
            return candidate
    for candidate in reversed(THINKING_LEVELS[:index]):
        if candidate in available:
            return candidate
    return "off"
