"""A chat message as the page shows it: Markdown rendered to HTML, quotes coloured, then sanitised.

SillyTavern renders messages with showdown: ``*actions*`` in italics, ``**bold**``, code, single
line breaks kept, and quoted speech wrapped in ``<q>`` so a theme can colour it.  Here the parser is
``markdown-it-py`` (CommonMark) with raw HTML switched off, and the result goes through ``nh3``
(the ammonia sanitiser) with a short list of formatting tags, so nothing a model writes can run in
the page.  Text that *is* HTML (card status bars, styled greetings) is not rendered here: the page
shows it in the sandboxed frame (``static/card_html.js``).
"""

from __future__ import annotations

import re

import nh3
from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False}).disable("image")

ALLOWED_TAGS = {"p", "br", "em", "strong", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li", "hr",
                "h1", "h2", "h3", "h4", "h5", "h6", "q", "a", "span"}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "span": {"class"}, "q": {"class"}}

_HTML = re.compile(r"</?[a-z][^>]*>", re.IGNORECASE)
# Quoted speech, as SillyTavern marks it: "…", “…”, «…», 「…」, 『…』 and fullwidth ＂…＂.
_QUOTE = re.compile(r"&quot;[^<]*?&quot;|“[^“”<]*”|«[^«»<]*»|「[^「」<]*」|『[^『』<]*』|＂[^＂<]*＂")
# Text between tags, outside <code>/<pre> (a quote inside code stays code).
_SEGMENTS = re.compile(r"(<pre>.*?</pre>|<code>.*?</code>|<[^>]+>)", re.DOTALL)


def looks_like_html(text: str) -> bool:
    """The same test as the page's ``looksLikeHtml``: such text goes to the sandboxed frame."""
    return _HTML.search(text) is not None


def _colour_quotes(html: str) -> str:
    parts = _SEGMENTS.split(html)
    for index in range(0, len(parts), 2):  # even items are text between tags
        parts[index] = _QUOTE.sub(lambda m: f"<q>{m.group(0)}</q>", parts[index])
    return "".join(parts)


def render(text: str) -> str:
    """Sanitised HTML for a message's text (Markdown, line breaks kept, quotes in ``<q>``)."""
    html = _colour_quotes(_MD.render(text))
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes={"http", "https"},
                     link_rel="noopener noreferrer nofollow")  # fmt: skip
