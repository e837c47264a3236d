"""The look of the page: a SillyTavern theme, light or dark, and user CSS, as one stylesheet (pure).

:func:`page_css` is what every page carries in its ``<style id="pear-theme">``.  The palette of the
mode (light is the page's own look: nothing; dark its dark palette; auto the dark one under
``prefers-color-scheme: dark``), then the theme's values as custom properties and the rules that use
them, then the user's CSS (the theme's ``custom_css``).

User CSS cannot run script (no CSS can) nor load anything, whatever the page's security headers
allow: ``@import`` rules are dropped, ``url()`` to anything but an inline ``data:image/…`` and the
functions that take a URL as a plain string (``image-set``, ``image``, ``src``, ``cross-fade``,
``element``, and the old ``expression``) become ``none``, and nothing in it can close the style
element (no ``<`` survives; escapes outside strings are read first, so ``u\\72 l(`` is seen as the
``url(`` a browser would see).  :func:`clean_css` says what it took out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_COMMENT = re.compile(r"/\*.*?(\*/|$)", re.S)
_IMPORT = re.compile(r"@import\b[^;]*(;|$)", re.I)
_URL = re.compile(r"url\(\s*(?P<q>['\"]?)(?P<target>.*?)(?P=q)\s*\)", re.I | re.S)
_LOADERS = re.compile(r"(?<![\w-])(-webkit-image-set|image-set|image|src|cross-fade|element|expression)\s*\(", re.I)
_SAFE_DATA = re.compile(r"data:image/(png|jpe?g|gif|webp|svg\+xml)[;,]", re.I)
_PART = r"\s*[\d.]+%?\s*"
_COLOR = re.compile(rf"#[0-9a-fA-F]{{3,8}}|rgba?\({_PART},{_PART},{_PART}(,{_PART})?\)|[a-zA-Z]+")


def _outside_strings(text: str, change: Any) -> str:
    """*text* with *change* applied to the parts outside CSS strings (strings kept as they are)."""
    out, last = [], 0
    for found in _STRING.finditer(text):
        out.append(change(text[last : found.start()]))
        out.append(found.group(0))
        last = found.end()
    out.append(change(text[last:]))
    return "".join(out)


_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\n]?|\\(.)", re.S)


def _unescaped(part: str) -> str:
    """CSS escapes spelled out (``u\\72 l`` is ``url``), as a browser reads them."""

    def one(found: re.Match[str]) -> str:
        if found.group(1):
            point = int(found.group(1), 16)
            return chr(point) if 0 < point <= 0x10FFFF and not 0xD800 <= point <= 0xDFFF else "\ufffd"
        return found.group(2)

    return _ESCAPE.sub(one, part)


def _call_end(css: str, start: int) -> int:
    """One past the ``)`` closing the call whose ``(`` is at *start* (strings and nesting counted)."""
    depth, index = 0, start
    while index < len(css):
        char = css[index]
        if char in "\"'":
            found = _STRING.match(css, index)
            index = found.end() if found else index + 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        index += 1
        if depth == 0:
            return index
    return len(css)


def clean_css(text: str) -> tuple[str, list[str]]:
    """User CSS made harmless (see the module's docstring), and a line for each thing taken out."""
    removed: list[str] = []
    css = _outside_strings(_COMMENT.sub("", text), _unescaped)

    def drop_import(found: re.Match[str]) -> str:
        removed.append(f"@import {found.group(0)[7:].strip()[:80]}")
        return ""

    def url(found: re.Match[str]) -> str:
        target = found.group("target").strip()
        if _SAFE_DATA.match(target) and "<" not in target:
            return found.group(0)
        removed.append(f"url({target[:80]})")
        return "none"

    css = _IMPORT.sub(drop_import, css)
    css = _URL.sub(url, css)
    while (found := _LOADERS.search(css)) is not None:  # a call whose arguments may be URLs: all of it
        end = _call_end(css, found.end() - 1)
        removed.append(f"{found.group(1)}(…)")
        css = f"{css[: found.start()]}none{css[end:]}"
    if "<" in css:
        removed.append("“<”（nothing may close the style element）")
        css = css.replace("<", "")
    return css.strip(), removed


def safe_color(value: Any) -> str | None:
    """A theme's colour when it is one (``#…``, ``rgb()``/``rgba()``, a named colour), else ``None``."""
    return value.strip() if isinstance(value, str) and _COLOR.fullmatch(value.strip()) else None


def _number(value: Any, low: float, high: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(min(max(value, low), high))


DARK = """--ink: #e6e1d6; --paper: #1d2320; --accent: #8fb7a3; --line: #3c4741; --warn: #e08a7a;
  --pg-surface: #262d29; --pg-soft: #2e3732; --pg-muted: #a9a59b; color-scheme: dark;"""
# Where the page draws white or near-white by its own CSS: the surfaces the dark palette recolours.
_SURFACES = """header.top, .panel, .msg, .card-tile, .dropzone, textarea, input, select, .secondary, button.swipe,
.hotkeys-help ul, .slash-help, .qr-menu, dialog { background-color: var(--pg-surface); color: var(--ink); }
.msg.user, .tag, .tag-chip, .md code, .md pre, .context-bar { background-color: var(--pg-soft); }
.hint, .msg-time, .msg-index, .msg-meta, .card-meta, .card-count, .md em, .extras-status,
.extras-off { color: var(--pg-muted); }
.composer { background: var(--paper); }"""


def _palette(mode: str) -> str:
    if mode == "dark":
        return f":root {{ {DARK} }}\n{_SURFACES}\n"
    if mode == "auto":
        return f"@media (prefers-color-scheme: dark) {{\n:root {{ {DARK} }}\n{_SURFACES}\n}}\n"
    return ""


# The theme's values → the page's rules (each only when the theme sets the value).
_COLOR_RULES = {
    "main_text_color": "body, .md, .msg { color: var(--st-main); }",
    "italics_text_color": ".md em, .md i { color: var(--st-italics); }",
    "underline_text_color": ".md u { color: var(--st-underline); }",
    "quote_text_color": ".md q { color: var(--st-quote); }",
    "blur_tint_color": "header.top, .panel, .composer { background-color: var(--st-blur-tint); }",
    "chat_tint_color": ".messages { background-color: var(--st-chat-tint); border-radius: 10px; }",
    "user_mes_blur_tint_color": ".msg.user { background-color: var(--st-user-tint); }",
    "bot_mes_blur_tint_color": ".msg.assistant { background-color: var(--st-bot-tint); }",
    "border_color": ".msg, .panel, header.top, textarea, input, select { border-color: var(--st-border); }",
}
_VARIABLE = {
    "main_text_color": "--st-main", "italics_text_color": "--st-italics", "underline_text_color": "--st-underline",
    "quote_text_color": "--st-quote", "blur_tint_color": "--st-blur-tint", "chat_tint_color": "--st-chat-tint",
    "user_mes_blur_tint_color": "--st-user-tint", "bot_mes_blur_tint_color": "--st-bot-tint",
    "shadow_color": "--st-shadow", "border_color": "--st-border",
}  # fmt: skip


def _theme_rules(theme: Mapping[str, Any]) -> str:
    variables: list[str] = []
    rules: list[str] = []
    for key, variable in _VARIABLE.items():
        color = safe_color(theme.get(key))
        if color is not None:
            variables.append(f"{variable}: {color};")
            if key in _COLOR_RULES:
                rules.append(_COLOR_RULES[key])
    blur = _number(theme.get("blur_strength"), 0, 30)
    if blur:
        rules.append(f".msg, .panel, header.top {{ backdrop-filter: blur({blur:g}px); }}")
    shadow = _number(theme.get("shadow_width"), 0, 10)
    if shadow and safe_color(theme.get("shadow_color")) and not theme.get("noShadows"):
        rules.append(f".msg, .md {{ text-shadow: 0 0 {shadow:g}px var(--st-shadow); }}")
    scale = _number(theme.get("font_scale"), 0.5, 2)
    if scale and scale != 1:
        rules.append(f"html {{ font-size: {scale * 100:g}%; }}")
    width = _number(theme.get("chat_width"), 25, 100)
    if width:
        rules.append(f"main:has(> .chat-page) {{ max-width: max(60rem, {width:g}vw); }}")
    avatar = theme.get("avatar_style")
    if avatar == 1:
        rules.append(".msg-head .avatar { border-radius: 10%; height: 3.3rem; }")
    elif avatar == 2:
        rules.append(".msg-head .avatar { border-radius: 0; }")
    display = theme.get("chat_display")
    if display == 1:
        rules.append(".msg { border-radius: 16px; } .msg.user { border-bottom-right-radius: 4px; }"
                     " .msg.assistant { border-bottom-left-radius: 4px; max-width: 85%; }")  # fmt: skip
    elif display == 2:
        rules.append(".msg { border: 0; border-radius: 0; background: none; max-width: none; }"
                     " .msg-head .avatar { display: none; } .messages { gap: 1.2rem; }")  # fmt: skip
    head = f":root {{ {' '.join(variables)} }}\n" if variables else ""
    return head + "\n".join(rules) + ("\n" if rules else "")


def page_css(theme: Mapping[str, Any] | None, mode: str) -> tuple[str, list[str]]:
    """The stylesheet every page carries, and what was taken out of the user CSS."""
    css = _palette(mode)
    removed: list[str] = []
    if theme:
        css += _theme_rules(theme)
        custom, removed = clean_css(str(theme.get("custom_css") or ""))
        if custom:
            css += f"/* {str(theme.get('name') or '')[:60].replace('*/', '')}: custom_css */\n{custom}\n"
    return css.replace("<", ""), removed


def own_theme(name: str, mode: str, custom_css: str = "") -> dict[str, Any]:
    """Pear Garden's own look as a SillyTavern theme (what "save as a theme" writes)."""
    dark = mode == "dark"
    return {
        "name": name,
        "blur_strength": 0,
        "main_text_color": "rgba(230, 225, 214, 1)" if dark else "rgba(47, 59, 53, 1)",
        "italics_text_color": "rgba(169, 165, 155, 1)" if dark else "rgba(107, 107, 107, 1)",
        "underline_text_color": "rgba(143, 183, 163, 1)" if dark else "rgba(74, 107, 93, 1)",
        "quote_text_color": "rgba(224, 160, 110, 1)" if dark else "rgba(181, 101, 42, 1)",
        "blur_tint_color": "rgba(38, 45, 41, 1)" if dark else "rgba(255, 255, 255, 1)",
        "chat_tint_color": "rgba(0, 0, 0, 0)",
        "user_mes_blur_tint_color": "rgba(46, 55, 50, 1)" if dark else "rgba(238, 244, 240, 1)",
        "bot_mes_blur_tint_color": "rgba(38, 45, 41, 1)" if dark else "rgba(255, 255, 255, 1)",
        "shadow_color": "rgba(0, 0, 0, 0)",
        "shadow_width": 0,
        "border_color": "rgba(60, 71, 65, 1)" if dark else "rgba(216, 211, 198, 1)",
        "font_scale": 1,
        "avatar_style": 0,
        "chat_display": 0,
        "noShadows": True,
        "chat_width": 50,
        "custom_css": custom_css,
    }
