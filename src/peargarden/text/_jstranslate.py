"""JavaScript regular expressions for Python: a translation of JS pattern syntax and semantics.

SillyTavern runs user-written JS regexes (world-info regex keys, regex scripts).  Python differs where
it matters for role-play text: JS ``\\d \\w \\b`` are ASCII-only (CJK counts as non-word), ``.`` stops
at ``\\r``/U+2028/U+2029 too, ``$`` without ``m`` matches only at the very end, unknown escapes such as
``\\z`` mean the letter itself, ``[^]`` is "any character", legacy octal escapes exist, and named
groups are written ``(?<name>…)``.  One translator serves both users (it was checked against node's
own RegExp on random patterns); the ``regex`` module compiles the result because JavaScript allows
variable-length lookbehind.
"""

from __future__ import annotations

import re
from typing import Any

_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_WORD = "A-Za-z0-9_"
_LINE_END = "\\n\\r\\u2028\\u2029"
# JS ``\s``: WhiteSpace + LineTerminator (Unicode Zs and the listed controls).
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_WORD_UI = _WORD + "\\u017f\\u212a"


def _boundaries(word: str) -> tuple[str, str]:
    """JS ``\\b`` and ``\\B`` over the given word-character set."""
    return (
        rf"(?:(?<=[{word}])(?![{word}])|(?<![{word}])(?=[{word}]))",
        rf"(?:(?<=[{word}])(?=[{word}])|(?<![{word}])(?![{word}]))",
    )


# JS ``\S``, ``\D`` and ``\W`` written as explicit ranges, so they also work inside a class.
_NOT_SPACE = (
    "\\x00-\\x08\\x0e-\\x1f\\x21-\\x9f\\xa1-\\u167f\\u1681-\\u1fff\\u200b-\\u2027"
    "\\u202a-\\u202e\\u2030-\\u205e\\u2060-\\u2fff\\u3001-\\ufefe\\uff00-\\U0010ffff"
)
_NOT_DIGIT = "\\x00-/:-\\U0010ffff"
_NOT_WORD = "\\x00-/:-@\\[-^`{-\\U0010ffff"
_NOT_WORD_UI = "\\x00-/:-@\\[-^`{-\\u017e\\u0180-\\u2129\\u212b-\\U0010ffff"
_SYNTAX = set("^$\\.*+?()[]{}|/")

# What the last emitted item was, for JavaScript's "nothing to repeat" rules.
_NONE, _ATOM, _ASSERT, _QUANT = 0, 1, 2, 3


def _scan_groups(source: str) -> tuple[int, set[str]]:
    """Number of capturing groups and their names (escapes and classes skipped)."""
    count, names, i, n, in_class = 0, set(), 0, len(source), False
    while i < n:
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            if not source.startswith("(?", i):
                count += 1
            elif source.startswith("(?<", i) and source[i + 3 : i + 4] not in ("=", "!"):
                count += 1
                end = source.find(">", i)
                if end > 0:
                    name = source[i + 3 : end]
                    if name in names:
                        raise re.error(f"duplicate group name {name}")  # a SyntaxError in JS
                    names.add(name)
        i += 1
    return count, names


def _octal_escape(source: str, i: int) -> tuple[str, int]:
    """Annex B legacy octal escape starting at ``source[i]`` (a digit 1-7): (Python text, new i)."""
    j = i
    value = 0
    while j < len(source) and j - i < 3 and source[j] in "01234567":
        candidate = value * 8 + int(source[j])
        if candidate > 0o377:
            break
        value = candidate
        j += 1
    return re.escape(chr(value)), j


def _translate(source: str, flags: str) -> str:
    multiline = "m" in flags
    dotall = "s" in flags
    unicode = "u" in flags
    group_count, group_names = _scan_groups(source)
    named = bool(group_names) or unicode
    out: list[str] = []
    groups: list[bool] = []  # per open group: is it a lookbehind (or any lookaround in u mode)?
    last = _NONE
    i, n = 0, len(source)
    in_class = False
    # JS ``i`` without ``u`` never folds a non-ASCII character onto an ASCII one (ſ ≠ s, K ≠ k);
    # Python does.  Character sets that need no case folding are emitted with folding switched off.
    fold = "i" in flags and not unicode
    class_start, class_cased = 0, False
    # With ``u`` and ``i`` together JS counts ſ (U+017F) and K (U+212A) as word characters.
    word, not_word = (_WORD_UI, _NOT_WORD_UI) if unicode and "i" in flags else (_WORD, _NOT_WORD)
    boundary, not_boundary = _boundaries(word)
    if "i" in flags:
        boundary, not_boundary = f"(?-i:{boundary})", f"(?-i:{not_boundary})"

    def charset(body: str) -> str:
        return f"(?-i:[{body}])" if "i" in flags else f"[{body}]"

    def quantifier_ok() -> None:
        if last in (_NONE, _ASSERT, _QUANT):
            raise re.error("nothing to repeat")

    while i < n:
        c = source[i]
        if c == "\\":
            if i + 1 >= n:
                raise re.error("\\ at end of pattern")
            e = source[i + 1]
            i += 2
            kind = _ATOM
            if e == "d":
                out.append("0-9" if in_class else charset("0-9"))
            elif e == "D":
                out.append(_NOT_DIGIT if in_class else charset(_NOT_DIGIT))
            elif e == "w":
                out.append(word if in_class else charset(word))
            elif e == "W":
                out.append(not_word if in_class else charset(not_word))
            elif e == "s":
                out.append(_SPACE if in_class else charset(_SPACE))
            elif e == "S":
                out.append(_NOT_SPACE if in_class else charset(_NOT_SPACE))
            elif e == "b":
                out.append("\\x08" if in_class else boundary)
                kind = _ATOM if in_class else _ASSERT
            elif e == "B" and not in_class:
                out.append(not_boundary)
                kind = _ASSERT
            elif e == "c" and i < n and source[i].isascii() and source[i].isalpha():
                out.append(re.escape(chr(ord(source[i]) % 32)))
                i += 1
            elif e == "0" and not (i < n and source[i].isdigit()):
                out.append("\\x00")
            elif e == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", source[i : i + 2]):
                out.append("\\x" + source[i : i + 2])
                i += 2
            elif e == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", source[i : i + 4]):
                out.append("\\u" + source[i : i + 4])
                i += 4
            elif e == "u" and unicode and i < n and source[i] == "{":
                end = source.find("}", i)
                if end < 0:
                    raise re.error("bad \\u{…}")
                out.append(re.escape(chr(int(source[i + 1 : end], 16))))
                i = end + 1
            elif e == "k" and named and not in_class:
                end = source.find(">", i) if i < n and source[i] == "<" else -1
                name = source[i + 1 : end] if end > 0 else ""
                if name not in group_names:
                    raise re.error("bad \\k<name>")
                # A group that did not take part matches the empty string in JS.
                out.append(f"(?:(?({name})(?P={name})))")
                i = end + 1
            elif e.isdigit() and e != "0" and not in_class:
                j = i
                while j < n and source[j].isdigit():
                    j += 1
                number = int(source[i - 1 : j])
                if number <= group_count:
                    out.append(f"(?:(?({number})\\{number}))")
                    i = j
                elif unicode:
                    raise re.error("bad backreference")
                elif e in "89":
                    out.append(e)  # identity escape
                else:
                    text, i = _octal_escape(source, i - 1)
                    out.append(text)
            elif e.isdigit() and in_class:
                if unicode:
                    raise re.error("bad class escape")
                if e in "89":
                    out.append(e)
                else:
                    text, i = _octal_escape(source, i - 1)
                    out.append(text)
            elif e in "fnrtv":
                out.append("\\" + e)
            elif unicode and e not in _SYNTAX and not (in_class and e == "-"):
                raise re.error(f"invalid escape \\{e}")  # \p{…}, identity escapes: not in u mode
            else:
                out.append(re.escape(e))  # JS identity escape: the character itself
            if not in_class:
                last = kind
            elif e not in "dDwWsSb":
                class_cased = True  # an escaped literal may be a letter: keep folding on
            continue
        if in_class:
            if c == "]":
                in_class = False
                out.append(c)
                if fold and not class_cased:
                    out[class_start] = "(?-i:["
                    out.append(")")
                last = _ATOM
            elif c == "[":
                out.append("\\[")
            else:
                class_cased = class_cased or c.lower() != c.upper()
                out.append(c)
            i += 1
            continue
        if c == "[":
            if source.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                last = _ATOM
                continue
            if source.startswith("[]", i):
                out.append("(?!)")
                i += 2
                last = _ATOM
                continue
            in_class = True
            class_start, class_cased = len(out), False
            out.append("[")
            i += 1
            if i < n and source[i] == "^":
                out.append("^")
                i += 1
            continue
        if c == "(":
            if source.startswith("(?", i):
                rest = source[i + 2 : i + 4]
                if rest[:1] in (":",):
                    out.append("(?:")
                    groups.append(False)
                    i += 3
                elif rest[:1] in ("=", "!"):
                    out.append("(?" + rest[:1])
                    groups.append(unicode)  # lookaheads are quantifiable only without u (Annex B)
                    i += 3
                elif rest in ("<=", "<!"):
                    out.append("(?" + rest)
                    groups.append(True)
                    i += 4
                elif rest[:1] == "<":
                    out.append("(?P<")
                    groups.append(False)
                    i += 3
                else:
                    raise re.error("Python-only group syntax")  # (?P…), (?i), (?#…) are errors in JS
            else:
                out.append("(")
                groups.append(False)
                i += 1
            last = _NONE
            continue
        if c == ")":
            if not groups:
                raise re.error("unbalanced parenthesis")
            last = _ASSERT if groups.pop() else _ATOM
            out.append(")")
            i += 1
            continue
        if c == "|":
            out.append("|")
            last = _NONE
            i += 1
            continue
        if c in "*+?":
            if c == "?" and last == _QUANT:
                out.append("?")  # lazy marker
                last = _QUANT + 1  # a lazy quantifier: nothing may follow it either
                i += 1
                continue
            if last == _QUANT + 1:
                raise re.error("nothing to repeat")
            quantifier_ok()
            out.append(c)
            last = _QUANT
            i += 1
            continue
        if c == "{":
            m = _QUANTIFIER.match(source, i)
            if m:
                if last == _QUANT + 1:
                    raise re.error("nothing to repeat")
                quantifier_ok()
                out.append(m.group(0))
                i = m.end()
                last = _QUANT
                continue
            if unicode:
                raise re.error("lone {")
            out.append("\\{")
        elif c in "}]":
            if unicode:
                raise re.error(f"lone {c}")
            out.append("\\" + c)
        elif c == ".":
            out.append("[\\s\\S]" if dotall else f"[^{_LINE_END}]")
        elif c == "^":
            out.append(f"(?:(?<=[{_LINE_END}])|\\A)" if multiline else "\\A")
            last = _ASSERT
            i += 1
            continue
        elif c == "$":
            out.append(f"(?=[{_LINE_END}]|\\Z)" if multiline else "\\Z")
            last = _ASSERT
            i += 1
            continue
        else:
            out.append(re.escape(c) if c in "#&~ \t\n\r\x0b\x0c-" else c)
        last = _ATOM
        i += 1
    if in_class:
        raise re.error("unterminated character class")
    if groups:
        raise re.error("missing )")
    return "".join(out)


def translate_js(source: str, flags: str = "") -> str:
    """A JS pattern with JS *flags* (``m``, ``s``, ``u``, ``i`` matter here) as a Python pattern."""
    return _translate(source, flags)


def compile_js_pattern(source: str, flags: str = "") -> Any:
    """Compile a JS pattern; raises ``re.error``/``regex.error``/``ValueError`` when JS would reject it."""
    import regex  # heavy (19 modules): loaded by the first regex a card really has

    py_flags = regex.IGNORECASE if "i" in flags else 0
    return regex.compile(_translate(source, flags), py_flags | regex.VERSION0)
