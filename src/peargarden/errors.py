"""One exception family for everything a person may need to read.

Every error carries a message meant for people (Chinese-speaking users first, English kept short
and plain).  Fronts (CLI, web) print ``str(error)`` in one line; no traceback reaches a user.  Each
class also says how a front reports it: ``exit_code`` for the CLI, ``http_status`` for the web.
"""

from __future__ import annotations

from pathlib import Path


class PearError(Exception):
    """Base of every error the program reports to a person."""

    exit_code = 1
    http_status = 400

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        self.path = str(path) if path is not None else None
        full = f"{self.path}: {message}" if self.path else message
        super().__init__(full)
        self.message = message


class BadInput(PearError):
    """A file or value from outside (card, lorebook, preset, chat, argument) cannot be used."""

    exit_code = 2


class FormatError(BadInput):
    """A file is not in the format it claims to be, or is damaged."""


class NotFound(PearError):
    """A card, book, preset, chat or entry that was named does not exist."""

    exit_code = 2
    http_status = 404


class ConflictError(PearError):
    """The thing to change was changed by someone else since it was read."""

    exit_code = 3
    http_status = 409


class ProviderError(PearError):
    """The model endpoint failed in a way retrying did not fix."""

    exit_code = 4
    http_status = 502  # the model endpoint behind us failed, not the request
