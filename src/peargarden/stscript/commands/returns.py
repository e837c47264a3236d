"""``return=``: how a command hands back what it made (SillyTavern's ``SlashCommandReturnHelper``).

``pipe`` gives the text, ``object`` the JSON, ``toast-*`` an info toast, ``popup-*`` a dialog,
``chat-*`` a system message in the chat, ``console`` and ``none`` nothing; any other word is an
error.  The ``*-html`` forms render the text as Markdown; the ``*-text`` forms escape it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from .. import values as js
from ..runtime import Call, CommandError

RETURN_TYPES = (
    "pipe",
    "object",
    "chat-html",
    "chat-text",
    "popup-html",
    "popup-text",
    "toast-html",
    "toast-text",
    "console",
    "none",
)
_SHOWN = frozenset({"popup-html", "popup-text", "chat-html", "chat-text", "toast-html", "toast-text"})


def escape_html(text: str) -> str:
    """SillyTavern's ``escapeHtml``: ``& < > " '`` as entities."""
    return html.escape(text, quote=True).replace("&#x27;", "&#39;")


def markdown_html(text: str) -> str:
    """The Markdown the list commands write (``### heading``, ``* item``, paragraphs) as HTML — the
    part of showdown's rendering those texts use, not a Markdown engine."""
    out: list[str] = []
    for block in re.split(r"\n{2,}", text.strip("\n")):
        # Runs of lines of one kind: a heading, list items, or paragraph text.
        runs: list[tuple[str, list[str]]] = []
        for line in block.split("\n"):
            heading = re.match(r"(#{1,6})\s+(.*)", line)
            item = re.match(r"[*\-+]\s+(.*)", line)
            if heading:
                level = len(heading.group(1))
                runs.append((f"h{level}", [heading.group(2)]))
            elif item:
                if runs and runs[-1][0] == "ul":
                    runs[-1][1].append(item.group(1))
                else:
                    runs.append(("ul", [item.group(1)]))
            elif runs and runs[-1][0] == "p":
                runs[-1][1].append(line)
            else:
                runs.append(("p", [line]))
        for tag, lines in runs:
            if tag == "ul":
                out.append("<ul>\n" + "\n".join(f"<li>{_inline(x)}</li>" for x in lines) + "\n</ul>")
            elif tag == "p":
                out.append("<p>" + "<br />\n".join(_inline(x) for x in lines) + "</p>")
            else:
                out.append(f"<{tag}>{_inline(lines[0])}</{tag}>")
    return "\n".join(out)


def _inline(text: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)


def rendered_text(markup: str) -> str:
    """What a reader sees of HTML: the tags dropped, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def do_return(call: Call, kind: Any, value: Any, as_text: Callable[[Any], str]) -> str:
    """``doReturn(type, value, {objectToStringFunc})``: ``value`` as ``kind`` asks (see the module)."""
    how = js.string(kind)
    shown = value if isinstance(value, str) else as_text(value)
    if how in _SHOWN:
        is_html = how.endswith("html")
        markup = markdown_html(shown) if is_html else escape_html(shown)
        host = call.host
        if how.startswith("popup"):
            host.popup(rendered_text(markup) if is_html else shown, ok="OK", cancel=None)
        elif how.startswith("chat"):
            host.system_message(markup)
        else:
            # ``toast-text`` escapes the text and asks toastr to escape it again: the entities show.
            host.toast("info", rendered_text(markup) if is_html else markup)
        return ""
    if how == "pipe":
        return shown
    if how == "object":
        return js.stringify(value) or ""
    if how in ("console", "none"):
        if how == "console":
            call.host.console_warn(js.string(shown))
        return ""
    raise CommandError(f"Unknown return type: {how}")


__all__ = ["RETURN_TYPES", "do_return", "escape_html", "markdown_html", "rendered_text"]
