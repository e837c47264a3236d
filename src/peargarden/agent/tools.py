"""The tool interface: how anything the model can call plugs into the agent loop.

A tool is anything with these attributes (subclass :class:`Tool` or build a :class:`FunctionTool`):

``name``
    The function name the model calls (``[A-Za-z0-9_-]``, unique in a registry).
``description``
    One paragraph for the model (sent in the provider's ``tools`` list).
``parameters``
    A JSON Schema object (``{"type": "object", "properties": ..., "required": [...]}``).  The loop
    validates the model's arguments against it with ``jsonschema`` *before* ``run`` is called, so
    ``run`` receives a dict that satisfies the schema.
``access``
    The sandbox access class: ``"none"`` (pure, e.g. ``ask``), ``"read"`` (reads files or data),
    ``"write"`` (changes files or data), ``"exec"`` (runs programs).  The approvals judge
    (:mod:`peargarden.agent.approvals`) uses it together with the arguments.
``run(args, ctx) -> ToolResult``
    Does the work.  Raise nothing on expected failure: return ``ToolResult(text, is_error=True)``.
    An exception is still caught by the loop and becomes an error result whose text is its message
    (a :class:`peargarden.errors.PearError` keeps its message, anything else is summarised).

:class:`ToolResult` carries ``text`` (what the model sees), ``details`` (free-form JSON-able data for
the UI and for the session file, never sent to the model), ``is_error`` and ``ends_beat`` (the beat
stops after this tool batch without another model call; the ``ask`` tool uses it to hand a choice
to the user) and ``reader``: an event for the reader that the loop emits right after the tool's
``tool_end`` (the stage's sealed prose, its choice card: :data:`peargarden.agent.events.ReaderEvent`).

:class:`ToolContext` is what a tool may use: the data folder, the card folder, the chat id, the
user's words of this beat, the thinking level, the mode, the cancel event, a scratch dict that lives
for the beat (``beat_state``, e.g. the draft sheet) and ``custom_entries`` (custom session entries on
the active branch, e.g. session grants).  ``append_custom`` records a custom entry on the branch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import msgspec

from peargarden.errors import BadInput
from peargarden.providers.base import ThinkingLevel, ToolSpec

from .events import ReaderEvent

AccessClass = Literal["none", "read", "write", "exec"]
ACCESS_CLASSES: tuple[AccessClass, ...] = ("none", "read", "write", "exec")

# The mode a beat runs in, as its mode table names it (``PlayMode.tool_mode``: "stage", "tavern",
# "work" in the standard table).  The loop only passes it on and compares it; tools and the judge
# that care about a particular mode know its name themselves.
Mode = str


class ToolResult(msgspec.Struct):
    """The outcome of one tool call."""

    text: str
    details: dict[str, Any] | None = None
    is_error: bool = False
    ends_beat: bool = False
    # What the user reads from this call, as an event of its own (never sent to the model).
    reader: ReaderEvent | None = None


class ToolContext(msgspec.Struct):
    """What a running tool may see and use.  Built by the loop once per beat."""

    home: Path | None = None
    card_dir: Path | None = None
    chat_id: str | None = None
    # The user's words of this beat (the write gate reads them); empty on /continue.
    user_text: str = ""
    thinking: ThinkingLevel = "off"
    mode: Mode = ""
    cancel: threading.Event = msgspec.field(default_factory=threading.Event)
    # Lives for one beat: tools of the same beat share it (draft sheet, counters).
    beat_state: dict[str, Any] = msgspec.field(default_factory=dict)
    # Custom entries on the active branch, oldest first: {"customType": str, "data": Any}.
    custom_entries: list[dict[str, Any]] = msgspec.field(default_factory=list)
    # Record a custom entry on the active branch (customType, data).  No-op outside a session.
    append_custom: Callable[[str, Any], None] = msgspec.field(default=lambda _type, _data: None)

    def customs(self, custom_type: str) -> list[Any]:
        """The ``data`` of every custom entry of *custom_type* on the branch, oldest first."""
        return [entry.get("data") for entry in self.custom_entries if entry.get("customType") == custom_type]


class Tool:
    """Base class for tools; subclasses set the class attributes and implement :meth:`run`."""

    name: str = ""
    description: str = ""
    parameters: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012  (read-only default)
    access: AccessClass = "none"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise NotImplementedError

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)


class FunctionTool(Tool):
    """A tool made from a plain function ``fn(args, ctx) -> ToolResult | str``."""

    def __init__(
        self,
        name: str,
        description: str,
        parameters: dict[str, Any],
        fn: Callable[[dict[str, Any], ToolContext], ToolResult | str],
        access: AccessClass = "none",
    ) -> None:
        self.name = name
        self.description = description
        self.parameters = parameters
        self.access = access
        self._fn = fn

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        out = self._fn(args, ctx)
        return out if isinstance(out, ToolResult) else ToolResult(str(out))


def tool_spec(tool: Tool) -> ToolSpec:
    """The provider-facing description of *tool* (works for duck-typed tools too)."""
    return ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters)


class ToolRegistry:
    """Tools by name, in registration order (the order offered to the model)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool, *, replace: bool = False) -> None:
        if not tool.name:
            raise BadInput("a tool needs a name")
        if tool.access not in ACCESS_CLASSES:
            raise BadInput(f"tool {tool.name}: unknown access class {tool.access!r}")
        if tool.name in self._tools and not replace:
            raise BadInput(f"tool {tool.name} is registered twice")
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [tool_spec(tool) for tool in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)
