"""SillyTavern's tavern events around what the chat page just did, for a card's script frames.

SillyTavern 1.18 emits its events while it sends and receives (``scripting/st_beat.py`` says their
order, as the recordings of ``../shared/tavernhelper`` show it).  The events up to a beat's request
are heard by the page's frames before the request is sent (``live_events``, with
:func:`request_events`); the rest once the beat is over, from here (``live=True``; without it, all
of them, for a beat whose page did not hear them live): the events in SillyTavern's order, their
arguments made from the beat's own record (the request it sent, the world-info entries that fired
for it: ``beat_log``), and with each event the chat as a listener would have read it then — the
user's message not sent yet, a reply received but not drawn (no ``swipe_info``), a swipe's new text
not in ``swipes`` yet.  What a listener writes is kept before the next beat (the page waits for the
frames).

A view is ``{"length": n, "last": message | null}``: the first *n* messages of the chat the frames
hold, the *n*-th replaced by *last* when given; ``null``: the chat as it is.  A new chat's greeting
events come when its page opens the chat (``page_scripts.opening_events``).
"""

from __future__ import annotations

import copy
import time
from typing import Any

from peargarden.scripting.st_beat import DRY_RUNS_AFTER_REPLY, GENERATE_OPTIONS
from peargarden.scripting.st_host import settings_ready_data, variables_left_absent
from peargarden.tavern.assemble import generate

from . import beat_log
from .page_scripts import PageScriptHost
from .service import ChatSession

BEATS = ("send", "regenerate", "swipe", "continue")
IDLE_WAIT = 5.0  # seconds: the beat's record is written as the beat lets the chat go
Event = list[Any]  # [type, args, view | None]


def settle(session: ChatSession) -> None:
    """The beat the page saw end has let the chat go (its record is written then)."""
    until = time.monotonic() + IDLE_WAIT
    while session.busy and time.monotonic() < until:
        time.sleep(0.02)


def _sent(session: ChatSession, reply: str | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages the beat that wrote *reply* sent, and the world-info hits of that request."""
    for record in reversed(beat_log.load(session.chat.path, counted=False)):
        if reply is None or reply not in record.entries:
            continue
        for ledger in record.rounds:
            if isinstance(ledger, dict) and ledger.get("purpose", "beat") == "beat":
                rows = ledger.get("messages") or []
                sent = [{"role": row.get("role"), "content": row.get("content")} for row in rows]
                return sent, list(ledger.get("lore") or [])
    return [], []


def _activated(host: PageScriptHost, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``WORLD_INFO_ACTIVATED``'s entries: each stored entry with its book as ``world``."""
    out = []
    for hit in hits:
        book = str(hit.get("book") or "")
        entries = (host.state.worlds.get(book) or {}).get("entries") or {}
        found = entries.get(str(hit.get("uid"))) if isinstance(entries, dict) else None
        out.append({**(found if isinstance(found, dict) else {"uid": hit.get("uid")}), "world": book})
    return out


def _prompt_events(messages: list[dict[str, Any]], *, dry_run: bool) -> list[Event]:
    return [
        ["generate_after_combine_prompts", [{"prompt": "", "dryRun": dry_run}], None],
        ["chat_completion_prompt_ready", [{"chat": copy.deepcopy(messages), "dryRun": dry_run}], None],
        ["generate_after_data", [{"prompt": copy.deepcopy(messages)}, dry_run], None],
    ]


def started_events(gen_type: str, view: dict[str, Any] | None, *, dry_run: bool) -> list[Event]:
    return [
        ["generation_started", [gen_type, GENERATE_OPTIONS, dry_run], view],
        ["GENERATION_AFTER_COMMANDS", [gen_type, GENERATE_OPTIONS, dry_run], view],
    ]


def _dry_runs(host: PageScriptHost) -> list[Event]:
    """The two prompt builds SillyTavern makes after a reply (its token counter's dry runs)."""
    with variables_left_absent(host.state):
        messages = generate(host.state, "normal", dry_run=True).messages
    one = [*started_events("normal", None, dry_run=True), *_prompt_events(messages, dry_run=True)]
    return [copy.deepcopy(event) for _ in range(DRY_RUNS_AFTER_REPLY) for event in one]


def undrawn(message: dict[str, Any]) -> dict[str, Any]:
    """A reply as SillyTavern holds it when ``MESSAGE_RECEIVED`` comes: not drawn, so no ``swipe_info``."""
    return {key: copy.deepcopy(value) for key, value in message.items() if key != "swipe_info"}


def swiping(message: dict[str, Any], *, received: bool) -> dict[str, Any]:
    """The swiped reply while its new swipe is made: ``""`` in ``swipes`` for it; before the reply
    came (``MESSAGE_SWIPED``) the text and extra still the swipe shown before."""
    out = copy.deepcopy(message)
    swipes = out.get("swipes")
    shown = out.get("swipe_id")
    if not isinstance(swipes, list) or not isinstance(shown, int) or not 0 <= shown < len(swipes):
        return undrawn(out)
    swipes[shown] = ""
    infos = out.get("swipe_info")
    if isinstance(infos, list) and len(infos) == len(swipes):
        infos.pop(shown)
    if not received and shown > 0:
        out["mes"] = message["swipes"][shown - 1]
        info = infos[shown - 1] if isinstance(infos, list) and len(infos) >= shown else None
        if isinstance(info, dict) and isinstance(info.get("extra"), dict):
            out["extra"] = copy.deepcopy(info["extra"])
    return out


def request_events(
    host: PageScriptHost,
    action: str,
    messages: list[dict[str, Any]],
    hits: list[dict[str, Any]],
    *,
    at: int,
    before: dict[str, Any] | None,
) -> list[Event]:
    """The events of the beat *action* up to its request (the *messages* it sends, the world-info
    *hits* of it): *at* is the user's message (a send) or the swiped reply (a swipe), *before* the
    view the frames read them with once the user's message is sent."""
    gen_type = "normal" if action == "send" else action
    events: list[Event] = []
    if action == "send":
        events += started_events(gen_type, {"length": at, "last": None}, dry_run=False)
        events += [["message_sent", [at], before], ["user_message_rendered", [at], before]]
    elif action == "swipe":
        events += [["message_swiped", [at], before], *started_events(gen_type, before, dry_run=False)]
    else:
        events += started_events(gen_type, before, dry_run=False)
    return events + generation_events(host, gen_type, messages, hits, before)


def generation_events(
    host: PageScriptHost,
    gen_type: str,
    messages: list[dict[str, Any]],
    hits: list[dict[str, Any]],
    view: dict[str, Any] | None,
) -> list[Event]:
    """A generation's events from its world info to its request, each heard with *view*: the entries
    that fired (*hits*), the prompt's (*messages*) events and ``chat_completion_settings_ready``."""
    events: list[Event] = []
    if hits:
        events.append(["world_info_activated", [_activated(host, hits)], view])
    events += [[kind, args, view] for kind, args, _ in _prompt_events(messages, dry_run=False)]
    stream = bool(host.state.oai.get("stream_openai"))
    settings = settings_ready_data(host.state, copy.deepcopy(messages), gen_type, stream)
    events.append(["chat_completion_settings_ready", [settings], view])
    return events


def being_swiped(message: dict[str, Any]) -> dict[str, Any]:
    """The reply a swipe replaces as the frames hold it while its new swipe is made: ``""`` added to
    its ``swipes`` and shown; its text and extra still the swipe shown before."""
    out = copy.deepcopy(message)
    swipes = out.get("swipes")
    out["swipes"] = [*(swipes if isinstance(swipes, list) else [out.get("mes", "")]), ""]
    out["swipe_id"] = len(out["swipes"]) - 1
    return out


def beat_events(host: PageScriptHost, action: str, reply: str | None, *, live: bool = False) -> list[Event]:
    """The events of the beat *action* that wrote the chat's last reply (entry *reply*); *live*: the
    frames heard those up to the request while the beat ran (``live_events``), only the rest."""
    chat = host.state.chat
    if not chat:
        return []
    last = len(chat) - 1
    if chat[last].get("is_user"):  # no reply came (an error, a stop): the send's own events
        if live:
            return []
        view = {"length": last + 1, "last": None}
        sent = [["message_sent", [last], view], ["user_message_rendered", [last], view]] if action == "send" else []
        return [*started_events("normal", {"length": last, "last": None}, dry_run=False), *sent]
    gen_type = "normal" if action == "send" else action
    events: list[Event] = []
    if not live:
        messages, hits = _sent(host.session, reply)
        before: dict[str, Any] | None = None
        if action == "send":
            before = {"length": last, "last": None}
        elif action == "swipe":
            before = {"length": last + 1, "last": swiping(chat[last], received=False)}
        at = last - 1 if action == "send" else last
        events += request_events(host, action, messages, hits, at=at, before=before)
    received = swiping(chat[last], received=True) if action == "swipe" else undrawn(chat[last])
    events.append(["message_received", [last, gen_type], {"length": last + 1, "last": received}])
    events += [["character_message_rendered", [last, gen_type], None], ["generation_ended", [last + 1], None]]
    return events + _dry_runs(host)


def change_events(action: str, last: int) -> list[Event]:
    if action == "delete":
        return [["message_deleted", [last], None]]
    if action == "edit":
        return [["message_edited", [last], None], ["message_updated", [last], None]]
    return [["message_updated", [last], None]]


def action_events(session: ChatSession, action: str, *, live: bool = False) -> dict[str, Any]:
    """``{"world", "events"}``: the chat's data after *action* (a beat of :data:`BEATS`, or a change of
    the chat: ``edit``, ``delete``…) and SillyTavern's events of it, in order (see the module);
    *live*: the beat's events up to its request were heard during the beat."""
    settle(session)
    host = PageScriptHost(session)
    world = host.world()
    if action in BEATS:
        leaf = session.messages()
        reply = leaf[-1].entry_id if leaf else None
        events = beat_events(host, action, reply, live=live)
    else:
        events = change_events(action, len(host.state.chat) - 1)
    return {"world": world, "events": events}


__all__ = ["BEATS", "action_events", "beat_events", "being_swiped", "change_events", "generation_events",
           "request_events", "settle", "started_events", "swiping", "undrawn"]  # fmt: skip
