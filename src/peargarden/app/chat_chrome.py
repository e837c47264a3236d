"""What a front draws around a chat's messages, read from the session: each message's own time and
SillyTavern's swipe arrows for the last reply.

Times: a message imported from SillyTavern carries its ``send_date`` (in the whole line kept under
``message["st"]``; a reply split into swipes takes its own swipe's ``swipe_info`` date), so it shows
when it was written there, not when it was imported; a ``send_date`` that cannot be read shows no
time at all rather than a wrong one.  Messages written here show their entry's timestamp.
"""

from __future__ import annotations

from typing import Any

from peargarden.formats import parse_send_date
from peargarden.sessions import ops
from peargarden.sessions.entries import Entry
from peargarden.sessions.tree import SessionTree


def message_time(entry: Entry) -> str | None:
    """ISO 8601 time the message was written (no zone: the reader's local time), or ``None``."""
    line = entry.message.get("st")
    if not isinstance(line, dict):
        return entry.timestamp
    sent = line.get("send_date")
    swipe = entry.message.get("st_swipe")
    infos = line.get("swipe_info")
    info = infos[swipe] if isinstance(swipe, int) and isinstance(infos, list) and 0 <= swipe < len(infos) else None
    if isinstance(info, dict):
        sent = info.get("send_date", sent)
    moment = parse_send_date(sent)
    return moment.isoformat(timespec="milliseconds") if moment is not None else None


def swipe_arrows(tree: SessionTree) -> dict[str, Any]:
    """The last reply's place among its siblings (``position``, ``count``; 0 and 0 without one) and
    whether swiping past the last of them asks the model for a new one (``generate``).

    As in SillyTavern: the right arrow of the last reply generates a new swipe, but the chat's first
    message (a greeting: no user message before it) only cycles the alternate greetings it has."""
    position, count = ops.swipe_position(tree)
    return {"position": position, "count": count, "generate": count > 0 and ops.last_user(tree) is not None}
