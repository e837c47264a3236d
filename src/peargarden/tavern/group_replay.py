"""Replaying a group oracle case: every request SillyTavern sends for the steps, in order.

The case (:class:`~peargarden.tavern.replay.CaseData` with ``group`` and ``members``) is read by
the caller; the replay is pure.  Steps: ``send`` / ``send_only`` (a typed message: the group's
strategy decides who answers, so ``send_only`` in a MANUAL group sends nothing), ``trigger``
(``/trigger NAME``, also as a typed slash command), ``regenerate`` (the whole last round),
``swipe``, ``continue``, ``impersonate``, ``slash`` and ``ui``.

Random choices (NATURAL and POOLED rolls, impersonation's member, MANUAL without text, greetings)
draw from SillyTavern's ``Math.random()`` as the recordings seeded it: mulberry32 over
``settings.json → seed``, after the draws the page made before the first step
(``random_calls_before_steps``, default :data:`PAGE_RANDOM_CALLS`).  A step may pin its speakers
instead (``"speaker": "Name"`` or ``"speakers": [...]``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from peargarden.text.macros import chat_id_hash
from peargarden.text.rolls import mulberry32
from peargarden.text.tokens import TextCounter

from .assemble import Assembly
from .chat_messages import add_swipe
from .group import Cast, Group
from .group_round import greetings, group_fields, speak_as, speaker_request
from .group_turns import RoundCall, choose_speakers, find_member, next_round_id, round_start, trim_reply
from .replay import (
    CaseData,
    ReplayResult,
    assistant_message,
    restore_script_injects,
    run_slash,
    run_ui,
    settings_state,
    user_message,
)
from .state import TavernState

# How many times the recorded page had called Math.random() before the first step (the oracle's
# README: ~532, counted in the page); a case may say otherwise (``random_calls_before_steps``).
PAGE_RANDOM_CALLS = 532
_FORCED_TYPES = ("swipe", "impersonate", "quiet", "continue")


def _reply(number: int) -> str:
    return f"ORACLE_REPLY #{number}"


def page_random(settings: Mapping[str, Any]) -> Callable[[], float]:
    """The recording's ``Math.random()`` at the first step (mulberry32 over the case's seed)."""
    seed = settings.get("seed")
    skip = settings.get("random_calls_before_steps", PAGE_RANDOM_CALLS)
    seed_value = int(seed) if isinstance(seed, int | float) and not isinstance(seed, bool) else 0
    skip_value = int(skip) if isinstance(skip, int | float) and not isinstance(skip, bool) else PAGE_RANDOM_CALLS
    return mulberry32(seed_value, skip=skip_value)


def build_group_state(
    case: CaseData, counter: TextCounter | None = None, *, version: str | None = None, random: Callable[[], float]
) -> TavernState:
    """The state SillyTavern had when the group was opened (a new chat gets every greeting)."""
    if case.group is None:
        raise ValueError("not a group case")
    state = settings_state(case, counter, version=version)
    group = Group.from_st(case.group)
    cards = {avatar: copy.deepcopy(card) for avatar, card in case.members.items()}
    state.cast = Cast(group, cards)
    present = state.cast.present()
    if present:
        speak_as(state, present[0])
    chat_id = state.chat_metadata.get("main_chat")
    state.chat_id_hash = chat_id_hash(chat_id if chat_id is not None else group.chat_id)
    if case.chat is None:
        state.chat = greetings(state, random, _now_ms(state))
    restore_script_injects(state)
    return state


def _now_ms(state: TavernState) -> float:
    return state.clock().timestamp() * 1000


def _pinned(step: Mapping[str, Any], cast: Cast) -> list[str] | None:
    """Speakers a step names itself (``speaker`` / ``speakers``), by name or file name."""
    raw = step.get("speakers", step.get("speaker"))
    if raw is None:
        return None
    names = raw if isinstance(raw, list) else [raw]
    out = []
    for name in names:
        avatar = cast.avatar_named(str(name)) or find_member(cast, str(name))
        if avatar is not None:
            out.append(avatar)
    return out


class _GroupReplay:
    def __init__(self, case: CaseData, state: TavernState, random: Callable[[], float], reply: Callable[[int], str]):
        self.case = case
        self.state = state
        self.random = random
        self.reply = reply
        self.warnings: list[str] = []
        self.generations: list[dict[str, Any]] = []
        self.assemblies: list[Assembly] = []
        self.last: Assembly | None = None

    @property
    def cast(self) -> Cast:
        assert self.state.cast is not None
        return self.state.cast

    def run(self, call: RoundCall, pinned: list[str] | None) -> None:
        """One ``generateGroupWrapper`` call."""
        state = self.state
        speakers = pinned if pinned is not None else choose_speakers(self.cast, state.chat, call, self.random)
        typed = call.user_input
        if not speakers:
            # Nobody answers (MANUAL, everyone muted): SillyTavern posts the box as it is, even empty.
            state.chat.append(user_message(state, typed, bias_only_as_system=False))
            return
        round_id = next_round_id(state.chat, _now_ms(state))
        for avatar in speakers:
            gen_type = call.kind if call.kind in _FORCED_TYPES else "normal"
            speak_as(state, avatar)
            if gen_type == "normal":
                # The first generation posts the typed text; a later one finds the box empty and
                # posts the "replace empty message" text when there is one (as SillyTavern does).
                if typed:
                    state.chat.append(user_message(state, typed))
                    typed = ""
                elif str(state.oai.get("send_if_empty") or "").strip():
                    state.chat.append(user_message(state, str(state.oai["send_if_empty"]).strip()))
            elif gen_type == "swipe" and not state.chat:
                continue
            self.last, body = speaker_request(state, avatar, gen_type)
            self.warnings.extend(self.last.warnings)
            self.generations.append(body)
            self.assemblies.append(self.last)
            self._store(gen_type, avatar, round_id)

    def _store(self, gen_type: str, avatar: str, round_id: int) -> None:
        state = self.state
        text = self.reply(len(self.generations))
        if not state.power_user.get("disable_group_trimming"):
            text = trim_reply(text, self.cast, state.char_name)
        if gen_type == "normal":
            state.chat.append(group_fields(assistant_message(state, text), avatar, round_id))
        elif gen_type == "swipe" and state.chat:
            add_swipe(state.chat[-1], text)
        elif gen_type == "continue" and state.chat:
            state.chat[-1]["mes"] = str(state.chat[-1].get("mes", "")) + text

    def trigger(self, arg: str, step: Mapping[str, Any]) -> None:
        member = find_member(self.cast, arg) if arg.strip() else None
        if arg.strip() and member is None:
            self.warnings.append(f"/trigger 找不到群成员 {arg.strip()!r}：按群聊的发言策略选人")
        self.run(RoundCall("normal", force=member), _pinned(step, self.cast))

    def slash(self, text: str, step: Mapping[str, Any]) -> None:
        """A script typed into the input box: ``/trigger NAME`` starts a round with that member."""

        def generate(kind: str, argument: str) -> None:
            if kind == "normal":
                self.trigger(argument, step)
            else:
                self.run(RoundCall(kind), _pinned(step, self.cast))

        run_slash(self.state, text, self.warnings, generate=generate)

    def step(self, step: Mapping[str, Any]) -> None:
        pinned = _pinned(step, self.cast)
        if "send" in step or "send_only" in step:
            text = str(step.get("send", step.get("send_only")))
            if text.lstrip().startswith("/"):
                self.slash(text, step)
            else:
                self.run(RoundCall("normal", user_input=text), pinned)
        elif "trigger" in step:
            self.trigger(str(step["trigger"]), step)
        elif "slash" in step:
            self.slash(str(step["slash"]), step)
        elif step.get("regenerate"):
            del self.state.chat[round_start(self.state.chat) :]
            self.run(RoundCall("normal"), pinned)
        elif step.get("swipe"):
            self.run(RoundCall("swipe"), pinned)
        elif step.get("continue"):
            self.run(RoundCall("continue"), pinned)
        elif step.get("impersonate"):
            self.run(RoundCall("impersonate"), pinned)
        elif "ui" in step:
            run_ui(self.state, str(step["ui"]), self.warnings)
        else:
            self.warnings.append(f"未知步骤：{list(step)}")


def replay_group(
    case: CaseData,
    *,
    counter: TextCounter | None = None,
    reply: Callable[[int], str] = _reply,
    version: str | None = None,
) -> ReplayResult:
    """Replay a group case; ``generations`` holds every request body in the order sent."""
    random = page_random(case.settings)
    state = build_group_state(case, counter, version=version, random=random)
    replay = _GroupReplay(case, state, random, reply)
    for step in case.settings.get("steps") or []:
        if isinstance(step, dict):
            replay.step(step)
    body = replay.generations[-1] if replay.generations else None
    return ReplayResult(
        body=body,
        assembly=replay.last,
        state=state,
        warnings=replay.warnings,
        generations=replay.generations,
        assemblies=replay.assemblies,
    )


__all__ = ["PAGE_RANDOM_CALLS", "build_group_state", "page_random", "replay_group"]
