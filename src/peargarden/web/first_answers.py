"""Answers a page carries for the GETs its scripts make as they start.

The chat page's scripts read the chat's last window, the settings (connection profiles), the personas
and the card's regex allowance before they draw anything: requests that are each a round trip and a
turn of the server's and the browser's machinery, before the first message shows.  The page now
carries those answers (``<script type="application/json" id="first-answers">``, escaped by
Jinja's ``tojson`` so no text inside can close the element) and ``common.js``'s ``api()`` takes each one
for the first GET of its path; later GETs go to the server as before.

Keys are the paths as the scripts ask for them, percent-decoded (``decodeURIComponent`` on the page):
the chat page's ``/api/chats/<card>/<chat>?last=100``.  An answer that cannot be made here (a chat file
that does not read) is left out: the page asks for it and shows the error as it always did.  The
card's chat list is not carried: reading it may refresh the kept chat summaries (``vault/cache``), and
a page GET changes nothing in the data folder (tests/web/test_web_safety.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import Request

from peargarden.app.cards import allowance_state
from peargarden.errors import PearError

from .api_chat import WINDOW, Window, chat_state
from .api_extras import chat_extras
from .api_personas import personas
from .api_settings import settings
from .deps import home_of, hub_of


def _answered(parts: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for path, answer in parts.items():
        try:
            answers[path] = answer()
        except PearError:
            continue  # the page asks, and shows the error where it shows it for a failed request
    return answers


def chat_page_answers(request: Request, card: str, chat_id: str) -> dict[str, Any]:
    """What the chat page's scripts (chat.js, regex_allow.js, persona_switch.js, chat_extras.js) ask for first."""
    return _answered({
        f"/api/chats/{card}/{chat_id}?last={WINDOW}": lambda: chat_state(hub_of(request).chat(card, chat_id),
                                                                        Window(last=WINDOW)),
        "/api/settings": lambda: settings(request),
        "/api/personas": lambda: personas(request),
        f"/api/cards/{card}/regex-allowance": lambda: allowance_state(home_of(request), card),
        f"/api/chats/{card}/{chat_id}/extras": lambda: chat_extras(request, card, chat_id),
    })  # fmt: skip
