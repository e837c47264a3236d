"""A chat message as the page shows it: Markdown rendered to HTML, quotes coloured, then sanitised.

SillyTavern renders messages with showdown and keeps the HTML a reply carries (``<br>``, ``<font
color>``, ``<details>``, autolinks ``<https://…>``) after DOMPurify: ``*actions*`` in italics,
``**bold**``, code, single line breaks kept, quoted speech wrapped in ``<q>`` so a theme can colour it.
Here the parser is ``markdown-it-py`` (CommonMark) with raw HTML on, and the result goes through
``nh3`` (the ammonia sanitiser) with a list of formatting tags and attributes (a ``style`` keeps only
colours, fonts, alignment and spacing: nothing that places a box over the page), so nothing a model
writes can run in the page.

Only a *document* goes to the sandboxed frame (``static/card_html.js``): a whole HTML page, text with a
``<style>`` or ``<script>`` block (or another element a message has no business holding: forms,
frames, embedded objects), and a status bar a card's display script made of block HTML.
"""

from __future__ import annotations

import re

import nh3
from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": True, "breaks": True, "linkify": False}).disable("image")

ALLOWED_TAGS = {"p", "br", "em", "strong", "b", "i", "u", "del", "s", "strike", "ins", "mark", "small", "sub", "sup",
                "code", "pre", "kbd", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "hr", "h1", "h2", "h3", "h4",
                "h5", "h6", "q", "cite", "abbr", "a", "span", "div", "center", "font", "details", "summary", "ruby",
                "rt", "rp", "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"}  # fmt: skip
_STYLED = {"span", "div", "p", "font", "td", "th", "table", "center", "summary", "mark", "b", "i", "u", "strong", "em"}
ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "ol": {"start"},
    "font": {"color", "size", "face"},
    "details": {"open"},
    "abbr": {"title"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align"},
    "q": {"class"},
}
for _tag in _STYLED:
    ALLOWED_ATTRIBUTES.setdefault(_tag, set()).add("style")
# What a style attribute may keep: looks, never placement (no position, transform, z-index, size) nor
# anything that loads (no background or url()).
STYLE_PROPERTIES = {"color", "background-color", "font-weight", "font-style", "font-size", "font-family",
                    "text-decoration", "text-align", "text-indent", "line-height", "letter-spacing", "border",
                    "border-radius", "border-color", "border-style", "border-width", "padding", "margin",
                    "white-space", "opacity"}  # fmt: skip

# What SillyTavern's messages are not: a page, a style or script block, forms, frames, objects.
_DOCUMENT = re.compile(
    r"<(?:!doctype|html|head|body|style|script|link|meta|base|iframe|frame|frameset|object|embed|applet|form|input|"
    r"button|select|textarea|svg|math|canvas|video|audio|template)\b",
    re.IGNORECASE,
)
# Block HTML a display script builds a status bar of.
_BLOCK = re.compile(r"<(?:div|table|section|article|aside|header|footer|nav|ul|ol|dl|fieldset|details|p|h[1-6])\b",
                    re.IGNORECASE)  # fmt: skip
# Quoted speech, as SillyTavern marks it: "…", “…”, «…», 「…」, 『…』 and fullwidth ＂…＂.
_QUOTE = re.compile(r"&quot;[^<]*?&quot;|“[^“”<]*”|«[^«»<]*»|「[^「」<]*」|『[^『』<]*』|＂[^＂<]*＂")
# Text between tags, outside <code>/<pre> (a quote inside code stays code).
_SEGMENTS = re.compile(r"(<pre>.*?</pre>|<code>.*?</code>|<[^>]+>)", re.DOTALL)


def is_document(text: str, *, from_display_script: bool = False) -> bool:
    """Whether *text* is shown in the sandboxed frame rather than as a message: a whole page, a
    ``<style>``/``<script>`` block and the like, or (*from_display_script*) a status bar of block HTML
    a card's display script made."""
    if _DOCUMENT.search(text):
        return True
    return from_display_script and _BLOCK.search(text) is not None


def _colour_quotes(html: str) -> str:
    parts = _SEGMENTS.split(html)
    for index in range(0, len(parts), 2):  # even items are text between tags
        parts[index] = _QUOTE.sub(lambda m: f"<q>{m.group(0)}</q>", parts[index])
    return "".join(parts)


def render(text: str) -> str:
    """Sanitised HTML for a message's text (Markdown and the HTML it carries, line breaks kept,
    quotes in ``<q>``)."""
    html = _colour_quotes(_MD.render(text))
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes={"http", "https", "mailto"},
                     link_rel="noopener noreferrer nofollow", filter_style_properties=STYLE_PROPERTIES,
                     clean_content_tags={"script", "style"})  # fmt: skip
