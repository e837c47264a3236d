"""Group chats: one beat, several speakers (see ``docs/group-chats.md``).

- :mod:`.scene` — what every speaker of a round shares (the group, its members, who speaks now);
  each member's ``GroupBeatEnv``.
- :mod:`.rounds` — a group chat's branch as SillyTavern's chat array; regenerate's, swipe's and
  continue's plans over the session tree.
- :mod:`.tavern` — SillyTavern's request for the member speaking (byte-exact with 1.18).
- :mod:`.stage` — the stage for the member speaking: its own layered prompt, the round's scene,
  ``next_speaker``.
- :mod:`.table` — the group's mode table (stage, tavern).
"""
