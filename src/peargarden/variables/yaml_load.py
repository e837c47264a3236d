"""YAML as MVU reads it: the JavaScript ``yaml`` package's YAML 1.2 core schema, with merge keys.

PyYAML reads the syntax; what its plain scalars mean is decided here by the core schema's rules,
not PyYAML's YAML 1.1 ones: ``yes``/``on`` and dates stay strings, ``0123`` is 123, ``0o17`` octal,
``.inf`` infinity, and ``Infinity`` a string.  Keys become strings as JavaScript's ``String(key)``
makes them.  ``parseDocument(...).toJS()`` in JavaScript keeps the first document when junk follows
it (``'I can\\'t wait'`` is ``I can\\``); ``load_lenient`` does the same.  PyYAML is imported on first use.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from typing import Any

from peargarden.variables.jsvalues import js_number, to_js_string

_NULL = re.compile(r"^(?:~|[Nn]ull|NULL)?$")
_BOOL = re.compile(r"^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$")
_INT_OCT = re.compile(r"^0o[0-7]+$")
_INT = re.compile(r"^[-+]?[0-9]+$")
_INT_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT_SPECIAL = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$")
_FLOAT_EXP = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$")
_PLAIN_TAG = "tag:peargarden,2026:plain"


def core_scalar(text: str) -> Any:
    """The value of a plain scalar under the YAML 1.2 core schema (as the ``yaml`` package resolves it)."""
    if _NULL.match(text):
        return None
    if _BOOL.match(text):
        return text[0] in "tT"
    if _INT_OCT.match(text):
        return js_number(int(text[2:], 8))
    if _INT.match(text):
        return js_number(int(text))
    if _INT_HEX.match(text):
        return js_number(int(text[2:], 16))
    if _FLOAT_SPECIAL.match(text):
        if text[-3:].lower() == "nan":
            return math.nan
        return -math.inf if text.startswith("-") else math.inf
    if _FLOAT_EXP.match(text) or _FLOAT.match(text):
        return js_number(float(text))
    return text


class YamlError(ValueError):
    """The text is not YAML the way MVU reads it."""


@cache
def _loader_class() -> Any:
    import yaml

    class CoreLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type hints
        """SafeLoader whose plain scalars follow the core schema (resolved in ``construct_scalar``)."""

    CoreLoader.yaml_implicit_resolvers = {}
    # Merge keys keep their own tag so that PyYAML's merge handling (the ``yaml`` package's
    # ``merge: true``) still applies; every other plain scalar gets a tag of ours and is resolved by
    # the core schema when constructed.  A quoted scalar or one tagged ``!!str`` stays a string.
    CoreLoader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])
    CoreLoader.add_implicit_resolver(_PLAIN_TAG, re.compile(r".*", re.DOTALL), None)

    def construct_plain(loader: Any, node: Any) -> Any:
        return core_scalar(loader.construct_scalar(node))

    def construct_mapping(loader: Any, node: Any) -> dict[str, Any]:
        loader.flatten_mapping(node)
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            result[_js_key(key)] = loader.construct_object(value_node, deep=True)
        return result

    def construct_sequence(loader: Any, node: Any) -> list[Any]:
        return [loader.construct_object(child, deep=True) for child in node.value]

    def construct_unknown_tag(loader: Any, _suffix: str, node: Any) -> Any:
        # The ``yaml`` package warns about a tag it does not know and reads the node untagged.
        if isinstance(node, yaml.MappingNode):
            return construct_mapping(loader, node)
        if isinstance(node, yaml.SequenceNode):
            return construct_sequence(loader, node)
        return loader.construct_scalar(node)

    CoreLoader.add_multi_constructor("", construct_unknown_tag)
    CoreLoader.add_constructor(_PLAIN_TAG, construct_plain)
    CoreLoader.add_constructor("tag:yaml.org,2002:str", lambda loader, node: loader.construct_scalar(node))
    CoreLoader.add_constructor("tag:yaml.org,2002:map", construct_mapping)
    CoreLoader.add_constructor("tag:yaml.org,2002:seq", construct_sequence)
    return CoreLoader


def _js_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, float) and math.isfinite(key):
        key = js_number(key)
    if isinstance(key, list | dict):
        return json.dumps(key, ensure_ascii=False)
    return "" if key is None else to_js_string(key)


def _compose(text: str, *, strict: bool) -> Any:
    import yaml

    # A block scalar on the last line keeps its line break in the ``yaml`` package ("clip"), even
    # when the text has no final newline; PyYAML drops it then.  A final newline changes nothing else.
    if not text.endswith(("\n", "\r")):
        text += "\n"
    loader = _loader_class()(text)
    try:
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            return None
        node = loader.compose_document()
        # ``YAML.parse`` refuses anything after the first document; ``parseDocument().toJS()``
        # reports it but still returns the first one (``'I can\\'t wait'`` reads as ``I can\\``).
        if strict and not loader.check_event(yaml.StreamEndEvent):
            raise YamlError("more than one document, or text after the document")
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def load(text: str) -> Any:
    """``YAML.parse(text)``: the one document, or ``YamlError``."""
    import yaml

    try:
        return _compose(text, strict=True)
    except (yaml.YAMLError, RecursionError) as error:
        raise YamlError(str(error)) from error


def _flow_prefix(text: str) -> str | None:
    """The leading ``[…]`` or ``{…}`` of ``text`` (brackets counted outside quotes), or ``None``."""
    stripped = text.lstrip()
    if not stripped or stripped[0] not in "[{":
        return None
    depth = 0
    quote = ""
    position = 0
    while position < len(stripped):
        char = stripped[position]
        if quote:
            if char == "\\" and quote == '"':
                position += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return stripped[: position + 1]
        position += 1
    return None


def load_lenient(text: str) -> Any:
    """``YAML.parseDocument(text, {merge: true}).toJS()``: what follows the first document ignored.

    The ``yaml`` package also keeps a complete leading flow collection when junk follows it on the
    same line (``[{"op": …}] 说明``), where PyYAML's scanner stops; that case is read from the prefix.
    """
    import yaml

    try:
        return _compose(text, strict=False)
    except (yaml.YAMLError, RecursionError) as error:
        prefix = _flow_prefix(text)
        if prefix is not None and prefix != text.strip():
            try:
                return _compose(prefix, strict=True)
            except (yaml.YAMLError, YamlError, RecursionError):
                pass
        raise YamlError(str(error)) from error
