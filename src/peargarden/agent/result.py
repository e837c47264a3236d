"""What a finished beat did, as the fronts and the modes' after-beat steps read it.

A beat is one user action (send, regenerate, swipe, continue, impersonate) and everything the model
did for it.  It may hold more than one reply: a group chat has several speakers per user message, so
:class:`BeatResult` keeps a list of :class:`Reply` rather than one text.  The service fills it in
(``peargarden.app``); the loop only produces the events it is made from.
"""

from __future__ import annotations

import msgspec

from peargarden.errors import PearError
from peargarden.providers.base import ChatRequest

# What a request sent during a beat was for: the model's own rounds, or one of the side calls.
BEAT_PURPOSE = "beat"


class SentRequest(msgspec.Struct, frozen=True):
    """One request as the provider received it, with what it was for (``beat``, ``scene_notes``,
    ``compaction``, ``resident_memory``, ``declare``…) and the model it went to."""

    request: ChatRequest
    purpose: str = BEAT_PURPOSE
    model: str = ""


class Reply(msgspec.Struct):
    """One speaker's reply within a beat: who spoke, the text streamed, the entries it wrote.

    The text and the reasoning arrive as thousands of pieces: they are kept as lists and joined when
    read (once; the join replaces the pieces).  ``text += piece`` on an attribute copied the whole
    text at every piece, since the attribute still held it: a 20 MB reply cost 48 s of CPU."""

    speaker: str
    entries: list[str] = msgspec.field(default_factory=list)
    stop_reason: str = "stop"
    text_parts: list[str] = msgspec.field(default_factory=list)
    reasoning_parts: list[str] = msgspec.field(default_factory=list)

    @property
    def text(self) -> str:
        return _joined(self.text_parts)

    @property
    def reasoning(self) -> str:
        return _joined(self.reasoning_parts)


def _joined(parts: list[str]) -> str:
    """*parts* as one string, left in the list as its only piece (the next read costs nothing)."""
    if len(parts) > 1:
        parts[:] = ["".join(parts)]
    return parts[0] if parts else ""


class StepTime(msgspec.Struct, frozen=True):
    """How long one of the mode's steps around the beat took (``prepare``, ``after_reply``,
    ``after_beat``), from its call to the end of its work; *speaker*: whose reply it was around."""

    step: str
    seconds: float
    speaker: str = ""


class BeatResult(msgspec.Struct):
    """A beat once it is over (``Beat.result``)."""

    action: str
    stop_reason: str = "stop"
    replies: list[Reply] = msgspec.field(default_factory=list)
    # Every entry the beat wrote (messages and custom entries), in order; the user's message too.
    entries: list[str] = msgspec.field(default_factory=list)
    usage: dict[str, int] = msgspec.field(default_factory=dict)
    warnings: list[str] = msgspec.field(default_factory=list)
    requests: list[SentRequest] = msgspec.field(default_factory=list)
    seconds: float = 0.0
    # The failure that ended the beat, when it was one of ours (its exit code is the CLI's).
    error: PearError | None = None
    # False: nothing was generated (a swipe that only showed another kept reply).
    generated: bool = True
    # The mode's steps around the beat, in the order they ran, with their times.
    steps: list[StepTime] = msgspec.field(default_factory=list)

    @property
    def text(self) -> str:
        """The replies' text, one after the other (a single-speaker beat: its reply)."""
        return "".join(reply.text for reply in self.replies)
