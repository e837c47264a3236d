"""Work mode (写卡维护): the model edits the card itself, under the sandbox.

- :mod:`.setup` — work mode, and the role-play view of the other modes (work beats as 【写卡维护】
  lines); :mod:`.request` — its request; :mod:`.switch` — ``conversation_mode``, the model's switch.
- :mod:`.file_tools`, :mod:`.bash_tool`, :mod:`.card_tool` — the tools, each call judged first.
- :mod:`.project` — the card project ``创作/``: expand, check, apply, undo.
"""
