"""A card's JavaScript made ready for a sandboxed frame of the page: ``top`` renamed.

TavernHelper runs a card's scripts and status bars in frames of SillyTavern's own origin, and cards
reach the page through ``window.parent`` and ``window.top`` (``top.SillyTavern``, ``window.top.$``,
``if (window.top !== window)``…).  Our frames are sandboxed with an opaque origin, so the real
``parent`` and ``top`` are another origin's windows: reading a property of either throws.  The frame's
first script can put its own host in the place of ``parent`` (a replaceable attribute), but not of
``top``: ``window.top`` is unforgeable (non-configurable), and a global ``let top`` is a syntax error
for the same reason.  So the code is changed instead: every identifier ``top`` — a global lookup, and
equally the card's own variables of that name, renamed alike so their scopes stay as they were —
becomes ``__pear_top``, and ``window.top`` (``self.top``, ``parent.top``, ``window.parent.top``…)
becomes ``__pear_top`` too; the frame defines ``__pear_top`` as its host.  A property named ``top``
of anything else (``rect.top``, ``{top: 0}``, ``el.style.top``) is left alone; a shorthand
``{top}`` keeps its key (``{top: __pear_top}``).

Parsing is tree-sitter's (JavaScript and modules alike); a script that does not parse is renamed
where its tree is whole and left as it is inside the parts that did not parse.  Pure.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from peargarden.formats import replace_lone_surrogates

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

TOP = "__pear_top"
# Names that are the frame's window (or lead to another window) when read as a global.
_WINDOWS = frozenset({"window", "self", "globalThis", "frames", "parent", "top"})
_WINDOW_PROPERTIES = frozenset({"window", "self", "parent", "top"})
_MENTIONS_TOP = re.compile(r"(?<![\w$])top(?![\w$])")
# A classic or module script's element, its attributes and its text (not one with ``src``: nothing
# in it runs; status_frame.py takes those out).
_SCRIPT = re.compile(r"(<script\b(?P<attrs>[^>]*)>)(?P<body>[\s\S]*?)(</script\s*>)", re.IGNORECASE)
_TYPE = re.compile(r"""\btype\s*=\s*["']?([^"'\s>]*)""", re.IGNORECASE)
_RUNNABLE = frozenset({"", "module", "text/javascript", "application/javascript", "text/ecmascript"})


@lru_cache(maxsize=1)
def _parser() -> Parser:
    # tree-sitter is loaded when the first frame is made, not by every module of this package.
    import tree_sitter_javascript
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_javascript.language()))


def _is_window(node: Node) -> bool:
    """Whether *node* reads a window: ``window``, ``self``, ``parent``… or ``<window>.parent``."""
    if node.type == "identifier":
        return (node.text or b"").decode() in _WINDOWS
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        obj = node.child_by_field_name("object")
        return (
            prop is not None
            and obj is not None
            and (prop.text or b"").decode() in _WINDOW_PROPERTIES
            and _is_window(obj)
        )
    return False


def _edits(root: Node) -> list[tuple[int, int, bytes]]:
    """``(start, end, replacement)`` byte ranges, in no particular order, never overlapping."""
    out: list[tuple[int, int, bytes]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            continue
        kind = node.type
        if kind == "member_expression":
            prop = node.child_by_field_name("property")
            obj = node.child_by_field_name("object")
            if prop is not None and obj is not None and prop.text == b"top" and _is_window(obj):
                out.append((node.start_byte, node.end_byte, TOP.encode()))
                continue  # the object is replaced with it
        elif node.text == b"top":
            if kind == "identifier":
                out.append((node.start_byte, node.end_byte, TOP.encode()))
            elif kind in ("shorthand_property_identifier", "shorthand_property_identifier_pattern"):
                out.append((node.start_byte, node.end_byte, f"top: {TOP}".encode()))
            continue
        stack.extend(node.children)
    return out


def rename_top(source: str) -> str:
    """*source* (a script or a module) with ``top`` read as the frame's host (see the module)."""
    if not _MENTIONS_TOP.search(source):
        return source
    # A lone surrogate (legal in card text) would not encode: U+FFFD has the same UTF-8 length.
    data = replace_lone_surrogates(source).encode("utf-8")
    edits = sorted(_edits(_parser().parse(data).root_node), reverse=True)
    if not edits:
        return source
    out = bytearray(data)
    for start, end, text in edits:
        out[start:end] = text
    return out.decode("utf-8")


def rename_top_in_html(html: str) -> str:
    """*html* with the text of each of its scripts passed through :func:`rename_top`."""
    if not _MENTIONS_TOP.search(html):
        return html

    def one(match: re.Match[str]) -> str:
        kind = _TYPE.search(match["attrs"])
        if kind is not None and kind.group(1).lower() not in _RUNNABLE:
            return match.group(0)  # a template, JSON, a text/x-… block: no code
        return f"{match.group(1)}{rename_top(match['body'])}{match.group(4)}"

    return _SCRIPT.sub(one, html)


__all__ = ["TOP", "rename_top", "rename_top_in_html"]
