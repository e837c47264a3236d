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

The fronts import these names, by job (each loaded from its module on first use); every other name and module
here is private to ``app``:

- The card list and shared lorebooks: list, open, mount, export, ``pear init`` (light) (:mod:`.library`):
  ``cards``, ``open_card``, ``card_summary``, ``lorebook_rows``, ``mount``, ``unmount``, ``export_card_file``,
  ``export_lorebook_file``, ``init_home``.
- The character list at scale: rows kept while card files are unchanged, search, sorts, the user's tags and
  favourites (:mod:`.card_list`): ``CardRow``, ``card_rows``, ``search_cards``, ``set_marks``.
- SillyTavern files in, all checked before anything is written (:mod:`.imports`): ``ImportPlan``,
  ``BookMode``, ``CardExists``, ``RegexAnswerFn``, ``ScriptsAnswerFn``, ``import_files``, ``book_choice``,
  ``conflict_choice``, ``total_size``.
- Personas and their pictures (:mod:`.personas`): ``persona_names``, ``load_persona``, ``save_persona``,
  ``delete_persona``, ``persona_avatar``, ``save_avatar``.
- Preset files and a connection's samplers (:mod:`.preset_files`): ``read_preset_view``, ``use_preset``,
  ``edit_prompt``, ``edit_order``, ``edit_samplers``, ``connection_samplers``, ``set_connection_samplers``.
- Quick Reply sets, the global ones and a chat's own links (:mod:`.quick_replies`): ``quick_reply_sets``,
  ``save_quick_reply_set``, ``delete_quick_reply_set``, ``import_quick_reply_set``,
  ``export_quick_reply_set``, ``set_global_quick_replies``, ``chat_quick_reply_links``.
- Group chats as data: create, list, edit, mute, delete, SillyTavern group files in and out (:mod:`.groups`):
  ``GROUP_MODE_NAMES``, ``group_list``, ``open_group``, ``group_summary``, ``create_group``, ``edit_group``,
  ``set_muted``, ``delete_group``, ``export_group``, ``import_group_files``.
- The asset vault: snapshots, background snapshots, crash leftovers (:mod:`.snapshots`): ``Snapshots``,
  ``background_snapshots``, ``clear_leftovers``.
- The bundled ``SYSTEM.md`` written back from its warning, with undo (:mod:`.system_file`):
  ``SYSTEM_FILE_FIX``, ``warning_fix``, ``write_bundled_system``, ``undo_bundled_system``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peargarden.app._lazy import lazy_names

if TYPE_CHECKING:
    from .card_list import CardRow, card_rows, set_marks
    from .card_list import search as search_cards
    from .groups import GROUP_MODES as GROUP_MODE_NAMES
    from .groups import (
        create_group,
        delete_group,
        edit_group,
        export_group,
        group_summary,
        import_group_files,
        set_muted,
    )
    from .groups import group as open_group
    from .groups import groups as group_list
    from .imports import (
        BookMode,
        CardExists,
        ImportPlan,
        RegexAnswerFn,
        ScriptsAnswerFn,
        book_choice,
        conflict_choice,
        import_files,
        total_size,
    )
    from .library import card as open_card
    from .library import (
        card_summary,
        cards,
        export_card_file,
        export_lorebook_file,
        init_home,
        lorebook_rows,
        mount,
        unmount,
    )
    from .personas import delete_persona, load_persona, persona_avatar, persona_names, save_avatar, save_persona
    from .preset_files import (
        connection_samplers,
        edit_order,
        edit_prompt,
        edit_samplers,
        read_preset_view,
        set_connection_samplers,
        use_preset,
    )
    from .quick_replies import (
        chat_quick_reply_links,
        delete_quick_reply_set,
        export_quick_reply_set,
        import_quick_reply_set,
        quick_reply_sets,
        save_quick_reply_set,
        set_global_quick_replies,
    )
    from .snapshots import Snapshots, background_snapshots, clear_leftovers
    from .system_file import SYSTEM_FILE_FIX, undo_bundled_system, warning_fix, write_bundled_system

__all__ = [
    "GROUP_MODE_NAMES",
    "SYSTEM_FILE_FIX",
    "BookMode",
    "CardExists",
    "CardRow",
    "ImportPlan",
    "RegexAnswerFn",
    "ScriptsAnswerFn",
    "Snapshots",
    "background_snapshots",
    "book_choice",
    "card_rows",
    "card_summary",
    "cards",
    "chat_quick_reply_links",
    "clear_leftovers",
    "conflict_choice",
    "connection_samplers",
    "create_group",
    "delete_group",
    "delete_persona",
    "delete_quick_reply_set",
    "edit_group",
    "edit_order",
    "edit_prompt",
    "edit_samplers",
    "export_card_file",
    "export_group",
    "export_lorebook_file",
    "export_quick_reply_set",
    "group_list",
    "group_summary",
    "import_files",
    "import_group_files",
    "import_quick_reply_set",
    "init_home",
    "load_persona",
    "lorebook_rows",
    "mount",
    "open_card",
    "open_group",
    "persona_avatar",
    "persona_names",
    "quick_reply_sets",
    "read_preset_view",
    "save_avatar",
    "save_persona",
    "save_quick_reply_set",
    "search_cards",
    "set_connection_samplers",
    "set_global_quick_replies",
    "set_marks",
    "set_muted",
    "total_size",
    "undo_bundled_system",
    "unmount",
    "use_preset",
    "warning_fix",
    "write_bundled_system",
]

_LAZY = {
    "BookMode": ".imports",
    "CardExists": ".imports",
    "CardRow": ".card_list",
    "GROUP_MODE_NAMES": ".groups:GROUP_MODES",
    "ImportPlan": ".imports",
    "RegexAnswerFn": ".imports",
    "SYSTEM_FILE_FIX": ".system_file",
    "ScriptsAnswerFn": ".imports",
    "Snapshots": ".snapshots",
    "background_snapshots": ".snapshots",
    "book_choice": ".imports",
    "card_rows": ".card_list",
    "card_summary": ".library",
    "cards": ".library",
    "chat_quick_reply_links": ".quick_replies",
    "clear_leftovers": ".snapshots",
    "conflict_choice": ".imports",
    "connection_samplers": ".preset_files",
    "create_group": ".groups",
    "delete_group": ".groups",
    "delete_persona": ".personas",
    "delete_quick_reply_set": ".quick_replies",
    "edit_group": ".groups",
    "edit_order": ".preset_files",
    "edit_prompt": ".preset_files",
    "edit_samplers": ".preset_files",
    "export_card_file": ".library",
    "export_group": ".groups",
    "export_lorebook_file": ".library",
    "export_quick_reply_set": ".quick_replies",
    "group_list": ".groups:groups",
    "group_summary": ".groups",
    "import_files": ".imports",
    "import_group_files": ".groups",
    "import_quick_reply_set": ".quick_replies",
    "init_home": ".library",
    "load_persona": ".personas",
    "lorebook_rows": ".library",
    "mount": ".library",
    "open_card": ".library:card",
    "open_group": ".groups:group",
    "persona_avatar": ".personas",
    "persona_names": ".personas",
    "quick_reply_sets": ".quick_replies",
    "read_preset_view": ".preset_files",
    "save_avatar": ".personas",
    "save_persona": ".personas",
    "save_quick_reply_set": ".quick_replies",
    "search_cards": ".card_list:search",
    "set_connection_samplers": ".preset_files",
    "set_global_quick_replies": ".quick_replies",
    "set_marks": ".card_list",
    "set_muted": ".groups",
    "total_size": ".imports",
    "undo_bundled_system": ".system_file",
    "unmount": ".library",
    "use_preset": ".preset_files",
    "warning_fix": ".system_file",
    "write_bundled_system": ".system_file",
}

__getattr__ = lazy_names(__name__, _LAZY)
