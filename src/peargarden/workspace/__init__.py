"""The data folder on disk (``PEARGARDEN_HOME``): every read and write of the user's files.

- :mod:`.home` (paths), :mod:`.atomic` (crash-safe writes: temp file, fsync, rename; ``write_cache``
  for caches), :mod:`.inputs` (size-checked reads), :mod:`.text_files` (hand-edited files decoded by
  the import rules: BOM, UTF-16, GBK named in the error, CRLF).
- :mod:`.config` (``config.toml`` + ``卡.json`` → ``Settings``), :mod:`.cards` (card folders, mounted
  books), :mod:`.library` (shared lorebooks and presets), :mod:`.regex_scripts` (global regex scripts,
  a card's allowance), :mod:`.script_allowance` (a card's answer for its TavernHelper scripts),
  :mod:`.seed` (``pear init``).
- :mod:`.chats` — session files ``cards/<card>/chats/<id>/session.jsonl`` (fsynced appends only; a long
  chat's index in ``<id>/.cache/session.idx``); :mod:`.chat_lock` — one beat per chat across processes;
  :mod:`.locking` — cross-process file locks under ``vault/locks/``; :mod:`.groups` — group folders
  ``groups/<name>/`` (SillyTavern's ``group.json``, our ``群.json``, the chats as a card's).
- :mod:`.importer` / :mod:`.exporter` — SillyTavern files in (all checked before anything is written)
  and out; :mod:`.sandbox_context` — the realpath edge of the sandbox.
- :mod:`.vault` — the asset vault: content-addressed snapshots of the whole folder, diff, restore.
- :mod:`.tokenizer_cache` — the tokenizers' rank tables kept in ``vault/cache/`` (checked on read,
  rebuilt when anything is wrong), so a process does not parse them again.
"""
