"""Open chats and running beats of the web app (one server process, many browser tabs).

A chat is opened once and kept (``OpenChat``): its session (a card's ``ChatSession``, a group's
``GroupSession``) and the warnings of its last beat.  A beat is the service's :class:`Beat` (one at
a time per chat: the session holds it); the HTTP response that started it streams its events, and
approval prompts wait in ``ActiveBeat.prompts`` until ``POST /api/beats/{id}/approval`` answers them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from peargarden.app import ApprovalPrompt, Beat, ChatOptions, ChatSession, Home, PearApp
from peargarden.app.library import warning_fix
from peargarden.app.play import LiveBeats
from peargarden.errors import BadInput, NotFound

if TYPE_CHECKING:
    from peargarden.app import AnyChat


@dataclass
class OpenChat:
    session: AnyChat
    # Warnings of the last beat (the bundled SYSTEM.md warning and the like), shown on the page.
    warnings: list[str] = field(default_factory=list)
    # (mtime, size) of the session file when last read: another program (pear chat) may write it too.
    seen: tuple[int, int] | None = None

    @property
    def card_session(self) -> ChatSession:
        """The session as a card's chat (the hub's own chats are; a group's, kept by ``api_groups``,
        cannot run what only a card's chat has yet: STscript)."""
        if not isinstance(self.session, ChatSession):
            raise BadInput("群聊里还不能运行 STscript（a group chat）")
        return self.session

    def refresh(self) -> None:
        """Re-read the session file when it changed since it was last read (never during a beat)."""
        now = self.session.file_stamp()
        if self.seen is not None and now != self.seen and not self.session.busy:
            self.session.reread()
        self.seen = now

    def wrote(self) -> None:
        """This server changed the chat (a beat, an edit): what the file holds now is what the session
        holds, so the next request does not read it again."""
        self.seen = self.session.file_stamp()


@dataclass
class ActiveBeat:
    chat: OpenChat
    beat: Beat
    prompts: dict[str, ApprovalPrompt] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.beat.id


class ChatHub:
    def __init__(self, home: Home) -> None:
        self.home = home
        # The one service of this server, for every chat it opens (a card's, a group's): the sandbox
        # judges each tool call with the chat's own settings, and "always for this card" is written
        # to the 卡.json of the card whose reply asked (the service's defaults, as in `pear chat`).
        # Story memory (scene notes, compaction) as `pear chat` has it: models resolved the standard
        # way (config.toml, plus keys stored from the settings page).
        self.app = PearApp(home)
        # A card's scripts in the page hear a beat's events before its request is sent (issue 45).
        self.live = LiveBeats()
        self.app.on_request.append(self.live.on_request)
        self._chats: dict[tuple[str, str], OpenChat] = {}
        self._beats: dict[str, ActiveBeat] = {}
        self._guard = threading.Lock()

    def new_chat(self, card: str, mode: str | None = None, persona: str | None = None) -> OpenChat:
        # Any mode of the table, work mode too (an unknown one is refused by the service, naming the known).
        session = self.app.new_chat(card, ChatOptions(mode=mode or None, persona=persona))
        return self._keep(card, session)

    def chat(self, card: str, chat_id: str) -> OpenChat:
        with self._guard:
            found = self._chats.get((card, chat_id))
        if found is not None:
            found.refresh()
            return found
        return self._keep(card, self.app.open_chat(card, chat_id))

    def open_sessions(self) -> list[AnyChat]:
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

    def settings_changed(self) -> None:
        """config.toml changed (a model, a connection, a profile): the open chats that are not playing
        are dropped, so the next request opens them with the new settings (a playing one keeps its own
        to the end of its beat)."""
        with self._guard:
            for key in [key for key, chat in self._chats.items() if not chat.session.busy]:
                del self._chats[key]

    def fixed(self, fix: str) -> None:
        """What the warnings of *fix* said was made right: the open chats stop showing them (their
        next beat says again whatever still holds)."""
        with self._guard:
            for chat in self._chats.values():
                chat.warnings = [text for text in chat.warnings if warning_fix(text) != fix]

    def busy(self, card: str) -> bool:
        """Whether a beat is running on one of *card*'s chats."""
        with self._guard:
            return any(chat.session.busy for (name, _), chat in self._chats.items() if name == card)

    def card_changed(self, card: str) -> None:
        """*card*'s file was rewritten: its open chats show and use the new card from now on."""
        with self._guard:
            opened = [chat for (name, _), chat in self._chats.items() if name == card]
        for chat in opened:
            chat.session.reload_card()

    def _keep(self, card: str, session: AnyChat) -> OpenChat:
        with self._guard:
            found = self._chats.get((card, session.chat_id))
            if found is None:
                found = self._chats[(card, session.chat_id)] = OpenChat(session)
                found.seen = session.file_stamp()  # as read now: a change from here on is another program's
            return found

    # -- beats -------------------------------------------------------------------------------------

    def start_beat(
        self, chat: OpenChat, action: str, text: str = "", step: int = 1, *, scripts: bool = False
    ) -> ActiveBeat:
        """Start *action* on *chat* (``ChatSession.play``: a busy chat is a ``ConflictError``);
        *scripts*: the page runs the card's scripts, which hear the events up to the request first."""
        if isinstance(chat.session, ChatSession):
            return self.adopt(chat, self.live.play(chat.session, action, text, step, live=scripts))
        return self.adopt(chat, chat.session.play(action, text, step=step))

    def adopt(self, chat: OpenChat, beat: Beat) -> ActiveBeat:
        """A beat started elsewhere (a group chat's round), reachable by its id for stop and approvals."""
        active = ActiveBeat(chat, beat)
        with self._guard:
            self._beats[active.id] = active
        return active

    def beat(self, beat_id: str) -> ActiveBeat:
        with self._guard:
            found = self._beats.get(beat_id)
        if found is None:
            raise NotFound(f"没有正在进行的回复 {beat_id}（no such beat）")
        return found

    def items(self, active: ActiveBeat) -> Iterator[dict[str, Any]]:
        """The beat's events as JSON objects; approval prompts become ``approval_prompt`` items.

        Closing the iterator early (the browser went away) stops the beat; the chat is free again
        once the worker has finished.
        """
        beat = active.beat
        finished = False
        try:
            yield {"type": "beat", "beat_id": beat.id}
            while (item := beat.next_item()) is not None:
                if isinstance(item, ApprovalPrompt):
                    request = item.request
                    active.prompts[request.call_id] = item
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
                said = item.to_json()
                if said["type"] == "error":
                    said.pop("hint", None)  # a command for a terminal: the page links to the fix instead
                elif said["type"] == "warning" and (fix := warning_fix(said["message"])):
                    said["fix"] = fix  # one the page can make (the bundled SYSTEM.md written back)
                yield said
            finished = True
        finally:
            self.live.forget(beat)  # a page gone answers nothing: the beat does not wait for it
            if not finished:
                beat.stop()
                while beat.next_item() is not None:
                    pass
            active.chat.warnings = list(beat.record.warnings)
            active.chat.wrote()
            with self._guard:
                self._beats.pop(beat.id, None)
