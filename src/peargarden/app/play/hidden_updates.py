"""A stage reply's ``<UpdateVariable>`` blocks kept out of what streams to the user (a card's chat or a group's round).

On the stage a card's variables change through the ``variables_update`` tool; a model that still
writes MVU's update block has it applied and stripped after the reply
(:mod:`peargarden.modes.stage.variables`), so the page, the export and the next request never carry
it.  The stream is the one place the block would still show: :func:`without_update_blocks` holds
back text from ``<UpdateVariable>`` to ``</UpdateVariable>`` (an unclosed block to the end of the
reply, as the strip does), and the whitespace before it, across however the deltas split the tags.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from peargarden.agent.events import AgentEvent, TextDeltaEvent

__all__ = ["UpdateBlockFilter", "without_update_blocks"]

_OPEN = "<updatevariable>"
_CLOSE = "</updatevariable>"


def _partial_tail(text: str, tag: str) -> int:
    """The length of the longest end of *text* that begins *tag* (case-insensitive)."""
    lowered = text[-len(tag) :].lower()
    for size in range(min(len(lowered), len(tag) - 1), 0, -1):
        if tag.startswith(lowered[-size:]):
            return size
    return 0


class UpdateBlockFilter:
    """The text of one reply as it streams, without its update blocks (see the module docstring)."""

    def __init__(self) -> None:
        self._held = ""  # text that may still turn out to be (the space before) a block
        self._inside = False

    def feed(self, text: str) -> str:
        """What of *text* can be shown now."""
        work = self._held + text
        self._held = ""
        shown: list[str] = []
        while work:
            if self._inside:
                at = work.lower().find(_CLOSE)
                if at < 0:
                    keep = _partial_tail(work, _CLOSE)
                    self._held = work[len(work) - keep :] if keep else ""
                    return "".join(shown)
                self._inside = False
                work = work[at + len(_CLOSE) :]
                continue
            at = work.lower().find(_OPEN)
            if at >= 0:
                shown.append(work[:at].rstrip())
                self._inside = True
                work = work[at + len(_OPEN) :]
                continue
            keep = _partial_tail(work, _OPEN)
            body = work[: len(work) - keep]
            space = len(body) - len(body.rstrip())  # held: it goes if a block follows
            shown.append(body[: len(body) - space])
            self._held = work[len(body) - space :]
            break
        return "".join(shown)

    def flush(self) -> str:
        """The held text that turned out to be no block (the reply's text ended or paused)."""
        held, self._held = ("" if self._inside else self._held), ""
        self._inside = False
        return held


def without_update_blocks(events: Iterable[AgentEvent]) -> Iterator[AgentEvent]:
    """*events* (one speaker's beat) with the update blocks taken out of the text deltas; any other
    event first lets out the text held back before it."""
    block = UpdateBlockFilter()
    for event in events:
        if isinstance(event, TextDeltaEvent):
            text = block.feed(event.text)
            if text:
                yield TextDeltaEvent(text=text)
            continue
        held = block.flush()
        if held:
            yield TextDeltaEvent(text=held)
        yield event
    held = block.flush()
    if held:
        yield TextDeltaEvent(text=held)
