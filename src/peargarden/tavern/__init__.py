"""SillyTavern-exact Chat Completion prompt assembly (tavern mode), for 1.12.6 or 1.18.0.

``state.compat`` (``peargarden.tavern.version.for_version``) holds one named switch per
difference between the two releases; ``effective_settings(st, version)`` and
``apply_preset(..., version=)`` give each release's defaults.

Public entry points::

    from peargarden.tavern.state import TavernState, effective_settings, apply_preset
    from peargarden.tavern.assemble import generate, Assembly, LedgerRow   # one generation
    from peargarden.tavern.request import request_body                      # the JSON body ST sends
    from peargarden.tavern.replay import CaseData, replay                   # oracle case replay
    from peargarden.tavern.controls import apply_control, user_state        # user controls / own data
    from peargarden.tavern.group import Cast, Group                          # a group chat's cast
    from peargarden.tavern.group_turns import RoundCall, choose_speakers     # who speaks next
    from peargarden.tavern.group_round import speak_as, speaker_request      # one speaker's request
    from peargarden.tavern.group_replay import replay_group                  # group oracle case replay

``generate(state, gen_type)`` (``normal``, ``regenerate``, ``swipe``, ``continue``, ``impersonate``)
returns the messages, the ledger (slot, role, tokens, first characters per message), warnings, the
budget numbers and the in-context marker; it mutates ``state.chat_metadata`` as ST does
(variables, timed world info, ``lastInContextMessageId``) and never raises for bad content.
A state whose ``cast`` is set is a group chat: ``card`` / ``avatar`` are the member speaking, and
assembly does what SillyTavern changes in a group (see ``docs/group-chats.md``).

Timed world info counts the chat the scan gets (non-hidden messages, minus the swiped one), as ST
does.  A caller that builds a new state for every generation should keep one
``peargarden.worldinfo.LorebookCache`` per chat and pass it in (``user_state(..., lorebooks=)`` or
``state.lorebooks``) with the same book dicts each time, so books are not parsed again.
"""
