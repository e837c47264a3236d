"""What SillyTavern users switch on beside the chat, as a service: each usable from the page and the
CLI, each off until configured (a page or command then says so; nothing fails).

- :mod:`.settings` — the ``[translate]``, ``[tts]``, ``[pictures]``, ``[expressions]`` and ``[theme]``
  tables of ``config.toml`` read and edited, and the back ends' keys (by environment variable, a
  connection's, or stored from the page under ``keys/``, never in config.toml by us).
- :mod:`.chat_files` — a chat's own files beside its session: what the features keep per message.
- :mod:`.translation` — a message translated and kept beside the original (``pear translate``).
- :mod:`.expressions` — the expression label of a reply (side model, cached per message, or the
  keyword fallback) and the card's sprite for it (``pear expression``); :mod:`.sprites` — a card's
  sprite set: imported from SillyTavern's folder layout, a zip, or a CHARX card's emotion assets.
- :mod:`.speech` — a message spoken by the configured voice (``pear tts``), kept per message.
- :mod:`.pictures` — a picture of the chat (``pear imagine``): its prompt from the side model, the
  picture from the image server, kept with the chat and shown as a SillyTavern image message.
- :mod:`.themes` — SillyTavern themes in and out, light or dark, user CSS; the CSS every page carries.
"""
