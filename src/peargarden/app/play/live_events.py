"""A card's scripts in the chat page hear a beat's events up to its request BEFORE it is sent, and what
their listeners changed goes out with it (issue 45), as in SillyTavern, whose ``eventSource.emit``
awaits each listener in turn: ``chat_completion_prompt_ready``'s listeners edit the prompt's
messages in place, ``chat_completion_settings_ready``'s the request's body.

The round trip, on the service's own beat (no second lifecycle): the page says it runs scripts when
it starts the beat; the beat builds its request as always and, as the request passes the app's
``on_request`` hooks (:meth:`LiveBeats.on_request`, on the beat's thread, before the provider sends
it), the events up to it are handed to the page in the beat's stream — a ``script_events`` item
``{"token", "events": [[type, args, view]], "world", "wait_ms"}``, in ``page_events``' shape, with
the chat as the frames read it then — and the beat waits.  The page emits them frame after frame,
each listener awaited, and posts what the listeners left (:meth:`LiveBeats.answer`): the prompt's
messages and the request's body; the changes SillyTavern would send are laid on the request
(``live_changes``).  Bounded: no answer within :data:`LIVE_WAIT` seconds and the beat goes on
unchanged with one warning; a page that gave up on a slow listener says so in its script panel and
answers ``late`` (the beat goes on unchanged).  A page without scripts, the command line and the
recorded oracle requests never take this path.

Prompts a chat's scripts injected ``once`` were built into this request: they are taken out here
(``injectPrompts``; the after-reply dry runs, as SillyTavern's after ``GENERATION_ENDED``, lack them).
"""

from __future__ import annotations

import copy
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from peargarden.agent.events import WarningEvent
from peargarden.agent.result import BEAT_PURPOSE, SentRequest
from peargarden.errors import BadInput, NotFound
from peargarden.modes.tavern.setup import injected_prompts
from peargarden.providers.base import ChatRequest
from peargarden.scripting.injected import InjectedPrompts

from .beat import Beat, PageItem
from .live_changes import apply_changes, prompt_messages
from .page_events import BEATS, being_swiped, request_events
from .page_scripts import PageScriptHost
from .service import ChatSession

LIVE_WAIT = 3.0  # seconds the beat waits for the frames' listeners, all events together


@dataclass
class _Watched:
    """A beat the chat page plays."""

    session: ChatSession
    beat: Beat
    action: str
    live: bool  # the page runs card scripts: they hear the events before the request
    swiped: dict[str, Any] | None  # a swipe's reply as the frames held it before the beat
    heard: bool = False
    token: str = ""
    answered: threading.Event = field(default_factory=threading.Event)
    answer: dict[str, Any] | None = None


def _swiped(session: ChatSession) -> dict[str, Any] | None:
    """The reply a swipe is about to replace, as the frames will hear it (``None``: none to read)."""
    try:
        chat = PageScriptHost(session).state.chat
    except Exception:  # the beat says what is wrong with the chat; its events go without the reply
        return None
    return being_swiped(chat[-1]) if chat and not chat[-1].get("is_user") else None


def _last_request(beat: Beat) -> SentRequest | None:
    """The request the beat noted last (``ChatCore.observe`` notes it before the hooks hear it)."""
    requests = beat.record.requests
    return requests[-1] if requests else None


class LiveBeats:
    """The web's beats whose requests a card's scripts may change (see the module)."""

    def __init__(self, wait: float = LIVE_WAIT) -> None:
        self.wait = wait
        self._beats: dict[str, _Watched] = {}
        self._guard = threading.Lock()

    def play(self, session: ChatSession, action: str, text: str, step: int, *, live: bool) -> Beat:
        """``session.play`` for the page; *live*: the page runs the card's scripts."""
        live = live and action in BEATS
        swiped = _swiped(session) if live and action == "swipe" else None
        beat = session.play(action, text, step=step)
        with self._guard:
            self._beats[beat.id] = _Watched(session, beat, action, live, swiped)
        return beat

    def forget(self, beat: Beat) -> None:
        """The beat is over (its stream ended)."""
        with self._guard:
            watched = self._beats.pop(beat.id, None)
        if watched is not None:
            watched.answered.set()

    # -- the hook ------------------------------------------------------------------------------------

    def on_request(self, sent: SentRequest) -> None:
        """Every request of the app as it is sent: a watched beat's first is heard by its page."""
        if sent.purpose != BEAT_PURPOSE:
            return
        with self._guard:
            found = [w for w in self._beats.values() if _last_request(w.beat) is sent and not w.heard]
        if not found:
            return
        watched = found[0]
        watched.heard = True
        injected: InjectedPrompts = injected_prompts(watched.session.env)
        injected.generation_ended()
        if not watched.live:
            return
        try:
            self._round_trip(watched, sent.request)
        except Exception as error:  # a bug of ours, or a card the page's host cannot read: the beat goes on
            said = f"卡的脚本没有听到这一拍请求前的事件（{type(error).__name__}: {error}），这一拍照常发出"
            watched.beat.hand(WarningEvent(message=said))

    def _round_trip(self, watched: _Watched, request: ChatRequest) -> None:
        host = PageScriptHost(watched.session)  # the chat as it stands now: the user's message written
        world = host.world()
        chat = world.get("chat") or []
        if watched.swiped is not None:
            chat.append(copy.deepcopy(watched.swiped))
        messages = prompt_messages(request)
        kept = copy.deepcopy(messages)
        at = len(chat) - 1
        hits = [dict(hit) for hit in request.lore]
        events = request_events(host, watched.action, messages, hits, at=at, before=None)
        sent_settings = copy.deepcopy(events[-1][1][0])  # the page's copy is its own to change
        watched.token = secrets.token_hex(12)
        item = {"type": "script_events", "token": watched.token, "events": events, "world": world,
                "wait_ms": int(self.wait * 1000)}  # fmt: skip
        watched.beat.hand(PageItem(item))
        until = time.monotonic() + self.wait
        while not watched.answered.wait(0.05) and time.monotonic() < until:
            if watched.beat.cancel.is_set():
                return  # stopped: the request is not sent either
        if watched.answer is None:
            said = (f"卡的脚本没有在 {self.wait:g} 秒内听完这一拍请求前的事件（页面没有回答），"
                    "这一拍照常发出、没有它们的改动")  # fmt: skip
            watched.beat.hand(WarningEvent(message=said))
            return
        answer = watched.answer
        if answer.get("late"):
            return  # the page said which listener was slow, in its script panel
        for warning in apply_changes(request, kept, sent_settings, answer):
            watched.beat.hand(WarningEvent(message=warning))

    # -- the page's answer -----------------------------------------------------------------------------

    def answer(self, session: ChatSession, token: str, body: dict[str, Any]) -> None:
        """What the frames' listeners left of the events of the beat waiting under *token*: ``{"chat":
        the prompt's messages, "settings": the request's body}``, or ``{"late": event}``."""
        with self._guard:
            found = next((w for w in self._beats.values() if w.token and w.token == token), None)
        if found is None or found.session is not session:
            raise NotFound("没有在等脚本事件的这一拍（已经发出，或不是这个聊天的）")
        if found.answered.is_set():
            raise BadInput("这一拍的脚本事件已经回答过了")
        found.answer = body
        found.answered.set()


__all__ = ["LIVE_WAIT", "LiveBeats"]
