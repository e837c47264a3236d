"""One card's files and the editors over them.

- :mod:`.card_files` — create, rename, new picture, duplicate, delete into the vault, export;
  :mod:`.avatars` — card and persona pictures for the pages: whole, small copies, the one placeholder.
- :mod:`.card_project` — the card project ``创作/`` for ``pear card`` and the studio;
  :mod:`.studio` — the card studio (fields, greetings, lorebook entries changed in place).
- :mod:`.card_regex` — a card's regex scripts; :mod:`.regex_allowance` — may they run (asked once).
- :mod:`.prompt_files` — the ``#`` entries of the prompt files: list, switch, edit;
  :mod:`.lore_books` — lorebooks and their entries.
- :mod:`.declarations` — preset declaration and the preset panel (the side-model labeller);
  :mod:`.tavern_controls` — ``pear tavern set`` and the web's tavern panel.

The fronts import these names, by job (each loaded from its module on first use); every other name and module
here is private to ``app``:

- A card's files: create, rename (the old name still leads to it), a new picture, duplicate, delete into the
  vault, export (:mod:`.card_files`): ``CARD_FORMATS``, ``create_card``, ``rename_card``, ``renamed_card``,
  ``set_picture``, ``duplicate_card``, ``delete_card``, ``export_card``.
- Pictures for the pages, whole or small, the one placeholder (:mod:`.avatars`): ``Picture``, ``Size``,
  ``card_picture``, ``persona_picture``, ``group_picture``.
- The card project ``创作/`` (``pear card``, the studio) (:mod:`.card_project`): ``CardProject``,
  ``open_project``, ``save_slot``.
- The card studio: fields, greetings, lorebook entries changed in place (:mod:`.studio`): ``studio_view``,
  ``expand_project``, ``apply_project``, ``save_lore_entry``.
- A card's regex scripts (:mod:`.card_regex`): ``card_scripts``, ``change_scripts``.
- May a card's own scripts run (asked once) (:mod:`.regex_allowance`): ``pending_question``,
  ``regex_question``, ``scripts_question``, ``allowance_state``, ``set_allowance``.
- The ``#`` entries of the prompt files: list, switch, edit (:mod:`.prompt_files`): ``FILE_LABELS``,
  ``FileKey``, ``prompt_file``, ``named_entries``, ``switch_entry``, ``edit_prompt_entry``.
- Lorebooks and their entries, the stage's lore search (:mod:`.lore_books`): ``BookKind``, ``list_books``,
  ``read_book``, ``create_book``, ``delete_book``, ``set_mounted``, ``new_lore_entry``, ``edit_lore_entry``,
  ``remove_lore_entry``, ``search_lore``.
- Preset declaration and the preset panel (the side-model labeller) (:mod:`.declarations`): ``preset_panel``,
  ``declare_preset``, ``relabel_block``, ``remove_declaration``, ``preset_labels``, ``block_places``.
- ``pear tavern set`` and the web's tavern panel (:mod:`.tavern_controls`): ``tavern_panel``, ``set_control``,
  ``set_panel_control``, ``set_card_preset``, ``set_regex``, ``set_scripts``, ``switch_card_regex``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peargarden.app._lazy import lazy_names

if TYPE_CHECKING:
    from .avatars import Picture, Size, card_picture, group_picture, persona_picture
    from .card_files import (
        CARD_FORMATS,
        create_card,
        delete_card,
        duplicate_card,
        export_card,
        rename_card,
        renamed_card,
        set_picture,
    )
    from .card_project import CardProject, open_project, save_slot
    from .card_regex import card_scripts, change_scripts
    from .declarations import block_places, relabel_block
    from .declarations import declare as declare_preset
    from .declarations import labels as preset_labels
    from .declarations import panel as preset_panel
    from .declarations import remove as remove_declaration
    from .lore_books import Kind as BookKind
    from .lore_books import create_book, delete_book, list_books, read_book, search_lore, set_mounted
    from .lore_books import edit_entry as edit_lore_entry
    from .lore_books import new_entry as new_lore_entry
    from .lore_books import remove_entry as remove_lore_entry
    from .prompt_files import FILE_LABELS, FileKey, named_entries, prompt_file, switch_entry
    from .prompt_files import edit_entry as edit_prompt_entry
    from .regex_allowance import allowance_state, pending_question, regex_question, scripts_question, set_allowance
    from .studio import apply as apply_project
    from .studio import expand as expand_project
    from .studio import save_lore_entry, studio_view
    from .tavern_controls import panel as tavern_panel
    from .tavern_controls import (
        set_card_preset,
        set_control,
        set_panel_control,
        set_regex,
        set_scripts,
        switch_card_regex,
    )

__all__ = [
    "CARD_FORMATS",
    "FILE_LABELS",
    "BookKind",
    "CardProject",
    "FileKey",
    "Picture",
    "Size",
    "allowance_state",
    "apply_project",
    "block_places",
    "card_picture",
    "card_scripts",
    "change_scripts",
    "create_book",
    "create_card",
    "declare_preset",
    "delete_book",
    "delete_card",
    "duplicate_card",
    "edit_lore_entry",
    "edit_prompt_entry",
    "expand_project",
    "export_card",
    "group_picture",
    "list_books",
    "named_entries",
    "new_lore_entry",
    "open_project",
    "pending_question",
    "persona_picture",
    "preset_labels",
    "preset_panel",
    "prompt_file",
    "read_book",
    "regex_question",
    "relabel_block",
    "remove_declaration",
    "remove_lore_entry",
    "rename_card",
    "renamed_card",
    "save_lore_entry",
    "save_slot",
    "scripts_question",
    "search_lore",
    "set_allowance",
    "set_card_preset",
    "set_control",
    "set_mounted",
    "set_panel_control",
    "set_picture",
    "set_regex",
    "set_scripts",
    "studio_view",
    "switch_card_regex",
    "switch_entry",
    "tavern_panel",
]

_LAZY = {
    "BookKind": ".lore_books:Kind",
    "CARD_FORMATS": ".card_files",
    "CardProject": ".card_project",
    "FILE_LABELS": ".prompt_files",
    "FileKey": ".prompt_files",
    "Picture": ".avatars",
    "Size": ".avatars",
    "allowance_state": ".regex_allowance",
    "apply_project": ".studio:apply",
    "block_places": ".declarations",
    "card_picture": ".avatars",
    "card_scripts": ".card_regex",
    "change_scripts": ".card_regex",
    "create_book": ".lore_books",
    "create_card": ".card_files",
    "declare_preset": ".declarations:declare",
    "delete_book": ".lore_books",
    "delete_card": ".card_files",
    "duplicate_card": ".card_files",
    "edit_lore_entry": ".lore_books:edit_entry",
    "edit_prompt_entry": ".prompt_files:edit_entry",
    "expand_project": ".studio:expand",
    "export_card": ".card_files",
    "group_picture": ".avatars",
    "list_books": ".lore_books",
    "named_entries": ".prompt_files",
    "new_lore_entry": ".lore_books:new_entry",
    "open_project": ".card_project",
    "pending_question": ".regex_allowance",
    "persona_picture": ".avatars",
    "preset_labels": ".declarations:labels",
    "preset_panel": ".declarations:panel",
    "prompt_file": ".prompt_files",
    "read_book": ".lore_books",
    "regex_question": ".regex_allowance",
    "relabel_block": ".declarations",
    "remove_declaration": ".declarations:remove",
    "remove_lore_entry": ".lore_books:remove_entry",
    "rename_card": ".card_files",
    "renamed_card": ".card_files",
    "save_lore_entry": ".studio",
    "save_slot": ".card_project",
    "scripts_question": ".regex_allowance",
    "search_lore": ".lore_books",
    "set_allowance": ".regex_allowance",
    "set_card_preset": ".tavern_controls",
    "set_control": ".tavern_controls",
    "set_mounted": ".lore_books",
    "set_panel_control": ".tavern_controls",
    "set_picture": ".card_files",
    "set_regex": ".tavern_controls",
    "set_scripts": ".tavern_controls",
    "studio_view": ".studio",
    "switch_card_regex": ".tavern_controls",
    "switch_entry": ".prompt_files",
    "tavern_panel": ".tavern_controls:panel",
}

__getattr__ = lazy_names(__name__, _LAZY)

