"""The small macro set evaluated when a preset is compiled for declaration (spec liyuan §4.2).

Not SillyTavern's full pipeline: the result must be byte-stable (the system prompt is cached by the
provider), so ``{{random}}`` picks by a hash of its own text, ``{{lastusermessage}}`` is empty, and an
unknown macro is removed and reported — never sent literally.
"""

from __future__ import annotations

import hashlib
import re

import msgspec

_INNER = re.compile(r"\{\{([^{}]*)\}\}")
_TRIM = re.compile(r"(?:\r?\n)*\{\{trim\}\}(?:\r?\n)*", re.IGNORECASE)
MAX_PASSES = 16


class MacroEnv(msgspec.Struct):
    char: str
    user: str
    variables: dict[str, str] = msgspec.field(default_factory=dict)
    unsupported: list[str] = msgspec.field(default_factory=list)
    last_user_message_used: bool = False


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _add(old: str, delta: str) -> str:
    a, b = _number(old or "0"), _number(delta)
    if a is not None and b is not None:
        total = a + b
        return str(int(total)) if total == int(total) else str(total)
    return old + delta


def _pick(options: list[str], seed_text: str) -> str:
    digest = hashlib.sha256(seed_text.encode("utf-8", "surrogatepass")).digest()
    return options[int.from_bytes(digest[:4], "big") % len(options)] if options else ""


def _one(body: str, env: MacroEnv) -> str:
    name, _, rest = body.partition("::")
    key = name.strip().lower()
    if key.startswith("//"):
        return ""
    if key == "char":
        return env.char
    if key == "user":
        return env.user
    if key == "lastusermessage":
        env.last_user_message_used = True
        return ""
    if key in ("newline",):
        return "\n"
    if key in ("noop", ""):
        return ""
    if key == "setvar":
        var, _, value = rest.partition("::")
        env.variables[var] = value
        return ""
    if key == "addvar":
        var, _, value = rest.partition("::")
        env.variables[var] = _add(env.variables.get(var, ""), value)
        return ""
    if key == "getvar":
        return env.variables.get(rest, "")
    if key == "random" or key.startswith("random:"):
        args = rest.split("::") if rest else body.split(":", 1)[1].split(",") if ":" in body else []
        return _pick(args, body)
    env.unsupported.append("{{" + body + "}}")
    return ""


def evaluate(text: str, env: MacroEnv) -> str:
    """Innermost macros first, left to right, at most 16 passes."""
    text = _TRIM.sub("", text)
    for _ in range(MAX_PASSES):
        if not _INNER.search(text):
            break
        text = _INNER.sub(lambda m: _one(m.group(1), env), text)
    return text
