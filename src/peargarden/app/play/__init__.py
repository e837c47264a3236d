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
  as edits through the service), the data their frames read.
- :mod:`.chat_records`, :mod:`.chat_summaries`, :mod:`.chat_files` — chats as records and files:
  find, list with kept summaries, titles, deletion into the vault.
"""
