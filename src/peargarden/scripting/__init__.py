"""TavernHelper's API for a card's scripts: one implementation, over a host, with the runtime that
runs the scripts (pure: the scripts' own process is started by ``app/play/script_process.py``).

- :mod:`.host` — what the API needs from where the script runs (``ScriptHost``), ``ScriptError``
- :mod:`.api` — the functions by their TavernHelper names (answered at once, or promised), and
  those refused with their reasons; :mod:`.variables`, :mod:`.messages`, :mod:`.worldbooks` — their
  semantics, TavernHelper 4.9.3's, checked against the recordings of ``../shared/tavernhelper``;
  :mod:`.card_settings` — the card's ``tavern_helper`` field read and saved as TavernHelper does
- ``prelude.js`` — the globals a script sees in QuickJS; :mod:`.quickjs_side` —
  the context that runs it; :mod:`.session` — the event loop on the host's side (promised calls,
  tavern events awaited listener by listener, virtual timers)
- :mod:`.page_source` — a card's code for a sandboxed frame of the page (``top`` read as the frame's
  host, which no script can put in its place)
- :mod:`.st_host` — the host over SillyTavern's state; :mod:`.st_beat` — a chat opened, a send and
  a swipe with SillyTavern 1.18's events; :mod:`.replay` — a recorded case (``pear script replay``)
"""
