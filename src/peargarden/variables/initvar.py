"""``[initvar]`` seeding: the variables a new chat starts with, read from the card's lorebooks.

Every entry whose comment contains ``[initvar]`` (any case) counts, **disabled entries too** (cards
keep it disabled so it never reaches the prompt).  Its content may be wrapped in an ``<initvar>``
tag or a code fence; it is read with ``parse_string`` (YAML, then JSON5, then repaired JSON).  The
entries of a book merge in order (an incoming array replaces the one it meets), and a book already
listed in ``initialized_lorebooks`` is not read again.  Variables the chat already had win over
seeded ones.  Then the schema is generated (the extensibility markers read and removed), and each
greeting swipe gets its own record, after its own ``<initvar>`` blocks (which replace the books'
values) and its own update commands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from peargarden.variables.bounds import problem
from peargarden.variables.jsvalues import UNDEFINED, clone, truthy
from peargarden.variables.lodash import correctly_merge
from peargarden.variables.marks import Lorebook as Lorebook  # re-exported: the light reads keep the books
from peargarden.variables.marks import is_initvar_entry as is_initvar_entry
from peargarden.variables.parse_string import ParseStringError, parse_string
from peargarden.variables.schema import clean_up_metadata, regenerate
from peargarden.variables.update import update_variables
from peargarden.variables.zod_schema import MvuSchema

_NOT_NEWLINE = r"[^\n\r\u2028\u2029]"
_LINE_END = re.compile(r"[\n\r\u2028\u2029]")  # where JavaScript's ``.`` stops
_CLOSING_LINE = re.compile(rf"\n{_NOT_NEWLINE}*</initvar>")
_GREETING_BLOCK = re.compile(rf"<(initvar)>(?:\s*```{_NOT_NEWLINE}*)?([\s\S]*?)(?:```\s*)?</\1>", re.IGNORECASE)
_GREETING_CLOSE = re.compile("</initvar>", re.IGNORECASE)


class InitResult(msgspec.Struct):
    """The seeded variables, whether any book was read, and the entries that could not be."""

    variables: dict[str, Any]
    updated: bool
    warnings: list[str] = msgspec.field(default_factory=list)


def empty_variables() -> dict[str, Any]:
    """MVU's ``createEmptyGameData`` (its key order is the order a new chat's records keep)."""
    return {
        "display_data": {},
        "initialized_lorebooks": {},
        "stat_data": {},
        "delta_data": {},
        "schema": {"type": "object", "properties": {}},
    }


def _body_start(text: str, opening: str) -> int | None:
    r"""Where the body after the first line holding *opening* starts: that line must end in ``\n``
    (a line ending in ``\r`` or the text's end does not open; a later line may)."""
    found = text.find(opening)
    while found >= 0:
        end = _LINE_END.search(text, found + len(opening))
        if end is None:
            return None
        if text[end.start()] == "\n":
            return end.end()
        found = text.find(opening, end.end())
    return None


def _wrapped(text: str) -> str | None:
    r"""MVU's ``/.*<initvar>.*\n([\s\S]*)\n.*<\/initvar>/`` on *text*: from the line after the first
    ``<initvar>`` line to the last line holding ``</initvar>``.  Found with one pass over the text:
    searched from every position, that expression re-read each line to its end (quadratic in the
    line's length: a 120,000-character one-line seed took 30 s)."""
    start = _body_start(text, "<initvar>")
    if start is None:
        return None
    last = None
    for last in _CLOSING_LINE.finditer(text, start):  # noqa: B007  (the last one is wanted)
        pass
    return text[start : last.start()] if last is not None else None


def _fenced(text: str) -> str | None:
    r"""MVU's ``/```.*\n([\s\S]*)\n```/``: from the line after the first fence to the last fence."""
    start = _body_start(text, "```")
    if start is None:
        return None
    end = text.rfind("\n```", start)
    return text[start:end] if end >= 0 else None


def entry_text(content: str) -> str:
    """An ``[initvar]`` entry's content without its ``<initvar>`` wrapper or code fence."""
    wrapped = _wrapped(content.strip())
    if wrapped is not None:
        content = wrapped
    fenced = _fenced(content.strip())
    if fenced is not None:
        content = fenced
    return content


def load_initvar_data(
    variables: dict[str, Any],
    books: Sequence[Lorebook],
    *,
    expand_macros: Callable[[str], str] | None = None,
) -> tuple[bool, list[str]]:
    """MVU's ``loadInitVarData``: merge the books' ``[initvar]`` entries into ``variables`` (in place)."""
    initialized = variables.get("initialized_lorebooks")
    if not isinstance(initialized, dict):
        initialized = variables["initialized_lorebooks"] = {}
    updated = False
    warnings: list[str] = []
    for book in books:
        if book.name in initialized:
            continue
        initialized[book.name] = []
        merged: dict[str, Any] = {}
        failed = False
        for entry in book.ordered_entries():
            if not is_initvar_entry(entry):
                continue
            text = entry_text(str(entry.get("content", "")))
            try:
                parsed = parse_string(expand_macros(text) if expand_macros else text)
            except ParseStringError as error:
                warnings.append(f"解析世界书条目'{entry.get('comment')}'失败（{book.name}）: {error}")
                failed = True
                break
            if truthy(parsed):
                correctly_merge(merged, parsed)
        too_large = None if failed else problem(merged)
        if too_large:  # each entry fitted, the book's entries together do not
            warnings.append(f"世界书「{book.name}」的 [initvar] 条目合起来{too_large}，没有读入")
        if failed or too_large:
            continue
        current = variables.get("stat_data")
        variables["stat_data"] = {**merged, **(current if isinstance(current, dict) else {})}
        updated = True
    return updated, warnings


def _apply_schema(variables: dict[str, Any]) -> None:
    regenerate(variables, keep_old_flags=False)
    clean_up_metadata(variables["stat_data"])


def initialize(
    existing: Mapping[str, Any] | None,
    books: Sequence[Lorebook],
    *,
    expand_macros: Callable[[str], str] | None = None,
) -> InitResult:
    """MVU's ``initCheck`` up to the greeting: ``existing`` (the last variables, or none) seeded from ``books``."""
    variables = clone(dict(existing)) if existing else empty_variables()
    if isinstance(variables.get("initialized_lorebooks"), list):
        variables["initialized_lorebooks"] = {name: [] for name in variables["initialized_lorebooks"]}
    variables.setdefault("initialized_lorebooks", {})
    if not variables.get("stat_data"):
        variables["stat_data"] = {}
    if not variables.get("schema"):
        variables["schema"] = {"extensible": False, "properties": {}, "type": "object"}
    updated, warnings = load_initvar_data(variables, books, expand_macros=expand_macros)
    schema = variables.get("schema")
    if updated or not schema:
        _apply_schema(variables)
    return InitResult(variables, updated, warnings)


def greeting_records(
    init: InitResult,
    swipes: Sequence[str],
    swipes_data: Sequence[Any] = (),
    *,
    books: Sequence[Lorebook] = (),
    character_book: str | None = None,
    expand_macros: Callable[[str], str] | None = None,
    utc_offset_minutes: int = 0,
    schema: MvuSchema | None = None,
    warnings: list[str] | None = None,
) -> list[dict[str, Any]]:
    """The variables record of each greeting swipe of a new chat (MVU writes every swipe).

    A swipe's own ``<initvar>`` blocks replace the books' values (the character's book counts as read,
    the others are read again); then a registered zod *schema* parses the seed (clamps, defaults),
    and the swipe's update commands apply.  *warnings* gets a line for each block that cannot be read
    (MVU skips it without a word) and what the schema and the commands said.
    """
    said = warnings if warnings is not None else []
    records: list[dict[str, Any]] = []
    for index, swipe in enumerate(swipes):
        vanilla = swipes_data[index] if index < len(swipes_data) else UNDEFINED
        record = correctly_merge(clone(vanilla) if isinstance(vanilla, dict) else {}, clone(init.variables))
        override: dict[str, Any] = {}
        applied = False
        for text in greeting_blocks(swipe):
            try:
                correctly_merge(override, parse_string(expand_macros(text) if expand_macros else text))
                applied = True
            except ParseStringError as error:
                said.append(f"开场白第 {index + 1} 条的 <initvar> 块没有读入：{error}")
        if applied and problem(override):
            said.append(f"开场白第 {index + 1} 条的 <initvar> 块合起来{problem(override)}，没有读入")
            applied = False
        if applied:
            record["stat_data"] = override
            record["initialized_lorebooks"] = {character_book or "unknown": []}
            said += load_initvar_data(record, books, expand_macros=expand_macros)[1]
        if schema is not None:
            said += schema.initialized(record, index).warnings
        said += update_variables(
            swipe, record, expand_macros=expand_macros, utc_offset_minutes=utc_offset_minutes, schema=schema
        ).warnings
        records.append(record)
    return records


def greeting_blocks(swipe: str) -> list[str]:
    """The bodies of a greeting's ``<initvar>…</initvar>`` blocks (any case, a code fence inside
    dropped).  Searched only up to the last closing tag: an opening with none after it would have
    the lazy search read to the text's end from each such opening."""
    last = None
    for last in _GREETING_CLOSE.finditer(swipe):  # noqa: B007  (the last one is wanted)
        pass
    if last is None:
        return []
    return [match.group(2) for match in _GREETING_BLOCK.finditer(swipe, 0, last.end())]
