"""YAML as MVU reads it: the JavaScript ``yaml`` package's YAML 1.2 core schema, with merge keys.

PyYAML reads the syntax; what its plain scalars mean is decided here by the core schema's rules,
not PyYAML's YAML 1.1 ones: ``yes``/``on`` and dates stay strings, ``0123`` is 123, ``0o17`` octal,
``.inf`` infinity, and ``Infinity`` a string.  Keys become strings as JavaScript's ``String(key)``
makes them.  ``parseDocument(...).toJS()`` in JavaScript keeps the first document when junk follows
it (``'I can\\'t wait'`` is ``I can\\``); ``load_lenient`` does the same.  PyYAML is imported on first use.

Aliases are counted as the ``yaml`` package counts them (its ``maxAliasCount``, 100 by default, which
MVU keeps): a text whose aliases would expand more than that (the "billion laughs": ``&a [x, x…]``,
``&b [*a, *a…]``, …) is refused with :class:`YamlAliasError` before anything is built, as ``YAML.parse``
refuses it.  The rule, per anchor: each alias adds one to the anchor's count (the anchor itself is
one), and the count times the anchor's *alias weight* must stay ≤ 100.  The weight is taken once, at
the first alias: the largest of its content's — 1 for a scalar, an alias's own anchor's count times
its weight, the largest over a collection's items (0 for an empty one).  A merge key's alias (``<<:
*base``) counts in ``load`` (``YAML.parse`` knows no merge keys: ``<<`` is a plain key there) and not
in ``load_lenient`` (``merge: true`` reads it without counting).  An alias inside its own anchor
(``&a [1, *a]``) is refused too: the package builds a cyclic value there, which has no JSON form.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from typing import Any

from peargarden.variables.bounds import bracket_depths
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


MAX_ALIAS_COUNT = 100

ALIAS_REFUSAL = (
    f"YAML 的别名（alias）展开过多，超过 {MAX_ALIAS_COUNT}，已拒绝"
    "（Excessive alias count indicates a resource exhaustion attack）"
)


class YamlAliasError(YamlError):
    """The text's aliases expand past ``MAX_ALIAS_COUNT`` (the ``yaml`` package refuses it too)."""


@cache
def _loader_class() -> Any:
    import yaml

    class CoreLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type hints
        """SafeLoader whose plain scalars follow the core schema (resolved in ``construct_scalar``),
        counting aliases as it composes (see the module docstring)."""

        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.alias_counts = _AliasCounts()

        def compose_node(self, parent: Any, index: Any) -> Any:
            counts: _AliasCounts = self.alias_counts
            if self.check_event(yaml.AliasEvent):
                node = super().compose_node(parent, index)
                counts.alias(node, parent, index, merging=_is_merge_key(index) or counts.in_merge_list(parent))
                return node
            event = self.peek_event()
            counts.enter(_is_merge_key(index) and isinstance(event, yaml.SequenceStartEvent))
            try:
                node = super().compose_node(parent, index)
            finally:
                counts.leave()
            if event.anchor is not None:
                counts.anchor(node)
            return node

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


def _is_merge_key(index: Any) -> bool:
    """Whether a mapping value being composed is a merge key's (``index`` is the key's node)."""
    return getattr(index, "tag", None) == "tag:yaml.org,2002:merge"


class _AliasCounts:
    """The ``yaml`` package's alias bookkeeping over PyYAML's composition (the order of its ``toJS``).

    PyYAML hands an alias back as its anchor's very node, so where aliases stand is noted here:
    ``(id(parent), slot)``, the slot being a sequence item's position, or a mapping pair's position
    with 0 for its key and 1 for its value.  Nodes live until the document is built: ids are stable.
    """

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}  # a composed anchored node → 1 + the aliases to it so far
        self.weights: dict[int, int] = {}  # an anchored node → its alias weight, once non-zero
        self.alias_slots: set[tuple[int, Any]] = set()
        self.merge_lists: list[bool] = []  # per node being composed: a sequence under a merge key
        self.count_merges = True

    def enter(self, merge_list: bool) -> None:
        self.merge_lists.append(merge_list)

    def leave(self) -> None:
        self.merge_lists.pop()

    def in_merge_list(self, parent: Any) -> bool:
        return parent is not None and bool(self.merge_lists) and self.merge_lists[-1]

    def anchor(self, node: Any) -> None:
        self.counts[id(node)] = 1

    def alias(self, source: Any, parent: Any, index: Any, *, merging: bool) -> None:
        key = id(source)
        if key not in self.counts:
            # Its anchor's node is still being composed: an alias inside itself, which the ``yaml``
            # package cannot resolve either (and a recursive value would have no JSON form).
            raise YamlAliasError("YAML 的别名指向它自己所在的节点（recursive alias），已拒绝")
        if parent is not None:
            position = len(parent.value)
            slot = (position, 0 if index is None else 1) if _is_mapping(parent) else position
            self.alias_slots.add((id(parent), slot))
        if merging and not self.count_merges:
            return
        self.counts[key] += 1
        weight = self.weights.get(key) or self._weight(source)
        if weight:
            self.weights[key] = weight
        if self.counts[key] * weight > MAX_ALIAS_COUNT:
            raise YamlAliasError(ALIAS_REFUSAL)

    def _weight(self, source: Any) -> int:
        """The largest weight in *source*'s content (the package's ``getAliasCount``), walked
        without recursion and without entering aliases."""
        best = 0
        stack = [source]
        while stack:
            node = stack.pop()
            if not isinstance(node.value, list):
                best = max(best, 1)
                continue
            mapping = _is_mapping(node)
            for position, child in enumerate(node.value):
                for side, item in enumerate(child if mapping else (child,)):
                    if (id(node), (position, side) if mapping else position) in self.alias_slots:
                        best = max(best, self.counts.get(id(item), 0) * self.weights.get(id(item), 0))
                    else:
                        stack.append(item)
        return best


def _is_mapping(node: Any) -> bool:
    import yaml

    return isinstance(node, yaml.MappingNode)


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
    loader.alias_counts.count_merges = strict
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
        raise YamlError(_one_line(error)) from error


def _one_line(error: BaseException) -> str:
    """A reader's error in one line: its problem and where (PyYAML's own text spans five)."""
    if isinstance(error, RecursionError):
        return "嵌套太深"
    problem = getattr(error, "problem", None)
    mark = getattr(error, "problem_mark", None)
    if problem and mark is not None:
        return f"第 {mark.line + 1} 行第 {mark.column + 1} 列：{problem}"
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _flow_prefix(text: str) -> str | None:
    """The leading ``[…]`` or ``{…}`` of ``text`` (brackets counted outside quotes), or ``None``."""
    stripped = text.lstrip()
    if not stripped or stripped[0] not in "[{":
        return None
    for position, depth in bracket_depths(stripped):
        if depth == 0:
            return stripped[: position + 1]
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
        raise YamlError(_one_line(error)) from error
