"""Which models a chat talks to, and the settings page.

- :mod:`.connections` — the one connection builder: main and side model, ``profile`` kept, timeouts
  by flag over config; :mod:`.stored_keys` — keys stored from the settings page.
- :mod:`.config_edit` — ``config.toml`` edited with its comments kept; :mod:`.settings_view` — the
  settings page (config read, keys stored, model lists); :mod:`.connection_profiles` — SillyTavern's
  connection profiles (``[profiles.NAME]``: connection, model, thinking, preset, applied at once).
- :mod:`.model_lists` — an endpoint's model list; :mod:`.local_models` — the embedded models: list,
  fetch; :mod:`.first_reply` — a new user's first reply: can the main model answer, and a connection
  made in one step (address, key, model list, a test) for the home page; :mod:`.embedded_setup` — the
  embedded model installed (runtime, model, self-test), for ``pear models --install`` and the page;
  :mod:`.tokenizers` — the token counters' tables cached in the data folder.
"""
