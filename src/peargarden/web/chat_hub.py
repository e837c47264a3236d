"""Open chats and running beats of the web app (one server process, many browser tabs).

A chat is opened once and kept (``OpenChat``): its :class:`ChatSession`, a lock so that only one
beat runs on it at a time, and the requests the model was sent (a :class:`RecordingProvider` wraps
the chat's provider) for the prompt inspector.  A beat runs on a :class:`BeatRunner` worker thread;
the HTTP response that started it streams its events, and approval prompts wait in
``ActiveBeat.prompts`` until ``POST /api/beats/{id}/approval`` answers them.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from peargarden.agent.events import AgentEvent
from peargarden.app import beat_log
from peargarden.app.beat_log import BeatRecord, Ledger
from peargarden.app.recording import RecordingProvider
from peargarden.app.runner import ApprovalPrompt, Approver, BeatRunner
from peargarden.app.sandbox_judge import configured_sandbox_judge, make_card_grant_recorder
from peargarden.app.service import ChatOptions, ChatSession, PearApp
from peargarden.errors import ConflictError, NotFound
from peargarden.workspace.home import Home


@dataclass
class OpenChat:
    session: ChatSession
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Warnings of the last beat (the bundled SYSTEM.md warning and the like), shown on the page.
    warnings: list[str] = field(default_factory=list)
    # (mtime, size) of the session file when last read: another program (pear chat) may write it too.
    seen: tuple[int, int] | None = None
    # The last beats as recorded on disk (beat_log.py): the inspector's requests, generation times.
    beats: list[BeatRecord] = field(default_factory=list)

    def _stat(self) -> tuple[int, int] | None:
        try:
            info = self.session.chat.path.stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def refresh(self) -> None:
        """Re-read the session file when it changed since it was last read (never during a beat)."""
        now = self._stat()
        if self.seen is not None and now != self.seen and not self.lock.locked():
            self.session.reread()
            self.beats = beat_log.load(self.session.chat.path)  # pear chat logs its beats there too
        self.seen = now

    @property
    def recorder(self) -> RecordingProvider | None:
        provider = self.session.resolved.provider
        return provider if isinstance(provider, RecordingProvider) else None


@dataclass
class ActiveBeat:
    id: str
    chat: OpenChat
    runner: BeatRunner
    prompts: dict[str, ApprovalPrompt] = field(default_factory=dict)
    before: set[str] = field(default_factory=set)  # entry ids that existed when the beat began
    started: float = field(default_factory=time.time)


BeatStart = Callable[[Approver, threading.Event], "Iterator[AgentEvent] | None"]


class ChatHub:
    def __init__(self, home: Home, ledger: Ledger | None = None) -> None:
        self.home = home
        # How a recorded request becomes the inspector's ledger (api_inspect's; given by the server).
        self.ledger: Ledger = ledger or (lambda _request, _model: {})
        self._chats: dict[tuple[str, str], OpenChat] = {}
        self._beats: dict[str, ActiveBeat] = {}
        self._guard = threading.Lock()

    def service(self, card: str) -> PearApp:
        """A chat service for *card*: the sandbox judges tool calls; "always for this card" writes 卡.json."""
        return PearApp(
            self.home,
            wrap_provider=RecordingProvider,
            judge=configured_sandbox_judge(self.home),
            record_card_grant=make_card_grant_recorder(self.home, card),
            # Story memory (scene notes, compaction) as `pear chat` has it: the hub resolves models
            # the standard way (config.toml, plus keys stored from the settings page), only recorded.
        )

    def new_chat(self, card: str, mode: str | None = None, persona: str | None = None) -> OpenChat:
        options = ChatOptions(mode=mode if mode in ("stage", "tavern") else None, persona=persona)
        session = self.service(card).new_chat(card, options)
        if mode and mode != session.mode:
            session.set_mode(mode)
        return self._keep(card, session)

    def chat(self, card: str, chat_id: str) -> OpenChat:
        with self._guard:
            found = self._chats.get((card, chat_id))
        if found is not None:
            found.refresh()
            return found
        return self._keep(card, self.service(card).open_chat(card, chat_id))

    def open_sessions(self) -> list[ChatSession]:
        with self._guard:
            return [chat.session for chat in self._chats.values()]

    def forget(self, card: str, chat_id: str) -> None:
        """Drop an open chat (its folder was deleted)."""
        with self._guard:
            self._chats.pop((card, chat_id), None)

    def forget_card(self, card: str) -> None:
        """Drop every open chat of *card* (its folder was deleted)."""
        with self._guard:
            for key in [key for key in self._chats if key[0] == card]:
                del self._chats[key]

    def busy(self, card: str) -> bool:
        """Whether a beat is running on one of *card*'s chats."""
        with self._guard:
            return any(chat.lock.locked() for (name, _), chat in self._chats.items() if name == card)

    def card_changed(self, card: str) -> None:
        """*card*'s file was rewritten: its open chats show and use the new card from now on."""
        with self._guard:
            opened = [chat for (name, _), chat in self._chats.items() if name == card]
        for chat in opened:
            chat.session.reload_card()

    def _keep(self, card: str, session: ChatSession) -> OpenChat:
        provider = session.resolved.provider
        if isinstance(provider, RecordingProvider):  # the inspector sees the story requests too
            session.wrap_side_provider = provider.tee
        with self._guard:
            found = self._chats.get((card, session.chat_id))
            if found is None:
                found = self._chats[(card, session.chat_id)] = OpenChat(session, beats=beat_log.load(session.chat.path))
                found.seen = found._stat()  # as read now: a change from here on is another program's
            return found

    # -- beats -------------------------------------------------------------------------------------

    def start_beat(self, chat: OpenChat, start: BeatStart) -> ActiveBeat:
        if not chat.lock.acquire(blocking=False):
            raise ConflictError("这个对话正在生成回复，请等它结束或先停止（a beat is running）")
        cancel = threading.Event()

        def begin(approver: Approver) -> Iterator[AgentEvent]:
            events = start(approver, cancel)
            return events if events is not None else iter(())

        if chat.recorder is not None:
            chat.recorder.begin_beat()
        before = {entry.id for entry in chat.session.chat.tree}
        beat = ActiveBeat(secrets.token_hex(6), chat, BeatRunner(begin, cancel), before=before)
        with self._guard:
            self._beats[beat.id] = beat
        return beat

    def beat(self, beat_id: str) -> ActiveBeat:
        with self._guard:
            found = self._beats.get(beat_id)
        if found is None:
            raise NotFound(f"没有正在进行的回复 {beat_id}（no such beat）")
        return found

    def items(self, beat: ActiveBeat) -> Iterator[dict[str, Any]]:
        """The beat's events as JSON objects; approval prompts become ``approval_prompt`` items.

        Closing the iterator early (the browser went away) stops the beat; the chat is free again
        once the worker has finished.
        """
        warnings: list[str] = []
        finished = False
        try:
            yield {"type": "beat", "beat_id": beat.id}
            while (item := beat.runner.next_item()) is not None:
                if isinstance(item, ApprovalPrompt):
                    request = item.request
                    beat.prompts[request.call_id] = item
                    yield {
                        "type": "approval_prompt",
                        "beat_id": beat.id,
                        "call_id": request.call_id,
                        "tool": request.tool_name,
                        "args": request.args,
                        "access": request.access,
                        "unit": request.unit,
                        "reason": request.reason,
                    }
                    continue
                data = item.to_json()
                if data["type"] == "warning":
                    warnings.append(str(data["message"]))
                yield data
            finished = True
        finally:
            if not finished:
                beat.runner.stop()
                while beat.runner.next_item() is not None:
                    pass
            beat.chat.warnings = warnings
            with contextlib.suppress(OSError):  # a convenience: a full disk must not break the chat
                self._record(beat, warnings)
            with self._guard:
                self._beats.pop(beat.id, None)
            beat.chat.lock.release()

    def _record(self, beat: ActiveBeat, warnings: list[str]) -> None:
        """Keep the finished beat in the chat's beat log (memory and ``web-beats.json``)."""
        chat = beat.chat
        recorder = chat.recorder
        requests = recorder.beats[-1] if recorder is not None and recorder.beats else []
        chat.beats = beat_log.log_beat(chat.session, requests, started=beat.started, before=beat.before,
                                       warnings=warnings, beats=chat.beats, ledger=self.ledger)  # fmt: skip
