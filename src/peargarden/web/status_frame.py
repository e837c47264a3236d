"""A card's status bar as the chat page draws it: the parts of a message whose display text (the card's
display regex applied, with the user's allowance) holds a front-end document, and what each frame may load.

TavernHelper renders a code block whose text looks like a page (``html>``, ``<head>`` or ``<body``) as an
iframe that runs its scripts; MVU cards turn ``<StatusPlaceHolderImpl/>`` into such a block (a fenced
``html`` document) or into raw HTML with a ``<script>``.  Here:

* **Parts**: the text around a fenced document is a message as usual (Markdown, sanitised by
  :mod:`.markdown`); each document is a ``frame`` part, drawn by ``static/status_frame.js`` in an
  ``<iframe sandbox="allow-scripts">`` (never same-origin) whose bridge (``static/frame_bridge.js``)
  answers the part of TavernHelper's API status bars call.  A display with a ``<script>`` and no fence
  is one frame, below the lines of the model's words the regex left as they were.
* **Only the card's code runs**: a document the model wrote itself (the block is in the stored text, or
  the stored text carries a script or an event handler) is not a ``frame`` but a ``document``: the
  script-less frame every other document gets (``static/card_html.js``).
* **Libraries**: status bars count on jQuery (``$``) and lodash (``_``), which TavernHelper puts in every
  frame, and on ``YAML`` and ``z``, or load them and others (Vue, Font Awesome, …) from CDNs.  No frame
  loads anything from the network: the libraries of :mod:`.frame_libraries` are put into the frame by
  the page — jQuery and lodash always, YAML and zod when the document names or asks for them; every
  other ``<script src>`` and ``<link href>`` is taken out and named in ``blocked``, which the frame
  shows in one line — but those of a web address, and inline modules importing one, which the page
  fills with the card's remote modules (:func:`remote_loads`, ``app/play/remote_modules.py``).  (What a regex misses — a
  ``url()``, an ``import`` — the frame's CSP blocks, and the bridge adds it to the same line.)

Rewriting here is for the reader, not for safety: the sandbox, the CSP and the frame's first script
(``static/frame_guard.js``: no WebRTC, no frame in the frame) are the boundary.  One rewrite is for the
guard: a ``<template shadowrootmode>`` would have the parser attach a shadow root, a closed one out of
the guard's sight, so the attribute is renamed and the template stays a template.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from peargarden.app.play import classic_library, frame_html, mentions_packages, module_text

# TavernHelper's test for a code block that is a front-end page.
_FRONTEND_MARKS = ("html>", "<head>", "<body")
# A fenced code block: ``` (any language) to ``` on a line of its own; lines may end in \r\n (a card
# written on Windows: kai's template's greeting, around the \n the regex puts into its bar's fence).
_FENCE = re.compile(r"^[ \t]*```[^\n`]*\n([\s\S]*?)\r?\n?^[ \t]*```[ \t]*\r?$", re.MULTILINE)
# What makes HTML run something: a script, an event handler, a javascript: URL.
_RUNS = re.compile(r"<script\b|\bon[a-z]+\s*=|javascript:", re.IGNORECASE)
# A <script src> (with whatever it holds) or a <link>, in the document's order.
_LOADS = re.compile(r"<script\b[^>]*?\bsrc\s*=[^>]*>[\s\S]*?</script\s*>|<link\b[^>]*>", re.IGNORECASE)
_QUIET_LINKS = re.compile(r"^(?:preconnect|dns-prefetch|prefetch|canonical|manifest)$", re.IGNORECASE)
# A declarative shadow root's attribute (``shadowrootmode``, and ``shadowroot`` of older Chromium).
_DECLARATIVE_SHADOW = re.compile(r"\bshadowroot(mode)?(?=\s*=)", re.IGNORECASE)

# The libraries a frame gets (see frame_libraries.py): a file name a CDN serves it as, a package root
# (jsdelivr / unpkg ``/npm/jquery@3``), and how a document uses it without loading it.
_LIBRARY_FILES = {
    "jquery": re.compile(r"jquery(?:-\d+(?:\.\d+)*)?(?:\.slim)?(?:\.min)?\.js"),
    "lodash": re.compile(r"lodash(?:\.core)?(?:\.min)?\.js"),
    "yaml": re.compile(r"(?:js-)?yaml(?:\.min)?\.js"),
    "zod": re.compile(r"zod(?:\.min)?\.js"),
    "vue": re.compile(r"(?!)"),  # by address and version: classic_library (app/play/packaged_modules.py)
}
_LIBRARY_ROOT = re.compile(r"(?:^|/)(jquery|lodash|yaml|zod)(?:@[^/]*)?(?:/\+esm)?/?$")
# jQuery and lodash are in every frame, as in TavernHelper's (a bar reaches them as ``$``, ``parent.$``,
# ``const $$ = host().$ || window.$``…: no pattern finds every way); YAML and zod where the document
# names them.
_ALWAYS = ("jquery", "lodash")
_LIBRARY_USE = {
    "yaml": re.compile(r"\bYAML\b"),
    # ``z.object(…)``, or the global taken as a bundle's external (kai's template: ``const B=z,…B.z.object``).
    "zod": re.compile(
        r"(?:(?:(?<![\w$.])|(?<=parent\.)|(?<=window\.)|(?<=top\.)|(?<=self\.))z\s*\.\s*[a-z])|(?:=\s*z\s*[,;])"
    ),
}


def library_of(url: str) -> str | None:
    """Which library a script URL loads, when it is one a frame gets locally."""
    if classic_library(url):
        return "vue"
    path = urlsplit(url.strip()).path.lower()
    name = path.rsplit("/", 1)[-1]
    for library, pattern in _LIBRARY_FILES.items():
        if pattern.fullmatch(name):
            return library
    root = _LIBRARY_ROOT.search(path)
    return root.group(1) if root else None


def _attribute(tag: str, name: str) -> str | None:
    found = re.search(rf"""\b{name}\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", tag, re.IGNORECASE)
    if not found:
        return None
    return next(group for group in found.groups() if group is not None).strip()


def rewrite_document(html: str) -> tuple[str, list[str], list[str]]:
    """*html* without the tags that would load something, the local libraries it needs, and the URLs
    it asked for that no frame loads (in order, once each)."""
    libraries: list[str] = []
    blocked: list[str] = []

    def note(items: list[str], item: str) -> None:
        if item not in items:
            items.append(item)

    def load(match: re.Match[str]) -> str:
        tag = match.group(0)
        if tag[:5].lower() == "<link":
            href = _attribute(tag, "href") or ""
            if not href or href.lower().startswith("data:"):
                return tag
            if not _QUIET_LINKS.match(_attribute(tag, "rel") or ""):
                note(blocked, href)
            return ""
        src = _attribute(tag[: tag.index(">") + 1], "src") or ""
        library = library_of(src)
        if library:
            note(libraries, library)
        elif src:
            note(blocked, src)
        return ""

    kept = _DECLARATIVE_SHADOW.sub(r"data-pear-shadowroot\1", _LOADS.sub(load, html))
    libraries.extend(name for name in _ALWAYS if name not in libraries)
    for library, use in _LIBRARY_USE.items():
        if use.search(kept):
            note(libraries, library)
    return kept, [name for name in _LIBRARY_FILES if name in libraries], blocked


_WEB = re.compile(r"^https?://", re.IGNORECASE)
_STYLESHEET = re.compile(r"(?:^|\s)stylesheet(?:\s|$)", re.IGNORECASE)
_INLINE_MODULE = re.compile(r"<script\b(?P<attrs>[^>]*)>(?P<body>[\s\S]*?)</script\s*>", re.IGNORECASE)
_MODULE_TYPE = re.compile(r"""\btype\s*=\s*["']?module\b""", re.IGNORECASE)


def remote_loads(html: str) -> tuple[str, list[dict[str, Any]]]:
    """*html* with each ``<script src>`` and style sheet ``<link>`` of a web address (not a library a
    frame has) as an empty marker the page fills with the card's remote module (``remote_modules.py``:
    asked once per host, fetched once, offline after), and the list of them: ``{"url", "kind":
    "script"|"style"}``, the marker's ``data-pear-remote`` its index."""
    remote: list[dict[str, Any]] = []

    def one(match: re.Match[str]) -> str:
        tag = match.group(0)
        if tag[:5].lower() == "<link":
            href = _attribute(tag, "href") or ""
            if not (_WEB.match(href) and _STYLESHEET.search(_attribute(tag, "rel") or "")):
                return tag
            remote.append({"url": href, "kind": "style"})
            return f'<style data-pear-remote="{len(remote) - 1}"></style>'
        opening = tag[: tag.index(">") + 1]
        src = _attribute(opening, "src") or ""
        if not _WEB.match(src) or library_of(src):
            return tag
        kind = "module" if _MODULE_TYPE.search(opening) else "script"
        remote.append({"url": src, "kind": kind})
        return f'<script data-pear-remote="{len(remote) - 1}"></script>'

    return _LOADS.sub(one, html), remote


def remote_inline_modules(html: str, remote: list[dict[str, Any]]) -> str:
    """*html* with each inline ``<script type="module">`` that imports from a web address made inert
    (``text/x-pear-module``), its imports as markers; the frame's bridge runs it once the page has
    handed over its modules (``{"kind": "inline", "deps"}`` added to *remote*)."""

    def one(match: re.Match[str]) -> str:
        if not _MODULE_TYPE.search(match["attrs"]):
            return match.group(0)
        code, deps = module_text(match["body"], "")
        if not deps:
            return match.group(0)
        remote.append({"kind": "inline", "deps": deps})
        code = code.replace("</script", "<\\/script")
        return f'<script type="text/x-pear-module" data-pear-remote="{len(remote) - 1}">{code}</script>'

    return _INLINE_MODULE.sub(one, html)


def _frame(document: str) -> dict[str, Any]:
    marked, remote = remote_loads(document)
    html, libraries, blocked = rewrite_document(marked)
    if "vue" not in libraries and mentions_packages(document):  # Vue, or Pinia over the global Vue
        libraries.append("vue")
    return {"frame": remote_inline_modules(frame_html(html), remote), "libs": libraries, "blocked": blocked,
            "remote": remote}  # fmt: skip


def _shared_lines(display: str, content: str) -> int:
    """How much of *display* is *content*'s own beginning, in whole lines."""
    same = 0
    for ours, theirs in zip(display, content, strict=False):
        if ours != theirs:
            break
        same += 1
    return display.rfind("\n", 0, same) + 1


@lru_cache(maxsize=1024)
def _parts(display: str, content: str, render: Callable[[str], str | None]) -> tuple[dict[str, Any], ...] | None:
    fences = [m for m in _FENCE.finditer(display) if any(mark in m.group(1) for mark in _FRONTEND_MARKS)]
    parts: list[dict[str, Any]] = []

    def text(segment: str) -> None:
        if segment.strip():
            shown = render(segment.strip())
            parts.append({"html": shown} if shown is not None else {"document": segment.strip()})

    if not fences:
        if "<script" not in display.lower() or _RUNS.search(content):
            return None
        # The model's words the regex left as they were (whole lines) stay a message above the bar.
        cut = _shared_lines(display, content)
        text(display[:cut])
        parts.append(_frame(display[cut:]))
        return tuple(parts)
    at = 0
    for fence in fences:
        text(display[at : fence.start()])
        body = fence.group(1)
        parts.append(_frame(body) if body.strip() not in content else {"document": body})
        at = fence.end()
    text(display[at:])
    return tuple(parts)


def status_parts(display: str | None, content: str, render: Callable[[str], str | None]) -> list[dict[str, Any]] | None:
    """The parts the page draws for a message whose display holds a status bar the card made: ``{"html"}``
    (sanitised Markdown, *render* of the text), ``{"document"}`` (the script-less frame), ``{"frame",
    "libs", "blocked", "remote"}`` (the status-bar frame; ``remote``: :func:`remote_loads`); ``None``
    when the display holds none (the page draws the message as before)."""
    if display is None:
        return None
    parts = _parts(display, content, render)
    return [dict(part) for part in parts] if parts is not None else None
