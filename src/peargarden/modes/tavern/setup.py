"""Tavern mode: the request SillyTavern would send for this card, preset, lorebooks and chat.

One generation, no tools.  Each model call rebuilds a :class:`peargarden.tavern.state.TavernState` from
the card folder (as ``pear tavern assemble`` does) with the chat so far as SillyTavern lines, runs the
SillyTavern assembly and posts its messages with the preset's sampler fields.  The user's pending
message goes through SillyTavern's input processing (regex scripts, macros) the way ST stores it.
Lorebooks are parsed once per chat: the per-chat cache (``BeatEnv.cache``) keeps each book's JSON
while its file is unchanged and a ``LorebookCache`` over them, so the world-info engine reuses its
per-entry plans from beat to beat.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Sequence
from typing import Any

from peargarden.agent.loop import BeatInput, BuiltRequest, RequestBuilder
from peargarden.agent.tools import Tool
from peargarden.formats import Card, card_to_object
from peargarden.modes.base import BeatEnv, chat_memo
from peargarden.providers.base import ChatRequest, ContextBudget
from peargarden.scripting.injected import InjectedPrompts
from peargarden.sessions.context import ContextMessage
from peargarden.sessions.entries import COMMENT_TAG, NARRATOR_TAG
from peargarden.sessions.scan import shared_start
from peargarden.sessions.variables import CHAT_METADATA_TYPE, chat_metadata
from peargarden.tavern.assemble import generate
from peargarden.tavern.chat_messages import start_new_chat, user_message
from peargarden.tavern.controls import user_state
from peargarden.tavern.request import request_body
from peargarden.tavern.state import TavernState
from peargarden.text.tokens import counter_for_model
from peargarden.workspace.chats import utc_now
from peargarden.workspace.quick_reply_files import read_global_variables
from peargarden.workspace.regex_scripts import global_regex_scripts, regex_allowance
from peargarden.worldinfo.sources import LorebookCache

from .sources import card_worlds, chat_keeper, read_named_preset
from .variables import entry_sources, late_step, preset_sources, request_variables

# Body fields of SillyTavern's request that are sampler settings (sent as given when not None).
_SAMPLER_KEYS = (
    "temperature",
    "max_tokens",
    "presence_penalty",
    "frequency_penalty",
    "top_p",
    "top_k",
    "top_a",
    "min_p",
    "repetition_penalty",
    "stop",
    "logit_bias",
    "seed",
    "n",
)

# SillyTavern's chat metadata (timed world info, variables, the in-context marker) kept on the branch.
METADATA_TYPE = CHAT_METADATA_TYPE

_GEN_TYPES = {"send": "normal", "regenerate": "regenerate", "continue": "continue", "impersonate": "impersonate"}


def _st_line(message: ContextMessage, user_name: str, char_name: str) -> dict[str, Any] | None:
    """The SillyTavern chat line of one message (None: ST would not have it in the chat)."""
    if message.role not in ("user", "assistant") or not message.content.strip():
        return None
    line: dict[str, Any] = {
        "name": message.name or (user_name if message.role == "user" else char_name),
        "is_user": message.role == "user",
        "is_system": message.hidden,
        "send_date": "",
        "mes": message.content,
        "extra": {},
    }
    # STscript's /sys and /comment: SillyTavern sends a narrator's message as a system message.
    for tag in (NARRATOR_TAG, COMMENT_TAG):
        if tag in message.tags:
            line["extra"] = {"type": tag}
    return line


class StLines:
    """The chat's SillyTavern lines, kept between beats (in ``BeatEnv.cache``).

    A beat of a long chat rebuilt one dict per message (20,000 of them) only for the assembly to read
    the newest few.  The history's messages are the same objects from beat to beat (the session's
    context memo) and never change, so the lines of the part of the history that is the same
    messages as last time (:func:`~peargarden.sessions.scan.shared_start`, at C speed) are kept, and
    only the rest is made.  The assembly rewrites the first line's ``mes`` in place, so that one is
    always a fresh copy; nothing else in a line is written (``tests/tavern/test_tavern_chat_lines.py``
    pins that the lines equal :func:`_st_line` of each message, beat after beat).
    """

    def __init__(self) -> None:
        self._history: list[ContextMessage] = []
        self._names: tuple[str, str] = ("", "")
        self._slots: list[dict[str, Any] | None] = []  # one per message of _history
        self._lock = threading.Lock()

    def lines(self, history: Sequence[ContextMessage], user_name: str, char_name: str) -> list[dict[str, Any]]:
        names = (user_name, char_name)
        with self._lock:
            same = 0
            if names == self._names:
                same = shared_start(history, self._history)
            slots = self._slots[:same]
            slots += [_st_line(message, user_name, char_name) for message in history[same:]]
            self._history, self._names, self._slots = list(history), names, slots
            out = [line for line in slots if line is not None]
        if out:
            out[0] = dict(out[0], extra=dict(out[0]["extra"]))
        return out


_LOREBOOKS_KEY = "tavern.lorebooks"
_LINES_KEY = "tavern.lines"
_INJECTED_KEY = "tavern.injected_prompts"


def _lorebooks(env: BeatEnv) -> Any:
    return chat_memo(env, _LOREBOOKS_KEY, LorebookCache)


def _chat_lines(env: BeatEnv) -> StLines:
    return chat_memo(env, _LINES_KEY, StLines)


def injected_prompts(env: BeatEnv) -> InjectedPrompts:
    """The prompts the chat's card scripts injected (``injectPrompts``), kept in memory as
    TavernHelper keeps them; every state of the chat assembles with them."""
    return chat_memo(env, _INJECTED_KEY, InjectedPrompts)


def _worlds(env: BeatEnv, loaded: Card) -> tuple[dict[str, dict[str, Any]], list[str]]:
    return card_worlds(env.folder.home, env.folder, env.settings, loaded, kept=chat_keeper(env))


def _preset(env: BeatEnv) -> dict[str, Any] | None:
    return read_named_preset(env.folder.home, env.settings.preset) if env.settings.preset else None


StateOf = Callable[[BeatInput, list[ContextMessage], dict[str, Any]], tuple[TavernState, list[str]]]


def tavern_builder(
    env: BeatEnv,
    *,
    tavern_settings: dict[str, Any] | None = None,
    prepare_state: Callable[[TavernState], None] | None = None,
) -> RequestBuilder:
    """SillyTavern's request for the card of *env*.  *tavern_settings*: the ``tavern`` settings to
    use instead of the card's ``卡.json`` ones; *prepare_state*: called on each state before it
    assembles (a group chat makes it the member speaking in the group, :mod:`peargarden.modes.group`)."""
    return _tavern_functions(env, tavern_settings=tavern_settings, prepare_state=prepare_state)[1]


def _tavern_functions(
    env: BeatEnv,
    *,
    tavern_settings: dict[str, Any] | None = None,
    prepare_state: Callable[[TavernState], None] | None = None,
) -> tuple[StateOf, RequestBuilder]:
    """The card's pieces loaded once, and two functions over them: the state of a chat, and the request."""
    loaded = env.folder.load_card()
    card_obj = card_to_object(loaded, "v2")
    card_json = env.folder.settings()
    tavern = card_json.get("tavern") if isinstance(card_json.get("tavern"), dict) else {}
    if tavern_settings is not None:
        tavern = tavern_settings
    assert isinstance(tavern, dict)
    preset = _preset(env)
    worlds, books = _worlds(env, loaded)
    lorebooks = _lorebooks(env)
    st_lines = _chat_lines(env)
    model = str((preset or {}).get("custom_model") or env.settings.model.model or "")
    counter = counter_for_model(model, default=None) if model else counter_for_model("gpt-3.5-turbo")
    power_user = dict(tavern.get("power_user") or {}) if isinstance(tavern.get("power_user"), dict) else {}
    if env.user_persona and "persona_description" not in power_user:
        power_user["persona_description"] = env.user_persona

    def state_of(
        inp: BeatInput, history: list[ContextMessage], metadata: dict[str, Any]
    ) -> tuple[TavernState, list[str]]:
        # Read each round: an answer given in another window applies to the next request.
        global_regex, regex_warnings = global_regex_scripts(env.folder.home)
        regex_allowed = regex_allowance(env.folder) is True
        lines = st_lines.lines(history, env.user_name, loaded.name)
        state = user_state(
            card_obj,
            tavern={**tavern, "power_user": power_user},
            preset=preset,
            chat_lines=[{"chat_metadata": copy.deepcopy(metadata)}, *lines],
            chat_id=env.chat_id,
            worlds=worlds,
            character_books=books,
            user_name=env.user_name,
            counter=counter,
            lorebooks=lorebooks,
            version=env.settings.st_version,
            global_regex=global_regex,
            regex_allowed=regex_allowed,
            own_chat=True,
            seed=env.seed,
        )
        # SillyTavern's global variables (STscript's /setglobalvar, {{getglobalvar::}}) live in the data folder.
        variables = state.extension_settings.setdefault("variables", {})
        known = variables.get("global") if isinstance(variables.get("global"), dict) else {}
        variables["global"] = {**known, **read_global_variables(env.folder.home)}
        if prepare_state is not None:
            prepare_state(state)
        injected_prompts(env).apply(state.table)
        if not state.chat and state.cast is None:  # a group chat starts with every member's greeting
            start_new_chat(state)
        return state, regex_warnings

    def build(inp: BeatInput) -> BuiltRequest:
        metadata = chat_metadata(inp.custom_entries)
        known = request_variables(env, inp)
        history = list(inp.history)
        pending = ""
        if inp.kind in ("send", "regenerate") and history and history[-1].role == "user":
            pending = history.pop().content
        state, regex_warnings = state_of(inp, history, metadata)
        if pending:
            state.chat.append(user_message(state, pending))
        gen_type = _GEN_TYPES.get(inp.kind, "normal")
        # A real generation, not ST's dry run: timed world info runs and is recorded, and
        # squash_system_messages applies, exactly as SillyTavern sends the request.
        result = generate(state, gen_type)
        # TavernHelper and the templates work on the finished prompt, after the budgets counted it.
        sources = [*entry_sources(worlds, result.world_info_activated), *preset_sources(preset)]
        late = late_step(env, known, result.messages, state.chat_metadata, _global_variables(state), sources)
        messages = late.messages
        body = request_body(
            state.oai, messages, gen_type, stop=result.stop, omit_empty_bias=state.compat.omit_empty_logit_bias
        )
        sampler = {key: body[key] for key in _SAMPLER_KEYS if body.get(key) is not None}
        if not sampler.get("logit_bias"):
            sampler.pop("logit_bias", None)
        # A preset's stream_openai, as SillyTavern sends it (a connection set to answer whole stays so);
        # without a preset that says, the connection's way (SillyTavern's own default differs by version).
        stream = bool(body.get("stream")) if preset is not None and "stream_openai" in preset else None
        request = ChatRequest(messages=list(messages), sampler=sampler, lore=list(result.world_info_fired),
                              stream=stream)  # fmt: skip
        if result.context > 0:  # the context bar measures the request against the budget it was built for
            request.budget = ContextBudget(result.used, result.context, result.response)
        customs: list[tuple[str, Any]] = []
        if "variables" not in metadata and state.chat_metadata.get("variables") == {}:
            # Our macro context makes the table to read it; SillyTavern makes it only when a
            # variable is set (a card's scripts read the chat's variables as absent until then).
            del state.chat_metadata["variables"]
        if state.chat_metadata != metadata:
            customs.append((METADATA_TYPE, copy.deepcopy(state.chat_metadata)))
        warnings = list(dict.fromkeys([*regex_warnings, *result.warnings, *late.warnings]))
        return BuiltRequest(request, warnings, customs, {"body": body, "assembly": result}, _reply_extra(state))

    return state_of, build


def _reply_extra(state: TavernState) -> Callable[[ChatRequest], dict[str, Any]]:
    """What SillyTavern 1.18 stores with a received reply (``saveReply``): its ``extra`` (the API and
    the model asked, the reasoning fields: its text is the reply's own ``reasoning``, when it has one)
    and when its generation started (``gen_started``; it was sent and finished when its entry was
    written)."""
    api = state.oai.get("chat_completion_source")
    started = utc_now()

    def reply(request: ChatRequest) -> dict[str, Any]:
        extra = {"api": api, "model": request.model, "reasoning": "", "reasoning_duration": None,
                 "reasoning_signature": None}  # fmt: skip
        return {"extra": extra, "gen_started": started}

    return reply


def chat_tavern_state(env: BeatEnv, inp: BeatInput) -> tuple[TavernState, list[str]]:
    """SillyTavern's state for the chat as it stands (its history and metadata in *inp*), as the next
    tavern beat would build it — STscript runs on it (``app/play/slash.py``)."""
    state_of, _ = _tavern_functions(env)
    return state_of(inp, list(inp.history), chat_metadata(inp.custom_entries))


def _global_variables(state: TavernState) -> dict[str, Any]:
    """SillyTavern's global variables (``{{getglobalvar}}``; TavernHelper's global scope)."""
    found = state.extension_settings.get("variables")
    value = found.get("global") if isinstance(found, dict) else None
    return dict(value) if isinstance(value, dict) else {}


def tavern_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    return tavern_builder(env), []
