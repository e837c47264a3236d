"""The stage mode, at the I/O edge of the pure :mod:`peargarden.stage`.

- :mod:`.setup` — the mode's setup (which only reads) and its prepare step (re-declare a changed
  preset, refresh the ``AGENTS.md`` mirror); :mod:`.materials` — the card's files from disk.
- :mod:`.request` — the per-beat request builder; :mod:`.story` / :mod:`.prose` — the budgeted story
  request, derived over a window of the newest messages as far back as the budget reaches, and the
  per-chat prose memo.
- :mod:`.tools` — lore search and write, the draft sheet, ``ask``.
- :mod:`.memory` — story memory: the mode's ``story`` and ``after_beat`` steps (scene notes,
  compaction in bounded side requests, the card's resident memory).
- :mod:`.preset` — preset declaration: cache, side call, the card's files, samplers.
- :mod:`.variables` — an MVU card on the stage: state block, the ``variables_update`` tool (JSON
  Patch, the ``[mvu_update]`` rules as its guidance), update blocks applied and stripped, the side
  model updating with thinking off.
"""
