"""MagVarUpdate (MVU) variables, pure: what a reply's update commands do to a chat's variables.

The values are JSON values as JavaScript holds them (see ``jsvalues``); every function takes the
variables it works on and returns or changes them, with no clock, file or network.  Checked against
MVU's recorded unit cases and two recorded chats (``tests/variables/``).

- :mod:`.jsvalues` (``undefined``, number forms, key order, ``JSON.stringify``), :mod:`.lodash`
  (paths: get / has / set / unset / merge), :mod:`.jsdate`.
- :mod:`.commands` — ``_.set/insert/assign/remove/unset/delete/add(…);`` found by bracket and quote
  matching, ``//reason``, ``<JSONPatch>`` ops, ``path_fix``; :mod:`.command_value` — a command's
  value (JSON, literals, math via :mod:`.mathexpr`, YAML, trimmed text).
- :mod:`.parse_string` — YAML, then JSON5, then repaired JSON, over :mod:`.yaml_load` (PyYAML with the
  JS ``yaml`` package's 1.2 core schema), :mod:`.json5` and :mod:`.json_repair` (own readers: the
  Python libraries read differently).
- :mod:`.update` — ``update_variables``: display and delta lines, arithmetic, ``[value, "desc"]``
  leaves, refusals as warnings (with a card's zod schema, every command is checked against it);
  :mod:`.schema` — the generated schema and its extensibility markers; :mod:`.template`.
- :mod:`.initvar` — ``[initvar]`` seeding (disabled entries too, every greeting swipe);
  :mod:`.history` — the variables in force (``chat[i].variables[swipe_id]``, ``variables_at``);
  :mod:`.message` — ``handle_variables_in_message``, the status placeholder.
- :mod:`.macros` + :mod:`.yaml_dump` — ``{{get_/format_…_variable::…}}``, YAML as the ``yaml`` package
  prints it; :mod:`.ejs` + :mod:`.templates_js` — ``<% %>`` card templates in QuickJS (the one module
  that runs an engine, imported lazily; no files, no network, time and memory limits).
- :mod:`.zod_schema` — a card's ``registerMvuSchema`` script run in QuickJS over our own
  ``zod_lite.js`` / ``lodash_lite.js`` / ``mvu_schema.js``: the seed parsed, commands clamped or refused;
  :mod:`.schema_script` — a script read as text (does it register a schema, what it imports, its body);
  :mod:`.script_budget` — the CPU its scripts may spend, per use and per beat (the clock passed in).
- :mod:`.bounds` — how deep and how large a value may be (100 levels, 1,000,000 characters of
  ``stat_data``); :mod:`.yaml_load` also counts aliases as the ``yaml`` package does (100).
- :mod:`.marks` — a lorebook as MVU reads it and the ``[initvar]`` / ``[mvu_update]`` comment marks.

A chat decides whether MVU keeps its variables on the light reads (``marks``, ``history``,
``schema_script``); the engine (``initvar``, ``update``, ``message``, ``zod_schema`` and the parsers,
math and dates under them) is imported where MVU runs (``tests/kit/imports.py``: ``ON_DEMAND``).
"""
