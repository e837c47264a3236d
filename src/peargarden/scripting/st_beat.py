"""What SillyTavern 1.18 does around a card's scripts when a chat opens, a message is sent and a
reply is swiped — the messages it stores and the tavern events it emits, in their order, as the
recordings show them (``../shared/tavernhelper`` case 16 for a send, 13 for a swipe).

A send: ``GENERATION_STARTED`` and ``GENERATION_AFTER_COMMANDS`` (``'normal'``, the options, not a
dry run), the user's message and ``MESSAGE_SENT``/``USER_MESSAGE_RENDERED``, ``WORLD_INFO_ACTIVATED``
when entries fired, ``GENERATE_AFTER_COMBINE_PROMPTS``, ``CHAT_COMPLETION_PROMPT_READY`` (the
messages), ``GENERATE_AFTER_DATA``, ``CHAT_COMPLETION_SETTINGS_READY`` (the request), then the reply
and ``MESSAGE_RECEIVED`` (before it is drawn: no ``swipe_info`` yet), ``CHARACTER_MESSAGE_RENDERED``,
``GENERATION_ENDED`` (the chat's length), and two dry-run prompt builds after it.  A swipe adds an
empty swipe first and emits ``MESSAGE_SWIPED``; inside its ``MESSAGE_RECEIVED`` the new swipe's
text is in ``mes`` while ``swipes`` still holds ``""``.

Values JavaScript leaves ``undefined`` in these events' arguments arrive as ``null`` (JSON carries
no ``undefined``); ``GENERATE_AFTER_COMBINE_PROMPTS``' ``prompt`` (the text-completion prompt, which
Chat Completion does not use) is ``""``; listeners get copies, so a listener that edits the prompt
does not change the request.
"""

from __future__ import annotations

from typing import Any

from peargarden.tavern.assemble import Assembly, generate
from peargarden.tavern.replay import assistant_message, user_message
from peargarden.tavern.request import chat_completion_model, request_body
from peargarden.tavern.state import TavernState

from .host import Emit
from .messages import drawn
from .st_host import TavernScriptHost, activated_entries, iso, settings_ready_data, variables_left_absent

# ``Generate``'s options as its events pass them: every key there, unset ones undefined (null here).
GENERATE_OPTIONS: dict[str, Any] = {
    "automatic_trigger": None,
    "force_name2": None,
    "quiet_prompt": None,
    "quietToLoud": None,
    "skipWIAN": None,
    "force_chid": None,
    "signal": {},
    "quietImage": None,
}
DRY_RUNS_AFTER_REPLY = 2


def opened(state: TavernState) -> None:
    """A new chat's greeting as 1.18 stores it: its date, one ``swipe_info`` per greeting, drawn."""
    if not state.chat:
        return
    greeting = state.chat[0]
    date = iso(state)
    greeting["send_date"] = date
    if isinstance(greeting.get("swipes"), list):
        greeting["swipe_info"] = [{"send_date": date, "extra": {}} for _ in greeting["swipes"]]
    drawn(greeting)


def hears_greeting(state: TavernState) -> bool:
    """Whether the card's scripts are running when the new chat's greeting events come.

    TavernHelper starts a card's scripts in frames it makes when the chat changes; SillyTavern
    goes on to emit the greeting's events meanwhile, and a frame's script runs only once the frame
    has loaded — a race.  In the recordings the scripts missed the greeting's events (cases 10, 13,
    both runs) and heard them where opening the chat had a world book file to load (case 16: the
    card names one).  Our reading, which those three fit and SillyTavern's code was not read to
    confirm: loading the book gives the frames the time to start first."""
    selection = state.wi_settings.get("world_info")
    global_books = selection.get("globalSelect") if isinstance(selection, dict) else None
    return bool(state.card_extensions.get("world") or state.chat_metadata.get("world_info") or global_books)


def first_message_events(state: TavernState, emit: Emit) -> None:
    """A fresh chat's greeting, received and drawn (``CHAT_CREATED`` first)."""
    if len(state.chat) == 1:
        emit("chat_created", [])
        emit("message_received", [0, "first_message"])
        emit("character_message_rendered", [0, "first_message"])


def _prompt_events(state: TavernState, assembly: Assembly, emit: Emit, *, dry_run: bool) -> None:
    if assembly.world_info_activated and not dry_run:
        emit("world_info_activated", [activated_entries(state, assembly)])
    emit("generate_after_combine_prompts", [{"prompt": "", "dryRun": dry_run}])
    emit("chat_completion_prompt_ready", [{"chat": assembly.messages, "dryRun": dry_run}])
    emit("generate_after_data", [{"prompt": assembly.messages}, dry_run])


def _started(gen_type: str, emit: Emit, *, dry_run: bool) -> None:
    emit("generation_started", [gen_type, GENERATE_OPTIONS, dry_run])
    emit("GENERATION_AFTER_COMMANDS", [gen_type, GENERATE_OPTIONS, dry_run])


def _generation(host: TavernScriptHost, gen_type: str, emit: Emit, warnings: list[str]) -> tuple[str, dict[str, Any]]:
    """The prompt assembled with its events, the request sent: when it started and the reply as
    the message SillyTavern would store (AI-output regex applied)."""
    started = iso(host.state)
    assembly = _assemble(host.state, gen_type)
    warnings.extend(assembly.warnings)
    _prompt_events(host.state, assembly, emit, dry_run=False)
    text = _request(host, assembly, gen_type, emit)
    with variables_left_absent(host.state):
        return started, assistant_message(host.state, text)


def _request(host: TavernScriptHost, assembly: Assembly, gen_type: str, emit: Emit) -> str:
    state = host.state
    stream = bool(state.oai.get("stream_openai"))
    emit("chat_completion_settings_ready", [settings_ready_data(state, assembly.messages, gen_type, stream)])
    body = request_body(state.oai, assembly.messages, gen_type, stop=assembly.stop,
                        omit_empty_bias=state.compat.omit_empty_logit_bias)  # fmt: skip
    host.requests.append(body)
    return host.reply(len(host.requests))


def _reply_extra(state: TavernState) -> dict[str, Any]:
    return {
        "api": state.oai.get("chat_completion_source"),
        "model": chat_completion_model(state.oai),
        "reasoning": "",
        "reasoning_duration": None,
        "reasoning_signature": None,
    }


def _assemble(state: TavernState, gen_type: str, *, dry_run: bool = False) -> Assembly:
    with variables_left_absent(state):
        return generate(state, gen_type, dry_run=dry_run)


def _after_reply(host: TavernScriptHost, emit: Emit, gen_type: str) -> None:
    index = len(host.state.chat) - 1
    emit("character_message_rendered", [index, gen_type])
    emit("generation_ended", [len(host.state.chat)])
    host.generation_ended()
    for _ in range(DRY_RUNS_AFTER_REPLY):
        _started("normal", emit, dry_run=True)
        _prompt_events(host.state, _assemble(host.state, "normal", dry_run=True), emit, dry_run=True)


def send(host: TavernScriptHost, text: str, emit: Emit, warnings: list[str]) -> None:
    """The user types ``text`` and presses Send; the model's reply comes back."""
    state = host.state
    _started("normal", emit, dry_run=False)
    with variables_left_absent(state):
        message = user_message(state, text)
    message["send_date"] = iso(state)
    if isinstance(message.get("extra"), dict) and message.get("is_user"):
        message["extra"]["reasoning"] = ""
    state.chat.append(message)
    drawn(message)
    index = len(state.chat) - 1
    emit("message_sent", [index])
    emit("user_message_rendered", [index])
    started, reply = _generation(host, "normal", emit, warnings)
    reply.pop("is_system", None)  # 1.18's saveReply leaves it out
    reply["extra"] = _reply_extra(state)
    reply.update(send_date=iso(state), gen_started=started, gen_finished=iso(state))
    state.chat.append(reply)
    emit("message_received", [len(state.chat) - 1, "normal"])
    drawn(reply)
    _after_reply(host, emit, "normal")


def swipe(host: TavernScriptHost, emit: Emit, warnings: list[str]) -> None:
    """The right swipe arrow on the last reply: a new swipe generated."""
    state = host.state
    if not state.chat or state.chat[-1].get("is_user"):
        warnings.append("最后一条不是角色的回复，无法滑动生成新回复")
        return
    last = state.chat[-1]
    index = len(state.chat) - 1
    swipes = last.setdefault("swipes", [last.get("mes", "")])
    swipes.append("")
    last["swipe_id"] = len(swipes) - 1
    emit("message_swiped", [index])
    _started("swipe", emit, dry_run=False)
    started, received = _generation(host, "swipe", emit, warnings)
    extra = _reply_extra(state)
    last.update(mes=received["mes"], extra=extra, send_date=iso(state), gen_started=started, gen_finished=iso(state))
    emit("message_received", [index, "swipe"])
    swipe_id = last["swipe_id"]
    if isinstance(last.get("swipes"), list) and 0 <= swipe_id < len(last["swipes"]):
        last["swipes"][swipe_id] = received["mes"]
    info = last.setdefault("swipe_info", [])
    if isinstance(info, list):
        info.append({"send_date": last["send_date"], "gen_started": started, "gen_finished": last["gen_finished"],
                     "extra": dict(extra)})  # fmt: skip
    _after_reply(host, emit, "swipe")


__all__ = [
    "DRY_RUNS_AFTER_REPLY",
    "GENERATE_OPTIONS",
    "first_message_events",
    "hears_greeting",
    "opened",
    "send",
    "swipe",
]
