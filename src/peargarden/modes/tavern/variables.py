"""Tavern mode's variables: what SillyTavern with TavernHelper, MVU and ST-Prompt-Template does.

Two steps around SillyTavern's own assembly:

- **late in the request** (:func:`late_step`), on the finished messages — after the budgets counted
  the raw text, as TavernHelper does: each message's ``<% %>`` templates are evaluated (the
  ST-Prompt-Template extension renders the prompt it is handed at generation start, message by
  message, see ``docs/variables.md``), then TavernHelper's ``{{get_message_variable::…}}``,
  ``{{format_message_variable::…}}``, ``{{get_chat_variable::…}}`` … macros are expanded.  The
  message scope is the record in force (the user's message, once MVU copied the variables to it);
  a template's ``setvar`` on it is kept for the after-beat step, on the chat it goes into SillyTavern's
  chat metadata like ``{{setvar}}``.
- **after the beat** (:func:`after_beat`): MVU's handling of the reply (its update commands applied,
  the status placeholder appended), written to the branch with the greeting's seed and the user's
  record (:mod:`peargarden.modes.chat_variables`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from peargarden.agent.loop import BeatInput
from peargarden.agent.result import BeatResult
from peargarden.errors import PearError
from peargarden.sessions.context import build_context
from peargarden.sessions.variables import MESSAGE_VARIABLES_TYPE, chat_metadata, customs_as_data, note_data
from peargarden.variables.ejs import has_template
from peargarden.variables.macros import expand_variable_macros
from peargarden.variables.script_budget import ScriptBudget
from peargarden.variables.templates_js import render_template
from peargarden.workspace.home import Home
from peargarden.workspace.remote_modules import pinned_sources

from ..base import BeatEnv, BranchView, SideCall
from ..chat_variables import (
    TAIL_MESSAGES,
    Prepared,
    StChat,
    beat_notes,
    character_variables,
    mvu_active,
    pending_records,
    prepare_for,
    recent_chat,
    schema_scripts,
    script_budget,
    scripts_allowed,
    st_chat,
)
from ..chat_variables import card_books as books_of
from .sources import card_worlds, chat_keeper, read_named_preset

if TYPE_CHECKING:
    from peargarden.variables.zod_schema import MvuSchema

_MACRO_MARK = "_variable::"
_TAIL = 4  # messages read of a chat without variables: enough to find the user's last one
TAIL_ENTRIES = 4 * TAIL_MESSAGES  # path entries read first after a beat (messages, notes, metadata)


def card_books(env: BeatEnv) -> list[Any]:
    """The card's lorebooks as MVU reads them: tavern mode's books, the character's first (none when
    a book cannot be read: the request says so itself, the variables only go without their seed)."""
    try:
        worlds, order = card_worlds(env.folder.home, env.folder, env.settings, env.folder.load_card(), chat_keeper(env))
    except PearError:
        return []
    return books_of(worlds, order)


def card_schema(env: BeatEnv) -> MvuSchema | None:
    """The zod schema the card's (and its preset's) TavernHelper scripts register with MVU, on the
    beat's CPU budget for them."""
    extensions = env.card.data.get("extensions")
    return schema_for(env.folder.home, extensions, env.settings.preset, script_budget(env), pinned_sources(env.folder))


def schema_for(
    home: Home,
    card_extensions: object,
    preset_name: str | None,
    budget: ScriptBudget,
    sources: Callable[[str], str | None] | None = None,
) -> MvuSchema | None:
    """The registered zod schema of a card's ``extensions`` and the named library preset (a preset
    that cannot be read adds none: the request says so itself), spending *budget*; *sources*: the
    card's remote modules kept in the data folder (``workspace/remote_modules.py``)."""
    preset: Mapping[str, Any] = {}
    if preset_name:
        try:
            preset = read_named_preset(home, preset_name)
        except PearError:
            preset = {}
    return schema_scripts(preset.get("extensions"), card_extensions, budget=budget, sources=sources)


class LateStep(msgspec.Struct):
    """The messages as sent, what the templates wrote, and a warning per template that failed."""

    messages: list[dict[str, Any]]
    message_variables: dict[str, Any]
    chat_variables: dict[str, Any]
    warnings: list[str] = msgspec.field(default_factory=list)


def _hold(index: int) -> str:
    # Private-use characters: no template, no macro and no card text holds them.
    return f"\ue000pear-template-{index}\ue001"


def _render_content(
    content: str, store: dict[str, Any], sources: Sequence[tuple[str, str]]
) -> tuple[str, dict[str, Any], list[str]]:
    """*content* (one request message) with its templates evaluated: ``(text, variables after,
    warnings)``.  SillyTavern merges world-info entries into one message; when the whole fails, each
    source (``(name, raw text)``: an entry, a prompt) found in it whose own template fails is left as
    written and named, and the rest is rendered around it — one bad entry does not leave the others
    unrendered.  A failure outside every named source leaves the message as written, with its line."""
    whole = render_template(content, store)
    if whole.warning is None:
        return whole.text, whole.variables, []
    held: list[str] = []
    warnings: list[str] = []
    rest = content
    for name, raw in sources:
        part = raw.strip()
        if not (part and has_template(part) and part in rest):
            continue
        failed = render_template(part, store, name=name).warning
        if failed is not None:
            warnings.append(failed)
            rest = rest.replace(part, _hold(len(held)))
            held.append(part)
    if not held:
        return content, store, [whole.warning]
    rendered = render_template(rest, store)
    if rendered.warning is not None:
        return content, store, [*warnings, rendered.warning]
    text = rendered.text
    for index, part in enumerate(held):
        text = text.replace(_hold(index), part)
    return text, rendered.variables, warnings


def render_messages(
    messages: Sequence[Mapping[str, Any]],
    scopes: Mapping[str, Any],
    sources: Sequence[tuple[str, str]] = (),
) -> LateStep:
    """*messages* with their templates evaluated and the variable macros expanded (*scopes*:
    ``message``, ``chat``, ``character``, ``preset``, ``global``); *sources* name the entries and
    prompts a failing template may come from."""
    store = {name: dict(scopes.get(name) or {}) for name in ("message", "chat", "global")}
    out: list[dict[str, Any]] = []
    warnings: list[str] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, str) or ("<%" not in content and _MACRO_MARK not in content):
            out.append(dict(message))
            continue
        if has_template(content):
            content, after, failed = _render_content(content, store, sources)
            warnings.extend(failed)
            store = {name: after.get(name, {}) for name in store}
        if _MACRO_MARK in content:
            content = expand_variable_macros(content, {**scopes, **store})
        out.append({**message, "content": content})
    return LateStep(out, store["message"], store["chat"], warnings)


def entry_sources(worlds: Mapping[str, Mapping[str, Any]], activated: Sequence[str]) -> list[tuple[str, str]]:
    """``(name, content)`` of the activated world-info entries (``"world#uid"``), for failure messages."""
    out: list[tuple[str, str]] = []
    for key in activated:
        world, _, uid = key.rpartition("#")
        entries = (worlds.get(world) or {}).get("entries")
        items = entries.values() if isinstance(entries, dict) else entries if isinstance(entries, list) else []
        for entry in items:
            if isinstance(entry, dict) and str(entry.get("uid")) == uid:
                name = str(entry.get("comment") or f"条目 {uid}")
                out.append((f"{world}·{name}", str(entry.get("content") or "")))
    return out


def preset_sources(preset: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """``(name, content)`` of the preset's prompts."""
    prompts = (preset or {}).get("prompts")
    if not isinstance(prompts, list):
        return []
    return [
        (f"预设·{p.get('name') or p.get('identifier')}", str(p.get("content") or ""))
        for p in prompts
        if isinstance(p, dict) and p.get("content")
    ]


class RequestVariables(msgspec.Struct):
    """What a tavern request knows of the chat's variables before its late step."""

    chat: StChat
    prepared: Prepared | None


def request_variables(env: BeatEnv, inp: BeatInput) -> RequestVariables:
    """The branch as MVU holds it at request time (the greeting's seed and the user's record filled in).
    A chat without variables reads only its last messages (a long chat pays nothing per beat)."""
    books = card_books(env)
    noted = any(custom.get("customType") == MESSAGE_VARIABLES_TYPE for custom in inp.custom_entries)
    if not noted and not mvu_active(scripts_allowed(env), books):
        return RequestVariables(st_chat(inp.history[-_TAIL:], ()), None)
    chat = recent_chat(inp.history, inp.custom_entries, group=env.group_chat)
    active = mvu_active(scripts_allowed(env), books, chat)
    prepared = (
        prepare_for(env.group_chat)(chat, books, pending_records(env), None, card_schema(env)) if active else None
    )
    return RequestVariables(chat, prepared)


def late_step(
    env: BeatEnv,
    known: RequestVariables,
    messages: Sequence[Mapping[str, Any]],
    chat_metadata: dict[str, Any],
    global_variables: Mapping[str, Any] | None,
    sources: Sequence[tuple[str, str]],
) -> LateStep:
    """The request's messages after the templates and TavernHelper's macros; the chat metadata's
    ``variables`` take what the templates set on the chat, and the chat's memo what they set on the
    user's message (written by the after-beat step; a dry run's new message has no id, so nothing)."""
    chat = known.chat
    vars_local = chat_metadata.get("variables")
    scopes = {
        "message": chat.in_force(),
        "chat": vars_local if isinstance(vars_local, dict) else {},
        "character": character_variables(env),
        "global": dict(global_variables or {}),
    }
    step = render_messages(messages, scopes, sources)
    if known.prepared is not None:  # MVU keeps this chat's variables: its prompt filter runs on what is sent
        from peargarden.variables.message import without_status_placeholder

        step.messages = without_status_placeholder(step.messages)
    if step.chat_variables != scopes["chat"]:
        chat_metadata["variables"] = step.chat_variables
    last_user = next((i for i in range(len(chat.messages) - 1, -1, -1) if chat.messages[i]["is_user"]), None)
    if last_user is not None and step.message_variables != scopes["message"]:
        user_id = chat.ids[last_user]
        if user_id:
            pending_records(env)[user_id] = step.message_variables
    return step


def after_beat(view: BranchView, side: SideCall, result: BeatResult) -> Iterator[str] | None:
    """MVU's work on the finished reply (see the module docstring); ``None`` when the card keeps no
    variables and no template wrote any (decided without reading the branch).  A group chat runs it
    after each speaker's reply (``PlayMode.after_reply``), with that speaker's env and books."""
    env = view.env
    books = card_books(env)
    pending = pending_records(env)
    allowed = scripts_allowed(env)
    active = allowed is not False and (bool(view.tree.customs(MESSAGE_VARIABLES_TYPE)) or mvu_active(allowed, books))
    if not active and not pending:
        return None
    chat = branch_chat(view)
    return _write(view, chat, books if active else [], pending, beat_reply(chat, result), active)


def branch_chat(view: BranchView) -> StChat:
    """The branch as SillyTavern's chat for the after-beat step: its end, or all of it when the end
    holds no MVU record (a new chat, whose greeting gets its seed)."""
    path = view.tree.path()
    end = path[-TAIL_ENTRIES:]
    group = view.env.group_chat
    if len(path) > TAIL_ENTRIES:
        chat = st_chat(build_context(end), customs_as_data(end), group=group)
        if chat.has_mvu():
            chat.metadata = chat_metadata(customs_as_data(view.tree.customs()))
            return chat
    return st_chat(build_context(path), customs_as_data(view.tree.customs()), group=group)


def beat_reply(chat: StChat, result: BeatResult) -> str | None:
    """The entry of the reply the beat just wrote (the branch's last message, a reply), if it wrote one."""
    if result.action == "impersonate" or not result.replies or not result.text or not chat.messages:
        return None
    return None if chat.messages[-1]["is_user"] else chat.ids[-1]


def greeting_swipes(view: BranchView, chat: StChat, index: int | None) -> list[tuple[str, str]]:
    """``(id, text)`` of every swipe of the greeting at *index* (its siblings in the tree)."""
    greeting = chat.ids[index] if index is not None else None
    if greeting is None:
        return []
    return [(entry.id, str(entry.message.get("content") or "")) for entry in view.tree.siblings(greeting)]


def _write(
    view: BranchView,
    chat: StChat,
    books: list[Any],
    pending: dict[str, dict[str, Any]],
    reply_id: str | None,
    active: bool,
) -> Iterator[str]:
    if active:
        schema = card_schema(view.env)
        prepared = prepare_for(view.env.group_chat)(chat, books, pending, reply_id, schema)
        swipes = greeting_swipes(view, chat, prepared.seeded)
        update = beat_notes(prepared, reply_id, swipes, books=books, schema=schema)
    else:
        prepared = Prepared(chat)
        update = beat_notes(prepared, None)
        user = next((i for i in range(len(chat.ids) - 1, -1, -1) if chat.messages[i]["is_user"]), None)
        user_id = chat.ids[user] if user is not None else None
        if user_id and user_id in pending:
            update.notes.append(note_data(user_id, variables=pending[user_id]))
    for data in update.notes:
        view.append_custom(MESSAGE_VARIABLES_TYPE, data)
        pending.pop(str(data["message"]), None)
    for warning in dict.fromkeys(update.warnings):  # several uses of the schema may say the same
        yield f"变量更新：{warning}"
