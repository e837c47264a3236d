"""The tavern mode: SillyTavern's exact Chat Completion request for a card (one generation, no tools).

- :mod:`.setup` — the request builder over :mod:`peargarden.tavern` (the chat's ST lines kept between
  beats, chat metadata recorded on the branch, a real generation rather than ST's dry run, so a
  preview is the beat).
- :mod:`.sources` — a card's worlds and preset by name (also for ``pear tavern assemble|set`` and the
  web's tavern panel); the chat's file memo.
- :mod:`.variables` — the request's late step (``<% %>`` templates, then TavernHelper's variable
  macros, on the finished messages) and the after-beat step (MVU's handling of the reply).
"""
