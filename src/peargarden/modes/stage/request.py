"""The stage-mode request builder: what the agent loop sends for each model call of a stage beat.

For every round it rebuilds the story (prose only, see :mod:`peargarden.stage.history`), assembles
the stage system prompt and the per-beat injection with :func:`peargarden.stage.assemble_beat`, and
then appends this beat's rounds so far (assistant tool calls and tool results), which the model
must see to go on.  The system prompt and the injection are the same in every round of a beat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from peargarden.agent.loop import BeatInput, BuiltRequest, RequestBuilder
from peargarden.agent.tools import Tool
from peargarden.providers.base import Cast, ChatRequest, ToolSpec
from peargarden.sessions.context import ContextMessage
from peargarden.sessions.scan import MessageScan, without
from peargarden.stage import StageRequest, Turn, apply_macros, assemble_beat
from peargarden.stage.cast import cast_names
from peargarden.stage.compact import compact_beat, fallback_reply, stop_words
from peargarden.stage.history import story_turns
from peargarden.stage.memory.view import StoryView

from ..base import BeatEnv, chat_memo
from .materials import StageMaterials, load_stage_materials, with_synced_mirror, with_user
from .prose import StoryProse
from .story import StorySource, story_history, story_request
from .tools import StageToolEnv, stage_tools

__all__ = [
    "CONTINUE_NOTE",
    "IMPERSONATE_NOTE",
    "assemble_for",
    "compact_for",
    "greeting_turns",
    "hidden_scan",
    "is_hidden",
    "split_rounds",
    "stage_builder",
    "stage_setup",
    "visible_messages",
]

# Where stage_setup keeps the chat's StoryProse in ``BeatEnv.cache``.
PROSE_CACHE_KEY = "stage.prose"
HIDDEN_CACHE_KEY = "stage.hidden"

CONTINUE_NOTE = "（接着上一条回复继续写，不要重复已经写过的内容。）"
IMPERSONATE_NOTE = "（请以{user}的身份、用{user}的口吻写出{user}接下来的一句话或一段行动，只写{user}的部分。）"


def _as_dict(message: ContextMessage) -> dict[str, Any]:
    return message.to_message()


def is_hidden(message: ContextMessage) -> bool:
    """The hidden scan's test (a function of its own: the scan's memo is kept per test)."""
    return message.hidden


def hidden_scan() -> MessageScan:
    """The chat's memo of :func:`is_hidden`, kept between beats (see :func:`visible_messages`)."""
    return MessageScan(is_hidden, marked_only=True)  # hidden: a tag


def visible_messages(history: Sequence[ContextMessage], hidden: MessageScan | None = None) -> list[ContextMessage]:
    """*history* without its hidden messages (*hidden*: the chat's :func:`hidden_scan`, so that a
    long chat's beat tests only the messages new since the last one)."""
    if hidden is None:
        return [m for m in history if not is_hidden(m)]
    return without(history, hidden(history))


def split_rounds(
    history: Sequence[ContextMessage], kind: str = "send", hidden: MessageScan | None = None
) -> tuple[list[ContextMessage], str, list[ContextMessage]]:
    """(earlier messages, this beat's user words, this beat's rounds so far)."""
    visible = visible_messages(history, hidden)
    last_user = len(visible) - 1  # found from the newest end: a long chat's last user message is near it
    while last_user >= 0 and visible[last_user].role != "user":
        last_user -= 1
    if kind in ("continue", "impersonate") or last_user < 0:
        return visible, "", []
    words, rounds = visible[last_user].content, visible[last_user + 1 :]
    del visible[last_user:]  # the earlier messages: the list is this call's own (no second copy)
    return visible, words, rounds


def greeting_turns(materials: StageMaterials) -> list[Turn]:
    """The card's greeting as the first assistant message (when greetings are on and there is one)."""
    if materials.settings.greeting and materials.card.first_mes.strip():
        macros = materials.stage.macros
        first = materials.card.first_mes
        user = materials.stage.user_name
        text = macros(first) if macros is not None else apply_macros(first, materials.card.name, user)
        return [Turn("assistant", text)]
    return []


def assemble_for(
    materials: StageMaterials,
    history: Sequence[Turn],
    user_text: str,
    *,
    thinking: str | None,
    tool_names: Sequence[str],
) -> StageRequest:
    return assemble_beat(
        materials.files,
        materials.card,
        materials.stage,
        materials.corpus,
        history,
        user_text,
        thinking=thinking,
        tool_names=tool_names,
    )


def compact_for(materials: StageMaterials, history: Sequence[Turn], user_text: str) -> StageRequest:
    """The small-model profile's request (see :mod:`peargarden.stage.compact`)."""
    return compact_beat(materials.card, materials.stage, materials.corpus, history, user_text)


def stage_builder(
    materials: StageMaterials,
    *,
    prepend_greeting: bool = False,
    story: StorySource | None = None,
    prose: StoryProse | None = None,
    small_model: bool = False,
    hidden: MessageScan | None = None,
) -> RequestBuilder:
    """A builder over *materials* (load them once per beat with ``load_stage_materials``).

    ``small_model``: the main model is small (see :mod:`peargarden.stage.compact`): a short system
    prompt with the example dialogue and lore bodies, no tools, and a stop where the model starts
    writing the user's part.

    ``prepend_greeting``: put the card's greeting before the history (for chats whose session does not
    store the greeting as its first message).  ``story``: the chat's story memory (summary, ledger,
    budget; see :mod:`.story`), read once per beat.  ``prose``: the chat's memo of beat prose
    (kept between beats, see :mod:`.prose`); without it the story is derived afresh.  ``hidden``:
    the chat's :func:`hidden_scan` (kept between beats); without it every message is tested.
    """

    # Where this beat's own messages start in the loop's history (the builder lives for one beat).
    beat_start: list[int] = []
    views: list[StoryView | None] = []

    def build(inp: BeatInput) -> BuiltRequest:
        if not beat_start or inp.round == 0:
            beat_start[:] = [len(inp.history)]
            views[:] = [story() if story is not None else None]
        view = views[0] if views else None
        if inp.kind in ("continue", "impersonate"):
            # No pending user message: the rounds are whatever this beat added so far.
            visible = list(inp.history)
            earlier = visible_messages(visible[: beat_start[0]], hidden)
            rounds = visible[beat_start[0] :]
            words = CONTINUE_NOTE if inp.kind == "continue" else IMPERSONATE_NOTE.format(user=materials.stage.user_name)
        else:
            earlier, words, rounds = split_rounds(inp.history, inp.kind, hidden)
        source = story_history(earlier, view)
        greeting = (
            greeting_turns(materials) if prepend_greeting and (view is None or view.covers_through is None) else []
        )
        tools = [] if inp.kind == "impersonate" else list(inp.tools)
        names = [spec.name for spec in tools]
        if small_model and _without_memory(view):
            # The small-model profile has its own short prompt; the provider fits it to the model's context.
            turns = prose.story_turns(source) if prose is not None else story_turns([_as_dict(m) for m in source])
            staged_small = compact_for(materials, greeting + turns, words)
            messages_small: list[dict[str, Any]] = [
                {"role": "system", "content": staged_small.system},
                *staged_small.messages,
            ]
            sampler: dict[str, Any] = {"stop": stop_words(materials.stage.user_name)}
            fallback = fallback_reply(materials.card, materials.stage)
            cast = Cast(*cast_names(materials.card, materials.stage, materials.corpus))
            request = ChatRequest(messages=messages_small, sampler=sampler, fallback_reply=fallback, cast=cast)
            return BuiltRequest(request, list(materials.warnings))
        if view is not None:
            # Budgeted: derived from the newest messages only, as far back as the budget reaches.
            extra = sum(view.count(m.content) for m in rounds)
            staged = story_request(
                materials,
                source,
                greeting,
                words,
                view,
                prose if prose is not None else StoryProse(),
                thinking=inp.thinking,
                tool_names=names,
                extra_tokens=extra,
            )
            return _built(staged, rounds, tools, materials)
        turns = prose.story_turns(source) if prose is not None else story_turns([_as_dict(m) for m in source])
        staged = assemble_for(materials, greeting + turns, words, thinking=inp.thinking, tool_names=names)
        return _built(staged, rounds, tools, materials)

    return build


def _without_memory(view: StoryView | None) -> bool:
    """No story memory in *view* (none, or only the token budget that applies with memory off).

    The small-model profile has its own short prompt and leaves the fitting to the provider, which
    knows the model's real context; a view that carries a summary, notes or recall needs the full
    stage request that shows them."""
    if view is None:
        return True
    return not (
        view.summary.strip()
        or view.covers_through is not None
        or view.world_state.strip()
        or view.roster.strip()
        or view.resident.strip()
        or view.recall is not None
    )


def _built(
    staged: StageRequest, rounds: Sequence[ContextMessage], tools: list[ToolSpec], materials: StageMaterials
) -> BuiltRequest:
    """The request: the system prompt, the story and words, then this beat's rounds so far."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": staged.system}]
    messages += staged.messages
    messages += [m.to_openai() for m in rounds]
    lore = [{"title": hit.title or f"#{hit.uid}", "book": hit.book} for hit in staged.hits]
    request = ChatRequest(messages=messages, tools=tools, lore=lore)
    return BuiltRequest(request, [*staged.warnings, *materials.warnings])


def stage_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    """The stage request (the mode table's ``stage`` wraps it in :mod:`.setup`): the stage request
    builder over the card's materials (read fresh each beat; the lore corpus is cached) and the stage
    tools.  An existing ``AGENTS.md`` is read with its lorebook mirror synced; nothing is written.
    A chosen persona name (``env.user_name``) wins over the settings' user name."""
    # Like a config refresh upstream: an existing AGENTS.md follows the mounted books' constants (read
    # here as it will be; the file itself is rewritten by the mode's prepare step before a beat).
    materials = with_synced_mirror(load_stage_materials(env.folder.home, env.folder))
    materials.stage = with_user(materials, env.user_name, env.user_persona)
    # The chat's memos, kept in the app's per-chat cache (``BeatEnv.cache``).
    prose = chat_memo(env, PROSE_CACHE_KEY, StoryProse)
    hidden = chat_memo(env, HIDDEN_CACHE_KEY, MessageScan, hidden_scan)
    builder = stage_builder(materials, story=env.story, prose=prose, small_model=env.small_model, hidden=hidden)
    return builder, stage_tools(StageToolEnv(env.folder.home, env.folder))
