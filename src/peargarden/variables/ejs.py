"""EJS templates (``<% %>``, as the ST-Prompt-Template extension writes them) compiled to JavaScript source.

Pure text work; running the source is ``templates_js``'s job.  The tags are EJS 3's: ``<% code %>``,
``<%_ code _%>`` (spaces and tabs before ``<%_`` and after ``_%>`` removed), ``<%= value %>`` (HTML
escaped), ``<%- value %>`` (raw), ``<%# comment %>``, ``<%%`` for a literal ``<%``, and ``-%>`` /
``_%>`` also eating the newline that follows.  ``null`` and ``undefined`` print as nothing.
"""

from __future__ import annotations

import json
import re

_TAG = re.compile(r"(<%%|%%>|<%=|<%-|<%_|<%#|<%|%>|-%>|_%>)")
_SLURP_BEFORE = re.compile(r"[ \t]*<%_")
_SLURP_AFTER = re.compile(r"_%>[ \t]*")
_TRAILING_SEMICOLON = re.compile(r";\s*$")


class TemplateSyntaxError(ValueError):
    """A ``<%`` without its ``%>``, or a tag inside a tag."""


def has_template(text: str) -> bool:
    """Whether ``text`` contains an EJS tag at all (most entries do not: they are left untouched)."""
    return "<%" in text


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def compile_template(template: str) -> str:
    """JavaScript statements that build the output in ``__output`` (``__append`` / ``__escape`` given)."""
    text = _SLURP_AFTER.sub("_%>", _SLURP_BEFORE.sub("<%_", template))
    source: list[str] = []
    mode: str | None = None
    truncate = False
    for part in _TAG.split(text):
        if not part:
            continue
        if part == "<%%":
            source.append(f"__append({_literal('<%')});\n")
            continue
        if part == "%%>":
            source.append(f"__append({_literal('%>')});\n")
            continue
        if part in ("<%", "<%_", "<%=", "<%-", "<%#"):
            if mode is not None:
                raise TemplateSyntaxError(f"'{part}' inside another tag")
            mode = part
            continue
        if part in ("%>", "-%>", "_%>"):
            if mode is None:
                source.append(f"__append({_literal(part)});\n")
                continue
            mode = None
            truncate = part != "%>"
            continue
        if mode is None:
            if truncate:
                part = re.sub(r"^(?:\r\n|\r|\n)", "", part)
                truncate = False
            if part:
                source.append(f"__append({_literal(part)});\n")
        elif mode in ("<%", "<%_"):
            source.append(part + "\n")
        elif mode == "<%=":
            source.append(f"; __append(__escape({_TRAILING_SEMICOLON.sub('', part)}));\n")
        elif mode == "<%-":
            source.append(f"; __append({_TRAILING_SEMICOLON.sub('', part)});\n")
    if mode is not None:
        raise TemplateSyntaxError(f"'{mode}' is never closed with '%>'")
    return "".join(source)
