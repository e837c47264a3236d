"""The data folder's shared things.

- :mod:`.library` — the card list and shared lorebooks: list, mount, export, ``pear init`` (light);
  :mod:`.card_list` — the character list at scale: rows kept in memory while card files are
  unchanged, search (name, creator, tags, creator notes; width and case folded), sorts, the user's
  tags and favourites in ``卡.json``.
- :mod:`.imports` — SillyTavern files in, all checked before anything is written.
- :mod:`.personas` — personas, their pictures, the in-chat switch; :mod:`.preset_files` — preset
  files and a connection's samplers; :mod:`.json_files` — JSON files written back in their own style.
- :mod:`.groups` — group chats as data: create, list, edit, mute, delete; SillyTavern group files
  and group chats in and out.
- :mod:`.snapshots` — the asset vault for the fronts: take, list, diff, restore, undo points, crash
  leftovers, background snapshots; :mod:`.system_file` — the bundled ``SYSTEM.md`` written back from
  its warning, with undo through the vault.
"""
