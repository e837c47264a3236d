"""The web app (``pear serve``): a thin front over :mod:`peargarden.app`.

- :mod:`.server` — the FastAPI app factory (errors answered with their ``http_status``);
  :mod:`.guards` — who may drive it (the token off loopback, no foreign Host or cross-site write; plain
  ASGI middleware); :mod:`.safety` — frame-blocking headers, bodies capped while they stream,
  ``{"error"}`` bodies for FastAPI's own errors.
- :mod:`.chat_hub` — the open chats and running beats (one ``Beat`` per chat, approval prompts
  waiting for their answer); :mod:`.chat_view` — a row of the service's page model as the page's
  JSON; :mod:`.markdown` — Markdown → sanitised HTML.
- One router per concern, ``api_*.py`` (chats and beats, the inspector, cards and imports, card and
  chat files, lorebooks, regex scripts and their allowance, presets and their editor, personas,
  settings, the studio, the tavern panel, the vault; :mod:`.api_groups`: groups and group chats, with
  their two pages); :mod:`.pages` — the Jinja2 pages; the small JS
  modules per page in ``static/``.  Browser tests: ``tests/web/``.
"""
