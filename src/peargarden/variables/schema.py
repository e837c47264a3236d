"""The schema MVU generates from the variables: which arrays and objects may grow or shrink.

By default every array and object is **not extensible**: ``_.insert`` into it and removing from it
are refused.  A card opens one up with the string ``$__META_EXTENSIBLE__$`` as an element of an
array, or ``$meta: {extensible: true}`` (or ``recursiveExtensible``, which opens the whole subtree)
in an object; ``$meta.required`` lists keys that stay required, ``$meta.template`` fills new
elements.  An array's element type is the schema of its first element.  After a change the schema is
generated again, keeping what the old one said (``reconcile``).

The node shapes are MVU's (``{"type": "object", "properties": …, "extensible": …}``) because they
are stored in the chat.  A card that registers a zod schema (``zod_schema``) has its constraints
checked there instead; its records keep ``ZOD_SCHEMA_PLACEHOLDER`` as their schema, which the
generator leaves alone.
"""

from __future__ import annotations

from typing import Any

from peargarden.variables import lodash
from peargarden.variables.jsvalues import UNDEFINED, clone, is_number, js_keys, truthy

EXTENSIBLE_MARKER = "$__META_EXTENSIBLE__$"
# What a record keeps as its ``schema`` once a registered zod schema ran (mvu_zod writes it, "no use,
# never mind this"); MVU's generator answers ``{"type": "any"}`` for it, so it is never replaced.
ZOD_SCHEMA_PLACEHOLDER = "没有用别管这个"
_ROOT_FLAGS = ("strictTemplate", "strictSet", "concatTemplateArray")


def _is_array_meta(item: Any) -> bool:
    return isinstance(item, dict) and "$arrayMeta" in item and "$meta" in item and item["$arrayMeta"] is True


def _array_schema(data: list[Any], old: dict[str, Any] | None, parent_recursive: bool) -> dict[str, Any]:
    extensible = False
    recursive = parent_recursive
    old_element: dict[str, Any] | None = None
    template: Any = UNDEFINED
    if old and old.get("type") == "array":
        extensible = old.get("extensible") is True
        recursive = old.get("recursiveExtensible") is True or parent_recursive
        old_element = old.get("elementType")
        template = old.get("template", UNDEFINED)
    meta_index = next((index for index, item in enumerate(data) if _is_array_meta(item)), -1)
    if meta_index != -1:
        meta = data[meta_index]["$meta"]
        if isinstance(meta, dict):
            if meta.get("extensible", UNDEFINED) is not UNDEFINED:
                extensible = meta["extensible"]
            if meta.get("template", UNDEFINED) is not UNDEFINED:
                template = meta["template"]
        del data[meta_index]
    if EXTENSIBLE_MARKER in data:
        extensible = True
        data.remove(EXTENSIBLE_MARKER)
    node: dict[str, Any] = {
        "type": "array",
        "extensible": extensible or parent_recursive,
        "recursiveExtensible": recursive,
        "elementType": generate_schema(data[0], old_element, recursive) if data else {"type": "any"},
    }
    if template is not UNDEFINED:
        node["template"] = template
    return node


def _object_schema(data: dict[str, Any], old: dict[str, Any] | None, parent_recursive: bool) -> dict[str, Any]:
    old_extensible = False
    old_recursive = parent_recursive
    old_properties: dict[str, Any] | None = None
    if old and old.get("type") == "object":
        old_extensible = old.get("extensible") is True
        old_recursive = old.get("recursiveExtensible") is True or parent_recursive
        old_properties = old.get("properties")
    meta = data.get("$meta")
    meta_dict = meta if isinstance(meta, dict) else {}
    node: dict[str, Any] = {
        "type": "object",
        "properties": {},
        "extensible": old_extensible
        or meta_dict.get("extensible") is True
        or meta_dict.get("recursiveExtensible") is True
        or parent_recursive,
        "recursiveExtensible": old_recursive or meta_dict.get("recursiveExtensible") is True,
    }
    if meta_dict.get("template", UNDEFINED) is not UNDEFINED:
        node["template"] = meta_dict["template"]
    elif old and old.get("type") == "object" and truthy(old.get("template")):
        node["template"] = old["template"]
    data.pop("$meta", None)
    required_keys = meta_dict.get("required")
    child_recursive = node["extensible"] is not False and node["recursiveExtensible"]
    for key in js_keys(data):
        old_child = old_properties.get(key) if isinstance(old_properties, dict) else None
        child = generate_schema(data[key], old_child, bool(child_recursive))
        required = not node["extensible"]
        if isinstance(required_keys, list) and key in required_keys:
            required = True
        if isinstance(old_child, dict) and old_child.get("required") is False:
            required = False
        elif isinstance(old_child, dict) and old_child.get("required") is True:
            required = True
        node["properties"][key] = {**child, "required": required}
    return node


def generate_schema(
    data: Any, old: dict[str, Any] | str | None = None, parent_recursive: bool = False
) -> dict[str, Any]:
    """MVU's ``generateSchema``: the schema of ``data``, inheriting from ``old``.

    Like MVU it removes the markers it reads (``$meta``, the extensible string, ``$arrayMeta``
    elements) from ``data``, so callers pass a copy when the data must keep them.
    """
    if old == ZOD_SCHEMA_PLACEHOLDER:
        return {"type": "any"}
    if isinstance(data, list):
        return _array_schema(data, old if isinstance(old, dict) else None, parent_recursive)
    if isinstance(data, dict):
        return _object_schema(data, old if isinstance(old, dict) else None, parent_recursive)
    if isinstance(data, bool):
        return {"type": "boolean"}
    if isinstance(data, str):
        return {"type": "string"}
    if is_number(data):
        return {"type": "number"}
    return {"type": "any"}


def schema_for_path(schema: dict[str, Any] | str | None, path: str) -> dict[str, Any] | None:
    """MVU's ``getSchemaForPath``: the schema node a lodash path leads to, or ``None``."""
    if not isinstance(schema, dict):  # none, or a zod card's placeholder: no node to follow
        return None
    if not path:
        return schema or None
    current: Any = schema
    for segment in lodash.to_path(path):
        if not isinstance(current, dict):
            return None
        if segment.isascii() and segment.isdigit():
            if current.get("type") != "array":
                return None
            current = current.get("elementType")
        elif (
            current.get("type") == "object"
            and isinstance(current.get("properties"), dict)
            and current["properties"].get(segment)
        ):
            current = current["properties"][segment]
        else:
            return None
    return current if isinstance(current, dict) else None


def regenerate(variables: dict[str, Any], *, keep_old_flags: bool = True) -> None:
    """``variables['schema']`` made again from ``stat_data`` (the old schema's extensibility inherited).

    The root flags (``strictTemplate``, ``strictSet``, ``concatTemplateArray``) come from the old
    schema when ``keep_old_flags`` (MVU's reconcile after an update; its first seeding does not), and
    from ``stat_data.$meta``, which wins.
    """
    old_schema = variables.get("schema")
    stat_data = variables.get("stat_data")
    kept = old_schema if isinstance(old_schema, dict) or old_schema == ZOD_SCHEMA_PLACEHOLDER else None
    new_schema = generate_schema(clone(stat_data), kept)
    if new_schema.get("type") != "object":
        return
    if keep_old_flags and isinstance(old_schema, dict):
        for flag in _ROOT_FLAGS:
            if old_schema.get(flag, UNDEFINED) is not UNDEFINED:
                new_schema[flag] = old_schema[flag]
    meta = stat_data.get("$meta") if isinstance(stat_data, dict) else None
    if isinstance(meta, dict):
        for flag in _ROOT_FLAGS:
            if flag in meta:
                new_schema[flag] = meta[flag]
    variables["schema"] = new_schema


def reconcile(variables: dict[str, Any]) -> None:
    """MVU's ``reconcileAndApplySchema``: the schema made again after ``stat_data`` changed."""
    regenerate(variables, keep_old_flags=True)


def clean_up_metadata(data: Any) -> None:
    """MVU's ``cleanUpMetadata``: the markers and ``$meta`` keys removed from the data, in place."""
    if isinstance(data, list):
        for index in range(len(data) - 1, -1, -1):
            item = data[index]
            if item == EXTENSIBLE_MARKER or _is_array_meta(item):
                del data[index]
            else:
                clean_up_metadata(item)
    elif isinstance(data, dict):
        data.pop("$meta", None)
        for value in data.values():
            clean_up_metadata(value)
