"""One card's files and the editors over them.

- :mod:`.card_files` — create, rename, new picture, duplicate, delete into the vault, export;
  :mod:`.avatars` — card and persona pictures for the pages: whole, small copies, the one placeholder.
- :mod:`.card_project` — the card project ``创作/`` for ``pear card`` and the studio;
  :mod:`.studio` — the card studio (fields, greetings, lorebook entries changed in place).
- :mod:`.card_regex` — a card's regex scripts; :mod:`.regex_allowance` — may they run (asked once).
- :mod:`.prompt_files` — the ``#`` entries of the prompt files: list, switch, edit;
  :mod:`.lore_books` — lorebooks and their entries.
- :mod:`.declarations` — preset declaration and the preset panel (the side-model labeller);
  :mod:`.tavern_controls` — ``pear tavern set`` and the web's tavern panel.
"""
