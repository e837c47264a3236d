"""SillyTavern's slash commands, one module per family:

- :mod:`.core` — the language (``/pass``, ``/run``, ``/let``, ``/var``, ``/if``, ``/while``, ``/times`` …)
- :mod:`.variables` — chat and global variables (``/setvar`` …, ``/listvar``)
- :mod:`.numbers` — arithmetic, ``/len``, ``/sort``, ``/rand``
- :mod:`.strings` — ``/upper`` ``/lower`` ``/substr`` ``/trimstart`` ``/trimend`` ``/replace`` ``/test`` ``/match``
- :mod:`.chat` — chat edits and generation (``/send`` … ``/gen`` ``/genraw`` ``/trigger``)
- :mod:`.prompts` — ``/inject`` and the Author's Note (``/note`` ``/depth`` ``/freq`` ``/pos``)
- :mod:`.dialogs` — ``/popup`` ``/input`` ``/buttons`` (the host asks the person) and ``/tokens`` ``/trimtokens``
- :mod:`.quickreplies` — ``/qr-*`` and running a Quick Reply by ``Set.Label``
"""

from __future__ import annotations

from functools import cache

from ..registry import Registry
from . import chat, core, dialogs, numbers, prompts, quickreplies, strings, variables


@cache
def default_registry() -> Registry:
    """Every command Pear Garden runs (built once; a registry is read-only after)."""
    return Registry(
        [
            *core.COMMANDS,
            *variables.COMMANDS,
            *numbers.COMMANDS,
            *strings.COMMANDS,
            *chat.COMMANDS,
            *prompts.COMMANDS,
            *dialogs.COMMANDS,
            *quickreplies.COMMANDS,
        ]
    )


__all__ = ["default_registry"]
