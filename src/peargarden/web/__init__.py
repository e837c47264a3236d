"""The web app (``pear serve``): a thin front over :mod:`peargarden.app`.

- :mod:`.server` — the FastAPI app factory (errors answered with their ``http_status``);
  :mod:`.static_files` — the pages' files under ``/static/<version>/`` (a hash of them), kept by the
  browser without asking again and renamed by any change;
  :mod:`.guards` — who may drive it (the token off loopback: a page asked for with ``?token=``
  redirected without it, a page without it a form asking for it; no foreign Host or cross-site write;
  plain ASGI middleware); :mod:`.addresses` — the URLs ``pear serve`` prints for ``0.0.0.0``/``::``;
  :mod:`.safety` — frame-blocking headers, bodies capped while they stream and given up after 30 s
  without a byte, ``{"error"}`` bodies for FastAPI's own errors.
- :mod:`.chat_hub` — the open chats and running beats (one ``Beat`` per chat, approval prompts
  waiting for their answer); :mod:`.chat_view` — a row of the service's page model as the page's
  JSON; :mod:`.markdown` — Markdown with the HTML a reply carries → sanitised HTML (documents go
  to the sandboxed frame); :mod:`.status_frame` — a card's status bar as parts of its message (the
  frames that run the card's scripts, what each may load); :mod:`.frame_libraries` — jQuery and
  lodash for those frames, from the XStatic packages; :mod:`.api_status` — what the frames read
  through the page (the chat's variables per message and swipe, the libraries); :mod:`.api_scripts` —
  a card's scripts for its chat page and the calls their frames make.
- One router per concern, ``api_*.py`` (chats and beats, the inspector, cards and imports, card and
  chat files, lorebooks, regex scripts and their allowance, presets and their editor, personas,
  settings, the studio, the tavern panel, the vault; :mod:`.api_groups`: groups and group chats, with
  their two pages; :mod:`.api_first_reply`: a new user's first reply — can the main model answer, a
  connection made inline; :mod:`.api_embedded`: the built-in model installed in the background;
  :mod:`.api_system_file`: the bundled ``SYSTEM.md`` written back from its warning); :mod:`.pages` —
  the Jinja2 pages (a renamed card's old links redirected);
  :mod:`.first_answers` — the answers the chat page carries for the GETs its scripts make as they
  start (``common.js``'s ``api()`` takes each once); the features beside the chat (issue 48):
  :mod:`.api_extras` (their page ``/extras``, their settings, what the chat page reads of them first)
  and a router each (:mod:`.api_translate`, :mod:`.api_expressions`, :mod:`.api_tts`,
  :mod:`.api_pictures`, :mod:`.api_themes`; :mod:`.extras_chats`: a card's chat or a group's; every
  page carries the theme's CSS, ``base.html``), on the chat and group
  pages ``chat_extras.js`` with a module each (``translate.js``, ``expressions.js``, ``tts.js``,
  ``pictures.js``), hooked in beside chat.js; the
  small JS modules per page in ``static/`` (the chat page: ``chat.js`` wiring and beats,
  ``chat_window.js`` the window of a long chat — the last 100 messages, more on scroll, at most 200
  drawn, a beat patched in from the first message it changed —, ``chat_message.js`` one message,
  ``status_frame.js`` a status bar's sandboxed frame and the checks on what it says, ``frame_bridge.js``
  the TavernHelper API inside it, ``frame_guard.js`` its first script, closing what the frame's CSP
  cannot (WebRTC, frames inside the frame but those starting with the guard: ``nested_frames.js``
  makes every frame a script makes so, with the frame world), ``frame_world.js`` the world TavernHelper's frames have
  (``parent``/``top`` as the frame's host, its globals), ``frame_fetch.js`` its ``fetch`` and
  ``XMLHttpRequest`` (a GET of the web through the page, as a remote module), ``script_panel.js`` the
  page's lines of what the frames said (errors, unknown functions, with counts), ``script_frames.js`` a
  card's scripts each in a frame of its own (their calls to :mod:`.api_scripts`, events, buttons, the
  frozen process ended), ``script_bridge.js`` the TavernHelper API inside a script's frame, ``bar_writes.js`` a
  status bar's writes when its card's scripts are allowed (sent as a script's calls);
  ``card_list.js`` the character list's search, sorts, tags and favourites; ``first_reply.js``,
  ``connect_form.js`` and ``embedded_setup.js`` the home page's way to a first reply; ``warnings.js``
  a chat's warnings with the fix the page makes for them; ``pick_messages.js`` "delete messages", on
  the chat and group pages; ``common.js``'s ``toast`` links an error to the setting that fixes it,
  never naming a command).  Browser tests: ``tests/web/``; ``bench/bench_web_chat.py``,
  ``bench/bench_chat_page.py`` and ``bench/bench_card_list.py`` time them.
"""
