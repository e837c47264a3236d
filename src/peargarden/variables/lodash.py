"""lodash's path and object functions as MVU calls them: ``toPath``, ``get``, ``has``, ``set``, ``unset``, ``merge``.

MVU addresses variables with lodash paths (``小梨.物品[0]``, ``a["b c"].d``), so the same text must
reach the same place here: a path naming an existing key whole (``'a.b'`` as one key) is that key,
``set`` creates arrays where the next segment is an index, ``unset`` of an array element leaves a hole.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from peargarden.variables.jsvalues import UNDEFINED, JsValue, is_equal, js_keys

# lodash's rePropName: a bare segment, a bracketed number or quoted string, or an empty segment.
_PROP_NAME = re.compile(
    r"""[^.\[\]]+|\[(?:(-?\d+(?:\.\d+)?)|(["'])((?:(?!\2)[^\\]|\\.)*?)\2)\]|(?=(?:\.|\[\])(?:\.|\[\]|$))"""
)
_ESCAPE_CHAR = re.compile(r"\\(\\)?")
_IS_DEEP_PROP = re.compile(r"""\.|\[(?:[^\[\]]*|(["'])(?:(?!\1)[^\\]|\\.)*?\1)\]""")
_IS_PLAIN_PROP = re.compile(r"^\w*$", re.ASCII)
_INDEX = re.compile(r"^(?:0|[1-9]\d*)$")
_UNSAFE_KEYS = frozenset({"__proto__", "constructor", "prototype"})


def to_path(path: str) -> list[str]:
    """``_.toPath(path)``: the segments of a lodash path string."""
    result: list[str] = []
    if path.startswith("."):
        result.append("")
    for match in _PROP_NAME.finditer(path):
        number, quote, inner = match.group(1), match.group(2), match.group(3)
        if quote:
            result.append(_ESCAPE_CHAR.sub(lambda m: m.group(1) or "", inner))
        else:
            result.append(number or match.group(0))
    return result


def _is_key(path: str, obj: JsValue) -> bool:
    if _IS_PLAIN_PROP.match(path) or not _IS_DEEP_PROP.search(path):
        return True
    return isinstance(obj, dict) and path in obj


def cast_path(path: str, obj: JsValue) -> list[str]:
    """lodash's ``castPath``: the whole string when it is itself a key of ``obj``, else its segments."""
    return [path] if _is_key(path, obj) else to_path(path)


def is_index(key: str, length: int | None = None) -> bool:
    if not _INDEX.match(key):
        return False
    return length is None or int(key) < length


def _child(container: JsValue, key: str) -> JsValue:
    """``container[key]`` for JSON values (``UNDEFINED`` when absent)."""
    if isinstance(container, dict):
        return container.get(key, UNDEFINED)
    if isinstance(container, list | str):
        if key == "length":
            return len(container)
        if is_index(key, len(container)):
            return container[int(key)]
    return UNDEFINED


def _has_own(container: JsValue, key: str) -> bool:
    if isinstance(container, dict):
        return key in container
    if isinstance(container, list | str):
        return key == "length" or is_index(key, len(container))
    return False


def get(obj: JsValue, path: str | list[str], default: JsValue = UNDEFINED) -> JsValue:
    """``_.get(obj, path, default)``."""
    keys = cast_path(path, obj) if isinstance(path, str) else path
    current = obj
    for key in keys:
        if current is None or current is UNDEFINED:
            return default
        current = _child(current, key)
    if not keys:
        return default
    return default if current is UNDEFINED else current


def has(obj: JsValue, path: str | list[str]) -> bool:
    """``_.has(obj, path)``: every segment an own property."""
    keys = cast_path(path, obj) if isinstance(path, str) else path
    if not keys:
        return False
    current = obj
    for key in keys:
        if current is None or current is UNDEFINED or not _has_own(current, key):
            return False
        current = _child(current, key)
    return True


def _assign(container: JsValue, key: str, value: JsValue) -> None:
    if isinstance(container, dict):
        container[key] = value
    elif isinstance(container, list) and is_index(key):
        index = int(key)
        if index >= len(container):
            container.extend([UNDEFINED] * (index + 1 - len(container)))
        container[index] = value
    # A named property on an array, or anything on a primitive, has no JSON form: JavaScript
    # keeps it on the object but no variable ever shows it, so it is dropped here.


def set_(obj: JsValue, path: str | list[str], value: JsValue) -> JsValue:
    """``_.set(obj, path, value)``: missing containers made, arrays where the next key is an index."""
    if not isinstance(obj, dict | list):
        return obj
    keys = cast_path(path, obj) if isinstance(path, str) else path
    nested: JsValue = obj
    for position, key in enumerate(keys):
        if key in _UNSAFE_KEYS:
            return obj
        if position == len(keys) - 1:
            _assign(nested, key, value)
            break
        current = _child(nested, key)
        if not isinstance(current, dict | list):
            current = [] if is_index(keys[position + 1]) else {}
            _assign(nested, key, current)
        nested = current if isinstance(nested, dict | list) else UNDEFINED
        if not isinstance(nested, dict | list):
            break
    return obj


def unset(obj: JsValue, path: str | list[str]) -> bool:
    """``_.unset(obj, path)``: delete the last key; an array element becomes a hole."""
    keys = cast_path(path, obj) if isinstance(path, str) else path
    if not keys:
        return True
    parent = obj if len(keys) == 1 else get(obj, keys[:-1])
    last = keys[-1]
    if isinstance(parent, dict):
        parent.pop(last, None)
    elif isinstance(parent, list) and is_index(last, len(parent)):
        parent[int(last)] = UNDEFINED
    return True


MergeCustomizer = Callable[[JsValue, JsValue], JsValue]


def _keys_in(source: JsValue) -> list[str]:
    if isinstance(source, dict):
        return js_keys(source)
    if isinstance(source, list):
        return [str(index) for index in range(len(source))]
    return []


def _merge_into(target: JsValue, source: JsValue, customizer: MergeCustomizer | None) -> None:
    for key in _keys_in(source):
        src_value = _child(source, key)
        obj_value = _child(target, key)
        new_value: JsValue = customizer(obj_value, src_value) if customizer else UNDEFINED
        if new_value is UNDEFINED and isinstance(src_value, dict | list):
            if isinstance(src_value, list):
                new_value = obj_value if isinstance(obj_value, list) else []
            else:
                new_value = obj_value if isinstance(obj_value, dict | list) else {}
            _merge_into(new_value, src_value, customizer)
        elif new_value is UNDEFINED:
            new_value = src_value
        _assign_merge_value(target, key, new_value)


def _assign_merge_value(target: JsValue, key: str, value: JsValue) -> None:
    present = _has_own(target, key)
    if value is UNDEFINED:
        if not present:
            _assign(target, key, value)
        return
    current = _child(target, key)
    if not present or (current is not value and not (not isinstance(value, dict | list) and is_equal(current, value))):
        _assign(target, key, value)


def merge(target: JsValue, *sources: JsValue, customizer: MergeCustomizer | None = None) -> JsValue:
    """``_.merge(target, ...sources)`` (``_.mergeWith`` with a customizer): deep, in place, arrays by index."""
    for source in sources:
        if isinstance(source, dict | list):
            _merge_into(target, source, customizer)
    return target


def _replace_arrays(_current: JsValue, incoming: JsValue) -> JsValue:
    return incoming if isinstance(incoming, list) else UNDEFINED


def correctly_merge(target: JsValue, source: JsValue) -> JsValue:
    """MVU's ``correctlyMerge``: ``_.merge`` where an incoming array replaces the one it meets."""
    return merge(target, source, customizer=_replace_arrays)
