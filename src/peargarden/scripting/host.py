"""What TavernHelper's API needs from the place a card's script runs: the host.

The API (``api.py``) keeps TavernHelper's semantics; a host gives it SillyTavern's data as
SillyTavern holds it — the chat as a list of message dicts, ``chat_metadata``, the global variables,
the card's ``tavern_helper`` extension — and does what only the place can do: expand macros, run
STscript, assemble and send a generation, read and write world books.  Two hosts: SillyTavern's
state for the recorded cases (``tavern/script_host.py``) and, for the page's script frames, the
service's chat.  Everything the API changes in the host's dicts it changes in place; ``changed``
tells the host which part to write back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import msgspec

# A tavern event to the scripts' listeners: runs them all, awaiting each, before it returns.
Emit = Callable[[str, list[Any]], None]


class ScriptError(Exception):
    """An error thrown to the script: ``new Error(message)`` on the JavaScript side."""


class SlashOutcome(msgspec.Struct, frozen=True):
    """``executeSlashCommandsWithOptions``: the pipe, or the error SillyTavern reports
    (``error``: a handled parser error, ``result.isError``) or throws (``thrown``)."""

    pipe: Any = ""  # a string, or ``UNDEFINED`` when the script gave nothing
    error: str | None = None
    thrown: str | None = None


class GenerateRequest(msgspec.Struct, frozen=True):
    """``generate`` / ``generateRaw`` after TavernHelper's own normalisation (``fromGenerateConfig``)."""

    user_input: str = ""
    use_preset: bool = True
    stream: bool = False
    max_chat_history: int | None = None
    # ``generateRaw``'s ``ordered_prompts``: placeholder names and ``{role, content}`` prompts.
    order: list[Any] | None = None
    overrides: dict[str, Any] | None = None
    injects: list[dict[str, Any]] = msgspec.field(default_factory=list)
    generation_id: str = ""


class ScriptHost(Protocol):
    """SillyTavern's data and actions, for one open chat and its character."""

    @property
    def chat(self) -> list[dict[str, Any]]:
        """The chat's messages (SillyTavern's message dicts), changed in place."""
        ...

    @property
    def chat_metadata(self) -> dict[str, Any]: ...

    @property
    def user_name(self) -> str: ...

    @property
    def char_name(self) -> str: ...

    @property
    def character_id(self) -> str:
        """The card's id as TavernHelper names it (SillyTavern's avatar file name)."""
        ...

    def character(self) -> dict[str, Any]:
        """The card as SillyTavern holds it (top-level fields and ``data``)."""
        ...

    def global_variables(self) -> dict[str, Any]:
        """``extension_settings.variables.global`` (created when missing)."""
        ...

    def set_global_variables(self, value: dict[str, Any]) -> None: ...

    def tavern_helper(self) -> dict[str, Any] | None:
        """The card's ``data.extensions.tavern_helper`` (``variables``, ``scripts``); None with no card."""
        ...

    def preset_tavern_helper(self) -> dict[str, Any] | None:
        """The preset's ``extensions.tavern_helper``; None when the host keeps no preset."""
        ...

    def extension_settings(self) -> dict[str, Any]: ...

    def expand_macros(self, text: str) -> str:
        """``substituteParamsExtended``: SillyTavern's macros on the chat as it is now."""
        ...

    def run_slash(self, text: str) -> SlashOutcome: ...

    def generate(self, request: GenerateRequest, emit: Emit) -> str:
        """One ``generate``/``generateRaw``: the prompt assembled, the request sent, the reply's text."""
        ...

    def inject(self, prompts: list[dict[str, Any]], *, once: bool) -> None:
        """``injectPrompts``: each ``{id, position ('in_chat'|'none'), depth, role, content,
        should_scan}`` an extension prompt of the chat; ``once``: until the next generation ends."""
        ...

    def uninject(self, ids: list[str]) -> None: ...

    def format_message(self, text: str, message_id: int) -> str:
        """``messageFormatting``: the text as the chat would show it, as HTML."""
        ...

    def world_names(self) -> list[str]: ...

    def load_world(self, name: str) -> dict[str, Any] | None: ...

    def save_world(self, name: str, data: dict[str, Any]) -> None: ...

    def delete_world(self, name: str) -> bool: ...

    def character_worlds(self) -> tuple[str | None, list[str]]:
        """The card's primary book and its additional books."""
        ...

    def global_worlds(self) -> list[str]: ...

    def chat_world(self) -> str | None: ...

    def changed(self, part: str) -> None:
        """``chat``, ``chat_metadata``, ``globals``, ``character``, ``preset`` or ``world:<name>``
        was changed in place: the host saves it (a replay keeps everything in memory)."""
        ...


__all__ = ["Emit", "GenerateRequest", "ScriptError", "ScriptHost", "SlashOutcome"]
