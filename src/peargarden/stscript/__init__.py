"""STscript, SillyTavern's slash-command language, exact with SillyTavern 1.18 (pure: no I/O).

- :mod:`.syntax` — the parsed tree and the two errors (parser, execution) with SillyTavern's wording
- :mod:`.parser` — text → tree, quirks included (a newline is no separator, ``x=1`` is a named argument)
- :mod:`.runtime` — scopes, closures, the pipe, ``run_script`` (SillyTavern's error handling)
- :mod:`.values` — JavaScript's numbers, strings, JSON and members as the commands see them
- :mod:`.registry` — commands with their arguments and help; :mod:`.commands` — the commands
- :mod:`.quickreplies` — Quick Reply sets (SillyTavern's files)

What a script changes outside itself goes through a host (``runtime.Host`` and the methods the
commands call): the tavern replay's host over SillyTavern's state (``tavern/slash_host.py``), and
the app's host over a real chat.
"""
