"""What a front draws around a chat's messages, read from its read model (:mod:`.page_source`): each message's own time,
SillyTavern's swipe arrows for the last reply, and the context bar.

Times: a message imported from SillyTavern carries its ``send_date`` (in its line, see
``sessions.sillytavern.st_original``; a reply split into swipes takes its own swipe's ``swipe_info`` date), so it shows
when it was written there, not when it was imported; a ``send_date`` that cannot be read shows no
time at all rather than a wrong one.  Messages written here show their entry's timestamp.

The context bar: the last request's tokens against the budget it was built for.  Tavern mode builds
against the preset in use (``openai_max_context``, of which ``openai_max_tokens`` is kept for the
reply) and counts the prompt as SillyTavern does; the request carries both (``ChatRequest.budget``).
Other modes measure the request against the story's ``[story] context_tokens``, or the model's own
window when that is smaller and known (the embedded model runs at most 8192 tokens and drops the
oldest turns past it, so a bar against 32768 would show a fifth of what is used).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

from peargarden.errors import NotFound, PearError
from peargarden.formats import parse_send_date
from peargarden.modes.tavern.sources import read_named_preset
from peargarden.sessions import ops
from peargarden.sessions.entries import Entry
from peargarden.sessions.sillytavern import st_original
from peargarden.sessions.tree import SessionTree

from .chat_files import context_tokens
from .page_source import PageSource


def message_time(entry: Entry, tree: SessionTree) -> str | None:
    """ISO 8601 time the message was written (no zone: the reader's local time), or ``None``."""
    line = st_original(tree, entry)
    if line is None:
        return entry.timestamp or None
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


def context_fill(source: PageSource, rounds: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"tokens", "limit", "reserve", "source"}`` for the context bar; *rounds* are the ledgers of
    the last beat's own requests (the inspector's), the newest last.  ``source`` says which budget:
    ``"preset"`` (tavern mode's) or ``"story"``.  Before any request: the current mode's budget."""
    if rounds:
        last = rounds[-1]
        budget = last.get("budget")
        if isinstance(budget, dict):
            return {"tokens": _int(budget.get("tokens")), "limit": _int(budget.get("context")),
                    "reserve": _int(budget.get("response")), "source": "preset"}  # fmt: skip
        return {"tokens": _int(last.get("total_tokens")), **_story_budget(source)}
    if source.mode == "tavern":
        context, response = tavern_window(source)
        return {"tokens": 0, "limit": context, "reserve": response, "source": "preset"}
    return {"tokens": 0, **_story_budget(source)}


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and math.isfinite(value) else 0


def _story_budget(source: PageSource) -> dict[str, Any]:
    limit = context_tokens(source.home, source.card)
    window = model_window(source.provider)  # through the beat's own wrapper, as a beat sees it
    return {"limit": min(limit, window) if window else limit, "reserve": 0, "source": "story"}


def model_window(provider: Any) -> int | None:
    """The context window a provider runs the model with, when it knows one (the embedded model's
    ``n_ctx``, read from the GGUF header); ``None`` for an endpoint, which does not say."""
    try:
        window = getattr(provider, "n_ctx", None)
    except (PearError, OSError):  # the model file is missing or broken: the beat will say so
        return None
    return window if isinstance(window, int) and window > 0 else None


def tavern_window(source: PageSource) -> tuple[int, int]:
    """(context size, response length) tavern mode builds the next request for: SillyTavern's
    defaults, then the preset in use, then the card's own ``卡.json`` ``tavern.oai`` values; a value
    that is no number counts as SillyTavern's default, as the assembly counts it."""
    from peargarden.tavern.state import apply_preset, effective_settings  # on demand: tavern mode's

    settings = source.settings
    version = settings.st_version
    oai = effective_settings({}, version)["oai_settings"]
    if settings.preset:
        with contextlib.suppress(NotFound):  # a lost preset: the beat says so, the bar shows the defaults
            oai = apply_preset(oai, read_named_preset(source.home, settings.preset), version=version)
    tavern = source.card.settings().get("tavern")
    extra = tavern.get("oai") if isinstance(tavern, dict) else None
    if isinstance(extra, dict):
        oai = apply_preset(oai, extra, version=version)
    return _number(oai.get("openai_max_context"), 4095), _number(oai.get("openai_max_tokens"), 300)


def _number(value: Any, default: int) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return int(number) if math.isfinite(number) else default
