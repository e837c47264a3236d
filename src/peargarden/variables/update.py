"""MVU's ``updateVariables``: one reply's commands applied to the variables of the message before it.

``variables`` is MVU's record (``stat_data``, ``schema``, ``display_data``, ``delta_data``,
``initialized_lorebooks``), changed in place.  Each command that applies writes a line for people at
its path in ``display_data`` (the whole state with the changed leaves replaced) and ``delta_data``
(only the changes): ``10->15 (喝茶聊天)``, ``ASSIGNED "笛子" into array '小梨.物品' (新得)``.  A command
that does not apply is skipped with a warning, as MVU logs it; the others still apply.  When
``stat_data`` changed, the schema is generated again from it.

Facts kept from MVU: ``_.set`` on a missing path is refused; a
``[value, "description"]`` leaf has its value replaced (as a number when it was one); a number set
from a string becomes a number; ``_.add`` adds to numbers (12 significant digits) and milliseconds
to dates; removing an array element by its index in the path (``_.remove('a.物品[0]')``) bypasses the
schema check and leaves no display line; a JSON Patch ``move`` does nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import msgspec

from peargarden.errors import BadInput
from peargarden.variables import lodash
from peargarden.variables.bounds import TooLarge, check_value
from peargarden.variables.command_value import parse_command_value, to_precision_12, trim_quotes_and_backslashes
from peargarden.variables.commands import Command, extract_commands, path_fix
from peargarden.variables.jsdate import parse_date_ms, to_iso_string
from peargarden.variables.jsvalues import (
    UNDEFINED,
    clone,
    is_equal,
    is_number,
    js_keys,
    json_stringify,
    number_to_string,
    to_js_string,
    to_number,
    typeof,
)
from peargarden.variables.schema import (
    ZOD_SCHEMA_PLACEHOLDER,
    clean_up_metadata,
    generate_schema,
    reconcile,
    schema_for_path,
)
from peargarden.variables.template import apply_template
from peargarden.variables.zod_schema import MvuSchema

_ALIASES = {"remove": "delete", "unset": "delete", "assign": "insert"}

AfterUpdate = Callable[[dict[str, Any], dict[str, Any]], None]
"""Called with (variables, variables before the update) once the commands ran: where MVU's
``VARIABLE_UPDATE_ENDED`` listeners would run (a zod schema runs earlier: the ``schema`` argument)."""


class UpdateResult(msgspec.Struct):
    """What an update did: whether ``stat_data`` changed, the commands found, and the refusals."""

    modified: bool
    commands: list[Command] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


class VariableUpdateError(BadInput):
    """A reply whose commands stop MVU's update altogether (it throws; nothing of the reply applies)."""


class _Skip(Exception):
    """A command that does not apply; its message is MVU's log line."""


def _json(value: Any) -> str:
    text = json_stringify(value)
    return "undefined" if text is None else text


def _shown(value: Any) -> str:
    """``trimQuotesAndBackslashes(JSON.stringify(value))`` inside a template string."""
    return to_js_string(trim_quotes_and_backslashes(json_stringify(value)) if value is not UNDEFINED else UNDEFINED)


def _is_vwd(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and isinstance(value[1], str)


def _label(value: Any) -> str:
    return to_js_string(value)


class _Run(msgspec.Struct):
    variables: dict[str, Any]
    reason_str: str = ""
    notes: list[str] = msgspec.field(default_factory=list)  # said about the command running now

    def value(self, text: Any) -> Any:
        """A command argument's value; one past the size limits skips the command."""
        try:
            return parse_command_value(text, self.notes)
        except TooLarge as error:
            raise _Skip(f"值{error}，没有写入 {self.reason_str}".rstrip()) from None

    @property
    def stat(self) -> Any:
        return self.variables["stat_data"]

    @property
    def schema(self) -> Any:
        return self.variables.get("schema")

    def flag(self, name: str, default: bool) -> Any:
        schema = self.schema
        value = schema.get(name, UNDEFINED) if isinstance(schema, dict) else UNDEFINED
        return default if value is UNDEFINED or value is None else value

    # --- _.set ---------------------------------------------------------------------------------

    def set(self, command: Command, path: str) -> str:
        stat = self.stat
        if path != "" and not lodash.has(stat, path):
            raise _Skip(f"Path '{path}' does not exist in stat_data, skipping set command {self.reason_str}")
        old_value = clone(stat) if path == "" else lodash.get(stat, path)
        new_value = self.value(command.args[-1])
        strict_set = self.flag("strictSet", False)
        path_is_vwd = False
        if (
            not strict_set
            and isinstance(old_value, list)
            and len(old_value) == 2
            and isinstance(old_value[1], str)
            and not isinstance(old_value[0], list)
        ):
            previous = clone(old_value[0])
            old_value[0] = to_number(new_value) if is_number(old_value[0]) and new_value is not None else new_value
            old_value = previous
            path_is_vwd = True
        elif is_number(old_value) and isinstance(new_value, str):
            lodash.set_(stat, path, to_number(new_value))
        elif path:
            lodash.set_(stat, path, new_value)
        else:
            self.variables["stat_data"] = new_value
        final = self.stat if path == "" else lodash.get(self.stat, path)
        if path_is_vwd:
            final = final[0]
        if not strict_set and _is_vwd(old_value) and isinstance(final, list):
            return f"{_shown(old_value[0])}->{_shown(final[0])} {self.reason_str}"
        return f"{_shown(old_value)}->{_shown(final)} {self.reason_str}"

    # --- _.insert / _.assign ---------------------------------------------------------------------

    def _check_insert(self, command: Command, path: str, existing: Any, target_schema: dict[str, Any] | None) -> None:
        if existing is not None and not isinstance(existing, dict | list):
            raise _Skip(
                f"Cannot assign into path '{path}' because it holds a primitive value ({typeof(existing)}). "
                f"Operation skipped. {self.reason_str}"
            )
        if target_schema:
            kind = target_schema.get("type")
            if kind == "object" and target_schema.get("extensible") is False:
                if len(command.args) == 2:
                    raise _Skip(
                        "SCHEMA VIOLATION: Cannot merge data into non-extensible object "
                        f"at path '{path}'. {self.reason_str}"
                    )
                new_key = to_js_string(self.value(command.args[1]))
                if not lodash.has(target_schema.get("properties"), [new_key]):
                    raise _Skip(
                        f"SCHEMA VIOLATION: Cannot assign new key '{new_key}' into non-extensible object at path "
                        f"'{path}'. {self.reason_str}"
                    )
            elif kind == "array" and target_schema.get("extensible", UNDEFINED) in (False, UNDEFINED):
                raise _Skip(
                    "SCHEMA VIOLATION: Cannot assign elements into non-extensible array "
                    f"at path '{path}'. {self.reason_str}"
                )
        elif path != "" and not lodash.get(self.stat, ".".join(lodash.to_path(path)[:-1])):
            raise _Skip(
                f"Cannot assign into non-existent path '{path}' without an extensible parent. {self.reason_str}"
            )

    def _template_options(self) -> tuple[bool, bool]:
        return bool(self.flag("strictTemplate", False)), bool(self.flag("concatTemplateArray", True))

    def insert(self, command: Command, path: str) -> str:
        stat = self.stat
        existing = stat if path == "" else lodash.get(stat, path)
        target_schema = schema_for_path(self.schema, path)
        self._check_insert(command, path, existing, target_schema)
        strict, concat = self._template_options()
        template = target_schema.get("template", UNDEFINED) if target_schema else UNDEFINED
        if len(command.args) == 2:
            value = self.value(command.args[1])
            collection = stat if path == "" else lodash.get(stat, path)
            if not isinstance(collection, dict | list):
                collection = [] if isinstance(value, list) else {}
                lodash.set_(stat, path, collection)
            if isinstance(collection, list):
                array_template = template if target_schema and target_schema.get("type") == "array" else UNDEFINED
                value = apply_template(value, array_template, strict, concat)
                collection.append(value)
                display = f"ASSIGNED {_json(value)} into array '{path}' {self.reason_str}"
            elif isinstance(value, dict):
                lodash.merge(collection, value)
                display = f"MERGED object {_json(value)} into object '{path}' {self.reason_str}"
            else:
                kind = "array" if isinstance(value, list) else "non-object"
                raise _Skip(f"Cannot merge {kind} into object at '{path}'")
        else:
            value = self.value(command.args[2])
            key = self.value(command.args[1])
            collection = stat if path == "" else lodash.get(stat, path)
            if isinstance(collection, list) and (is_number(key) or key == "-"):
                position = len(collection) if key == "-" else _splice_index(key, len(collection))
                label = "tail" if key in ("-", -1) else _label(key)
                value = apply_template(value, template, strict, concat)
                collection.insert(position, value)
                display = f"ASSIGNED {_json(value)} into '{path}' at index {label} {self.reason_str}"
            elif isinstance(collection, dict | list):
                value = apply_template(value, template, strict, concat)
                lodash.set_(collection, [to_js_string(key)], value)
                display = (
                    f"ASSIGNED key '{_label(key)}' with value {_json(value)} into object '{path}' {self.reason_str}"
                )
            else:
                collection = {}
                lodash.set_(stat, path, collection)
                value = apply_template(value, template, strict, concat)
                collection[to_js_string(key)] = value
                display = f"CREATED object at '{path}' and ASSIGNED key '{_label(key)}' {self.reason_str}"
        new_value = self.stat if not path.strip() else lodash.get(self.stat, path)
        # The new elements' own markers ($meta, the extensible string) take effect at once.
        new_schema = generate_schema(clone(new_value), target_schema)
        if target_schema is not None:
            lodash.merge(target_schema, new_schema)
        clean_up_metadata(new_value)
        return display

    # --- _.remove / _.unset / _.delete -----------------------------------------------------------------

    def delete(self, command: Command, path: str) -> str | None:
        stat = self.stat
        parts = lodash.to_path(path)
        last = parts[-1] if parts else ""
        if len(command.args) == 1 and last.isascii() and last.isdigit():
            container = lodash.get(stat, ".".join(parts[:-1]))
            index = int(last)
            if isinstance(container, list) and index < len(container):
                del container[index]
                return None  # MVU records no display line for this form
        if not lodash.has(stat, path):
            raise _Skip(f"undefined Path: {path} in _.remove command")
        container_path = path
        key: Any = UNDEFINED
        if len(command.args) > 1:
            key = self.value(command.args[1])
            if isinstance(key, str):
                key = trim_quotes_and_backslashes(key)
        else:
            remaining = lodash.to_path(path)
            popped = remaining.pop() if remaining else ""
            if popped:
                key = to_number(popped) if popped.isascii() and popped.isdigit() else popped
                container_path = ".".join(remaining)
        if key is UNDEFINED:
            raise _Skip(f"Could not determine target for deletion for command on path '{path}' {self.reason_str}")
        if container_path != "" and not lodash.has(stat, container_path):
            raise _Skip(f"Cannot remove from non-existent path '{container_path}'. {self.reason_str}")
        container_schema = schema_for_path(self.schema, container_path)
        if container_schema:
            if container_schema.get("type") == "array" and container_schema.get("extensible") is not True:
                raise _Skip(
                    f"SCHEMA VIOLATION: Cannot remove element from non-extensible array at path '{container_path}'. "
                    f"{self.reason_str}"
                )
            if container_schema.get("type") == "object":
                name = to_js_string(key)
                properties: Any = container_schema.get("properties")
                if lodash.has(properties, [name]) and properties[name].get("required") is True:
                    raise _Skip(
                        f"SCHEMA VIOLATION: Cannot remove required key '{name}' from path '{container_path}'. "
                        f"{self.reason_str}"
                    )
        target = self.value(command.args[1]) if len(command.args) > 1 else UNDEFINED
        if target is UNDEFINED:
            lodash.unset(stat, path)
            return f"REMOVED path '{path}' {self.reason_str}"
        collection = lodash.get(stat, path)
        if not isinstance(collection, dict | list):
            raise _Skip(
                f"Cannot remove from path '{path}' because it is not an array or object. "
                f"Skipping command. {self.reason_str}"
            )
        if isinstance(collection, list):
            if is_number(target):
                index = target
            else:
                index = next((i for i, item in enumerate(collection) if is_equal(item, target)), -1)
            if 0 <= index < len(collection):
                del collection[int(index)]
                return f"REMOVED item from '{path}' {self.reason_str}"
        elif is_number(target):
            keys = js_keys(collection)
            if 0 <= target < len(keys):
                # ``keys[0.5]`` is ``undefined`` in JavaScript, and then the key "undefined" is deleted.
                name = keys[int(target)] if float(target).is_integer() else "undefined"
                lodash.unset(collection, [name])
                return (
                    f"REMOVED {number_to_string(target + 1)}th entry ('{name}') from object '{path}' {self.reason_str}"
                )
        else:
            name = to_js_string(target)
            if lodash.has(collection, name):
                del collection[name]
                return f"REMOVED key '{name}' from object '{path}' {self.reason_str}"
        raise _Skip(f"Failed to execute remove on '{path}'")

    # --- _.add -------------------------------------------------------------------------------------

    def add(self, command: Command, path: str, utc_offset_minutes: int) -> str:
        stat = self.stat
        if not lodash.has(stat, path):
            raise _Skip(f"Path '{path}' does not exist in stat_data, skipping add command {self.reason_str}")
        initial = clone(lodash.get(stat, path))
        old_value = lodash.get(stat, path)
        is_vwd = _is_vwd(old_value) and typeof(old_value[0]) != "object"
        base = old_value[0] if is_vwd else old_value
        date_ms = None
        if isinstance(base, str) and math.isnan(to_number(base)):
            date_ms = parse_date_ms(base, utc_offset_minutes)
        if len(command.args) != 2:
            raise _Skip(f"Invalid number of arguments for _.add on path '{path}' {self.reason_str}")
        delta = self.value(command.args[1])
        if date_ms is not None:
            if not is_number(delta):
                raise _Skip(
                    f"Delta '{command.args[1]}' for Date operation is not a number, "
                    f"skipping add command {self.reason_str}"
                )
            try:
                new_value: Any = to_iso_string(date_ms + delta)
            except ValueError:
                # ``toISOString`` throws here in MVU and the whole update stops with it.
                raise VariableUpdateError(f"日期超出范围（Invalid time value）：{command.full_match}") from None
        elif is_number(base):
            if not is_number(delta):
                raise _Skip(f"Delta '{command.args[1]}' is not a number, skipping add command {self.reason_str}")
            new_value = to_precision_12(base + delta)
        else:
            raise _Skip(f"Path '{path}' value is not a date or number; skipping add command {self.reason_str}")
        if is_vwd:
            old_value[0] = new_value
            lodash.set_(stat, path, old_value)
        else:
            lodash.set_(stat, path, new_value)
        final = lodash.get(stat, path)
        if is_vwd:
            return f"{_json(initial[0])}->{_json(final[0])} {self.reason_str}"
        return f"{_json(initial)}->{_json(final)} {self.reason_str}"


# A refusal names its command; one that carries a huge value is named by its start (one line stays
# one line, not the megabytes a reply can hold).
_SHOWN_COMMAND_CHARS = 300


def _shown_command(command: Command) -> str:
    text = command.full_match
    if len(text) <= _SHOWN_COMMAND_CHARS:
        return text
    return f"{text[:_SHOWN_COMMAND_CHARS]}…（共 {len(text):,} 字）"


def _splice_index(key: float, length: int) -> int:
    if isinstance(key, float) and math.isnan(key):
        return 0
    position = int(key) if math.isfinite(key) else (length if key > 0 else -length - 1)
    if position < 0:
        return max(length + position, 0)
    return min(position, length)


def update_variables(
    message: str,
    variables: dict[str, Any],
    *,
    expand_macros: Callable[[str], str] | None = None,
    after_update: AfterUpdate | None = None,
    utc_offset_minutes: int = 0,
    schema: MvuSchema | None = None,
) -> UpdateResult:
    """Apply the update commands in ``message`` to ``variables`` (in place), as MVU's ``updateVariables``.

    ``expand_macros`` is SillyTavern's macro expansion that MVU runs over the message first
    (``{{user}}`` in a command); ``utc_offset_minutes`` is the local time zone for dates written
    without one; ``schema``: the card's registered zod schema (``zod_schema``), which then takes
    every command (checked against it) and leaves MVU's own rules none.
    """
    before = clone(variables)
    display_root = clone(variables.get("stat_data"))
    delta_root: dict[str, Any] = {}
    warnings: list[str] = []
    found = extract_commands(expand_macros(message) if expand_macros else message, warnings)
    for command in found:
        command.type = _ALIASES.get(command.type, command.type)
    # MVU parks live references to the display and delta records in ``stat_data.$internal`` while the
    # commands run (its event listeners read them there), so a ``_.set('', …)`` shows them too.
    lodash.set_(variables.get("stat_data"), "$internal", {"display_data": display_root, "delta_data": delta_root})
    commands = list(found)
    zod = schema.apply_commands(variables, [clone_command(c) for c in commands]) if schema is not None else None
    if zod is not None:
        warnings += zod.warnings
        if zod.registered:  # the schema's listener handled every command; MVU's own loop gets none
            commands = []
    for command in commands:
        if command.args:
            command.args[0] = path_fix(trim_quotes_and_backslashes(command.args[0]))
    run = _Run(variables)
    for command in commands:
        path = command.args[0] if command.args and isinstance(command.args[0], str) else ""
        run.reason_str = f"({command.reason})" if command.reason else ""
        display: str | None = None
        try:
            if command.type == "set":
                display = run.set(command, path)
            elif command.type == "insert":
                display = run.insert(command, path)
            elif command.type == "delete":
                display = run.delete(command, path)
            elif command.type == "add":
                display = run.add(command, path, utc_offset_minutes)
        except _Skip as skipped:
            warnings.append(f"{_shown_command(command)}: {skipped}")
            continue
        finally:
            warnings += [f"{_shown_command(command)}: {note}" for note in dict.fromkeys(run.notes)]
            run.notes.clear()
        if display:
            lodash.set_(display_root, path, display)
            lodash.set_(delta_root, path, display)
    variables["display_data"] = display_root
    variables["delta_data"] = delta_root
    if after_update is not None:
        after_update(variables, before)
    lodash.unset(variables.get("stat_data"), "$internal")
    try:
        check_value(variables.get("stat_data"))
    except TooLarge as error:  # each value fitted, all of them together do not: none of them is kept
        variables.clear()
        variables.update(before)
        return UpdateResult(False, found, [*warnings, f"这条回复的变量更新没有生效：变量{error}"])
    modified = not is_equal(variables.get("stat_data"), before.get("stat_data"))
    if modified:
        reconcile(variables)
    if zod is not None and zod.registered:
        # What mvu_zod leaves when the update ends: no generated schema, no display or delta lines.
        variables["schema"] = ZOD_SCHEMA_PLACEHOLDER
        variables.pop("display_data", None)
        variables.pop("delta_data", None)
    return UpdateResult(modified, found, warnings)


def clone_command(command: Command) -> Command:
    """A copy of *command* (its arguments too), for a listener that may change it."""
    return Command(command.type, command.full_match, list(command.args), command.reason, command.index)
