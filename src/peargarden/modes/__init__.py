"""One home per way to play: ``stage`` (the agent stage), ``tavern`` (SillyTavern's exact request),
``work`` (写卡维护, the card project).  Each sub-package holds its setup, request builder, tools and disk
edge; the service picks one per beat from the mode table it is given.

- :mod:`.base` — ``BeatEnv``, ``PlayMode`` (setup, tool mode, tags, and the steps around a beat:
  ``prepare``, ``story``, ``after_beat``), ``BranchView`` (the chat as a step sees it), ``SideCall``,
  ``chat_memo`` (a mode's per-chat memo), ``ModeTable`` (a table whose rows are made on first use:
  a stage chat never loads SillyTavern's assembly or the group modes).
- :mod:`.table` — the literal mode table ``MODES`` (nothing registers itself); :mod:`.side` — a
  ``SideCall`` over a provider; :mod:`.plain` — card fields as a system prompt, for tests.
- :mod:`.chat_variables` — a branch as SillyTavern's chat with its MVU / TavernHelper records, and
  MVU's work (greeting seed, the user's record, the reply's update), shared by tavern and stage.
"""
