"""Playing a chat: the service and everything a beat needs around it.

- :mod:`.service` — ``PearApp`` (a card's chats: new, draft, open, latest, import) and ``ChatSession``,
  a card's chat (``play(action, text)`` → ``Beat``, greetings, ``view``, ``variables``, export).
- :mod:`.group_session` — ``GroupSession``: a group chat's beat is a round, several speakers
  (the strategy, ``/trigger``, the model's ``next_speaker``), one reply each; new, open, import.
- :mod:`.opening` — opening a chat, one recipe for both: ``AppCore`` (the app's parts every chat
  uses: models, hooks, judge, mode table), ``ChatOptions``, the mode, the header, the ``Player``
  whose ``env()`` makes each speaker's ``BeatEnv``, greetings' macros.
- :mod:`.chat_core` — ``ChatCore``, the reads and edits every chat has (messages, context, tree,
  beat log, ``preview``, edit / delete / hide / undo / branch / goto, modes and personas) and its
  claim (``hold``: the chat's locks, crash recovery).
- :mod:`.lifecycle` — the one beat lifecycle over a ``ChatCore`` and its ``Turns`` of ``Speaker``
  values (a card's one, a group round's several): prepare → loop → after-reply per speaker,
  after-beat once, the record and the log, the chat given back.
- :mod:`.mode_steps` — one runner for a mode's steps (a failure is one warning naming the step,
  each step's time in the record); :mod:`.settle` — a reply a crash left without its variables
  record gets it when the chat is next claimed.
- :mod:`.beat` — ``Beat``: iterated on a worker thread with approval prompts as items, or on the
  caller's thread; ``stop()``; its ``BeatResult``.  :mod:`.beat_log` — a chat's last beats on disk;
  :mod:`.request_ledger` — a request as the inspector's ledger; :mod:`.checkpoints` — a streaming
  reply checkpointed, a crash's checkpoint recovered as an incomplete message.
- :mod:`.chat_page` — the page model (``ChatSession.view()``), drawn from a chat's read model
  (:mod:`.page_source`), over :mod:`.chat_chrome` (times, swipe arrows, the context bar) and
  :mod:`.display_scripts` (a card's display-only regex scripts); :mod:`.member_scripts` — a group
  chat's replies each shown by its member's own scripts.
- :mod:`.sandbox_judge` — the sandbox as the loop's judge, "always for this card" grants;
  :mod:`.story` — ``pear story`` (scene notes, compaction, resident memory);
  :mod:`.variables` — ``pear vars apply``; :mod:`.chat_variables` — a chat's variables per
  message and swipe (``pear vars show``, ``ChatSession.variables()``, ``status_line()``);
  :mod:`.group_variables` — a group chat's (one message per reply), ``pear vars show`` on any chat;
  :mod:`.hidden_updates` — a stage beat's stream without ``<UpdateVariable>`` blocks;
  :mod:`.tavern_cases` — oracle replay.
- :mod:`.card_frames` — what the page's card frames run, made ready here: a status bar's scripts with
  ``top`` renamed, our own frame libraries (``z``), TavernHelper's names; :mod:`.page_scripts` — a
  card's TavernHelper scripts in the chat page: the host their calls run on, over the chat (writes
  as edits through the service), the data their frames read; :mod:`.group_page_scripts` — the
  members' scripts in a group chat's page, each call checked against its own card, a round's events
  per speaker.
- :mod:`.chat_records`, :mod:`.chat_summaries`, :mod:`.chat_files` — chats as records and files:
  find, list with kept summaries, titles, deletion into the vault.

Besides the service ``peargarden.app`` gives (``PearApp``, ``ChatSession``, ``GroupSession``, ``Beat``,
``ApprovalPrompt``, ``ChatOptions``), the fronts import these names, by job (each loaded from its module on
first use); every other name and module here is private to ``app``:

- A tool approval's answers (:mod:`.beat`): ``Answer``.
- A front's thinking level checked (:mod:`.service`): ``thinking_level``.
- The mode table's names (a front names no mode itself) (:mod:`.opening`): ``MODE_NAMES``, ``STAGE``,
  ``TAVERN``.
- A group chat, new or opened (:mod:`.group_session`): ``new_group_chat``, ``open_group_chat``.
- The page model's rows and the branch tree (:mod:`.chat_page`): ``MessageRow``, ``TreeRow``, ``tree_rows``,
  ``tree_leaf``.
- A request as the inspector's ledger (:mod:`.request_ledger`): ``ChatRequest``, ``ledger``.
- Chats as records: find any chat, the card folders, SillyTavern export (:mod:`.chat_records`):
  ``ChatRecord``, ``GroupChatRecord``, ``CardFolder``, ``Entry``, ``card_folders``, ``find_any_chat``,
  ``export_sillytavern``, ``save_file``.
- A card's chats listed with kept summaries (:mod:`.chat_summaries`): ``card_chat_summaries``.
- A chat's folder: titles, deletion into the vault (:mod:`.chat_files`): ``MAX_TITLE``, ``chat_dir``,
  ``chat_title``, ``set_title``, ``remove_chat``.
- A chat's variables per message and swipe (:mod:`.chat_variables`): ``ChatVariables``, ``record_yaml``.
- Any chat's variables (a group's too) (:mod:`.group_variables`): ``variables_of_chat``.
- ``pear vars apply`` (:mod:`.variables`): ``apply_reply_files``, ``card_schema``, ``record_json``.
- STscript on a chat, its Quick Reply links (:mod:`.slash`): ``Asker``, ``command_catalog``,
  ``run_chat_script``, ``run_stored_chat_script``, ``chat_quick_replies``, ``set_chat_quick_reply_links``.
- ``pear story``: scene notes, compaction, resident memory (:mod:`.story`): ``story_session``,
  ``story_state``, ``compact_now``, ``ensure_file``, ``resident_file``, ``resident_text``.
- The sandbox's verdict on recorded calls (:mod:`.sandbox_judge`): ``check_call``, ``known_card``.
- Oracle replay of SillyTavern's assembly (:mod:`.tavern_cases`): ``replay_tavern_case``, ``is_group_case``.
- Oracle replay of STscript (:mod:`.slash_cases`): ``replay_slash_case``.
- Oracle replay of TavernHelper scripts (:mod:`.script_cases`): ``replay_script_case``.
- The page's card frames (:mod:`.card_frames`): ``frame_html``, ``own_libraries``, ``own_library``,
  ``tavern_helper_names``, and the scripts only the page runs, ``scripts_needing_page``.
- A card's TavernHelper scripts in the chat page (:mod:`.page_scripts`): ``chat_page_scripts``,
  ``page_world``, ``run_calls``; SillyTavern's events of what the page did (:mod:`.page_events`):
  ``page_action_events``; the events up to a beat's request heard by them before it is sent, what
  their listeners changed taken back (:mod:`.live_events`, :mod:`.live_changes`): ``LiveBeats``.
- A card's remote modules, fetched once and played from the data folder (:mod:`.remote_modules`):
  ``card_module``, ``HostQuestion``, ``module_text``, ``hosts_state``, ``answer_host``, ``set_host``.
- Libraries the frames get from npm packages (:mod:`.packaged_modules`): ``classic_library``,
  ``mentions_packages``, ``vue_global``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peargarden.app._lazy import lazy_names

if TYPE_CHECKING:
    from .beat import Answer
    from .card_frames import frame_html, own_libraries, own_library, scripts_needing_page, tavern_helper_names
    from .chat_files import MAX_TITLE, chat_dir, chat_title, remove_chat, set_title
    from .chat_page import MessageRow, TreeRow, tree_leaf, tree_rows
    from .chat_records import (
        CardFolder,
        ChatRecord,
        Entry,
        GroupChatRecord,
        card_folders,
        export_sillytavern,
        find_any_chat,
        save_file,
    )
    from .chat_summaries import chat_summaries as card_chat_summaries
    from .chat_variables import ChatVariables, record_yaml
    from .group_page_scripts import group_action_events, group_page_world, run_group_calls
    from .group_page_scripts import group_page_scripts as group_chat_page_scripts
    from .group_session import new_group_chat, open_group_chat
    from .group_variables import variables_of_chat
    from .live_events import LiveBeats
    from .opening import MODE_NAMES, STAGE, TAVERN
    from .packaged_modules import classic_library, mentions_packages, vue_global
    from .page_events import action_events as page_action_events
    from .page_scripts import page_scripts as chat_page_scripts
    from .page_scripts import page_world, run_calls
    from .remote_modules import HostQuestion, answer_host, card_module, hosts_state, module_text, set_host
    from .request_ledger import ChatRequest, ledger
    from .sandbox_judge import check_call, known_card
    from .script_cases import replay_case as replay_script_case
    from .service import thinking_level
    from .slash import Asker, command_catalog, run_chat_script, run_stored_chat_script, set_chat_quick_reply_links
    from .slash import chat_quick_reply_links as chat_quick_replies
    from .slash_cases import replay_slash_case
    from .story import compact_now, ensure_file, resident_file, resident_text, story_session, story_state
    from .tavern_cases import is_group_case
    from .tavern_cases import replay_case as replay_tavern_case
    from .variables import apply_reply_files, card_schema, record_json

__all__ = [
    "MAX_TITLE",
    "MODE_NAMES",
    "STAGE",
    "TAVERN",
    "Answer",
    "Asker",
    "CardFolder",
    "ChatRecord",
    "ChatRequest",
    "ChatVariables",
    "Entry",
    "GroupChatRecord",
    "HostQuestion",
    "LiveBeats",
    "MessageRow",
    "TreeRow",
    "answer_host",
    "apply_reply_files",
    "card_chat_summaries",
    "card_folders",
    "card_module",
    "card_schema",
    "chat_dir",
    "chat_page_scripts",
    "chat_quick_replies",
    "chat_title",
    "check_call",
    "classic_library",
    "command_catalog",
    "compact_now",
    "ensure_file",
    "export_sillytavern",
    "find_any_chat",
    "frame_html",
    "group_action_events",
    "group_chat_page_scripts",
    "group_page_world",
    "hosts_state",
    "is_group_case",
    "known_card",
    "ledger",
    "mentions_packages",
    "module_text",
    "new_group_chat",
    "open_group_chat",
    "own_libraries",
    "own_library",
    "page_action_events",
    "page_world",
    "record_json",
    "record_yaml",
    "remove_chat",
    "replay_script_case",
    "replay_slash_case",
    "replay_tavern_case",
    "resident_file",
    "resident_text",
    "run_calls",
    "run_chat_script",
    "run_group_calls",
    "run_stored_chat_script",
    "save_file",
    "scripts_needing_page",
    "set_chat_quick_reply_links",
    "set_host",
    "set_title",
    "story_session",
    "story_state",
    "tavern_helper_names",
    "thinking_level",
    "tree_leaf",
    "tree_rows",
    "variables_of_chat",
    "vue_global",
]

_LAZY = {
    "classic_library": ".packaged_modules",
    "mentions_packages": ".packaged_modules",
    "vue_global": ".packaged_modules",
    "HostQuestion": ".remote_modules",
    "answer_host": ".remote_modules",
    "card_module": ".remote_modules",
    "hosts_state": ".remote_modules",
    "module_text": ".remote_modules",
    "set_host": ".remote_modules",
    "Answer": ".beat",
    "Asker": ".slash",
    "CardFolder": ".chat_records",
    "ChatRecord": ".chat_records",
    "ChatRequest": ".request_ledger",
    "ChatVariables": ".chat_variables",
    "Entry": ".chat_records",
    "GroupChatRecord": ".chat_records",
    "MAX_TITLE": ".chat_files",
    "LiveBeats": ".live_events",
    "MODE_NAMES": ".opening",
    "MessageRow": ".chat_page",
    "STAGE": ".opening",
    "TAVERN": ".opening",
    "TreeRow": ".chat_page",
    "apply_reply_files": ".variables",
    "card_chat_summaries": ".chat_summaries:chat_summaries",
    "card_folders": ".chat_records",
    "card_schema": ".variables",
    "chat_dir": ".chat_files",
    "chat_page_scripts": ".page_scripts:page_scripts",
    "chat_quick_replies": ".slash:chat_quick_reply_links",
    "chat_title": ".chat_files",
    "check_call": ".sandbox_judge",
    "command_catalog": ".slash",
    "compact_now": ".story",
    "ensure_file": ".story",
    "export_sillytavern": ".chat_records",
    "find_any_chat": ".chat_records",
    "frame_html": ".card_frames",
    "is_group_case": ".tavern_cases",
    "known_card": ".sandbox_judge",
    "ledger": ".request_ledger",
    "group_action_events": ".group_page_scripts",
    "group_chat_page_scripts": ".group_page_scripts:group_page_scripts",
    "group_page_world": ".group_page_scripts",
    "new_group_chat": ".group_session",
    "open_group_chat": ".group_session",
    "own_libraries": ".card_frames",
    "own_library": ".card_frames",
    "page_action_events": ".page_events:action_events",
    "page_world": ".page_scripts",
    "record_json": ".variables",
    "record_yaml": ".chat_variables",
    "remove_chat": ".chat_files",
    "replay_script_case": ".script_cases:replay_case",
    "replay_slash_case": ".slash_cases",
    "replay_tavern_case": ".tavern_cases:replay_case",
    "resident_file": ".story",
    "resident_text": ".story",
    "run_calls": ".page_scripts",
    "run_group_calls": ".group_page_scripts",
    "run_chat_script": ".slash",
    "run_stored_chat_script": ".slash",
    "save_file": ".chat_records",
    "scripts_needing_page": ".card_frames",
    "set_chat_quick_reply_links": ".slash",
    "set_title": ".chat_files",
    "story_session": ".story",
    "story_state": ".story",
    "tavern_helper_names": ".card_frames",
    "thinking_level": ".service",
    "tree_leaf": ".chat_page",
    "tree_rows": ".chat_page",
    "variables_of_chat": ".group_variables",
}

__getattr__ = lazy_names(__name__, _LAZY)
