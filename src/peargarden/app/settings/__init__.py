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

The fronts import these names, by job (each loaded from its module on first use); every other name and module
here is private to ``app``:

- A chat's connection given by flags, timeouts by flag over config (:mod:`.connections`): ``Connection``,
  ``flag_timeouts``.
- The settings page: config read, keys stored, a connection's models (:mod:`.settings_view`):
  ``settings_page``, ``save_connection_key``, ``connection_models``.
- ``config.toml`` edited with its comments kept (:mod:`.config_edit`): ``ConfigValue``, ``set_values``.
- SillyTavern's connection profiles (:mod:`.connection_profiles`): ``list_profiles``, ``active_profile``,
  ``save_profile``, ``apply_profile``, ``delete_profile``.
- An endpoint's model list (:mod:`.model_lists`): ``list_models``.
- The embedded models: check, fetch, choose and switch (:mod:`.local_models`): ``check_embedded``,
  ``check_limits``, ``fetch_embedded``, ``require_safe``, ``choose_embedded``, ``use_local_model``,
  ``local_path_value``.
- A new user's first reply: can the main model answer, a connection made in one step (:mod:`.first_reply`):
  ``readiness``, ``endpoint``, ``endpoint_models``, ``try_endpoint``, ``connect``, ``use_embedded``.
- The embedded model installed (runtime, model, self-test), for ``pear models --install`` and the page
  (:mod:`.embedded_setup`): ``Setup``, ``SetupJob``, ``SetupSteps``, ``install_embedded``, ``real_steps``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peargarden.app._lazy import lazy_names

if TYPE_CHECKING:
    from .config_edit import Value as ConfigValue
    from .config_edit import set_values
    from .connection_profiles import active_profile, apply_profile, delete_profile, list_profiles, save_profile
    from .connections import Connection, flag_timeouts
    from .embedded_setup import Setup, SetupJob, real_steps
    from .embedded_setup import Steps as SetupSteps
    from .embedded_setup import install as install_embedded
    from .first_reply import connect, endpoint, endpoint_models, readiness, try_endpoint, use_embedded
    from .local_models import (
        check_embedded,
        check_limits,
        choose_embedded,
        fetch_embedded,
        local_path_value,
        require_safe,
        use_local_model,
    )
    from .model_lists import list_models
    from .settings_view import connection_models, save_connection_key
    from .settings_view import settings_view as settings_page

__all__ = [
    "ConfigValue", "Connection", "Setup", "SetupJob", "SetupSteps", "active_profile", "apply_profile",
    "check_embedded", "check_limits", "choose_embedded", "connect", "connection_models", "delete_profile",
    "endpoint", "endpoint_models", "fetch_embedded", "flag_timeouts", "install_embedded", "list_models",
    "list_profiles", "local_path_value", "readiness", "real_steps", "require_safe", "save_connection_key",
    "save_profile", "set_values", "settings_page", "try_endpoint", "use_embedded", "use_local_model",
]

_LAZY = {
    "ConfigValue": ".config_edit:Value",
    "Connection": ".connections",
    "Setup": ".embedded_setup",
    "SetupJob": ".embedded_setup",
    "SetupSteps": ".embedded_setup:Steps",
    "active_profile": ".connection_profiles",
    "apply_profile": ".connection_profiles",
    "check_embedded": ".local_models",
    "check_limits": ".local_models",
    "choose_embedded": ".local_models",
    "connect": ".first_reply",
    "connection_models": ".settings_view",
    "delete_profile": ".connection_profiles",
    "endpoint": ".first_reply",
    "endpoint_models": ".first_reply",
    "fetch_embedded": ".local_models",
    "flag_timeouts": ".connections",
    "install_embedded": ".embedded_setup:install",
    "list_models": ".model_lists",
    "list_profiles": ".connection_profiles",
    "local_path_value": ".local_models",
    "readiness": ".first_reply",
    "real_steps": ".embedded_setup",
    "require_safe": ".local_models",
    "save_connection_key": ".settings_view",
    "save_profile": ".connection_profiles",
    "set_values": ".config_edit",
    "settings_page": ".settings_view:settings_view",
    "try_endpoint": ".first_reply",
    "use_embedded": ".first_reply",
    "use_local_model": ".local_models",
}

__getattr__ = lazy_names(__name__, _LAZY)
