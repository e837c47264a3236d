"""The tavern mode: SillyTavern's exact Chat Completion request for a card (one generation, no tools).

- :mod:`.setup` — the request builder over :mod:`peargarden.tavern` (the chat's ST lines kept between
  beats, chat metadata recorded on the branch, a real generation rather than ST's dry run, so a
  preview is the beat).
- :mod:`.sources` — a card's worlds and preset by name (also for ``pear tavern assemble|set`` and the
  web's tavern panel).
"""
