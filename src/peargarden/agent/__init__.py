"""The agent: the tool loop over a provider stream, tools, thinking levels, events, approvals.

Split by concern: :mod:`.tools` (the tool interface), :mod:`.events` (what a beat emits),
:mod:`.approvals` (judge + front answer), :mod:`.arguments` (parse, repair, validate tool arguments),
:mod:`.thinking` (levels and defaults), :mod:`.loop` (one beat), :mod:`.record` (beat → session
entries), :mod:`.result` (``BeatResult``: what a finished beat did, as fronts and modes read it).
"""
