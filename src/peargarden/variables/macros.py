"""TavernHelper's variable macros: ``{{get_message_variable::path}}``, ``{{format_message_variable::path}}``,
``{{get_chat_variable::path}}`` and their kin.

``get_…`` gives a string value as it is and anything else as JSON (``null`` for a missing path);
``format_…`` gives YAML, every line after the first indented by as many spaces as the text before the
macro on its line (so a macro under ``  缩进测试:`` lays its YAML out under it).  Keys starting with
``$`` are left out of both.  The scopes are ``message`` (the variables of the message in force),
``chat``, ``character``, ``preset`` and ``global``; the caller passes the records it has, so these
functions stay pure.  TavernHelper expands them last, on the finished prompt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from peargarden.variables import lodash
from peargarden.variables.jsvalues import UNDEFINED, js_length, json_stringify
from peargarden.variables.yaml_dump import yaml_stringify

SCOPES = ("message", "chat", "character", "preset", "global")
_GET = re.compile(
    r"\{\{get_(message|chat|character|preset|global)_variable::([^\n\r\u2028\u2029]*?)\}\}", re.IGNORECASE
)
_HTML_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'"}
# One match per line: the greedy prefix reaches the line's last format macro; earlier ones are
# expanded first (TavernHelper recurses on the prefix), so the indent counts the expanded prefix.
_FORMAT = re.compile(
    r"^([^\n\r\u2028\u2029]*)\{\{format_(message|chat|character|preset|global)_variable::([^\n\r\u2028\u2029]*?)\}\}",
    re.IGNORECASE | re.MULTILINE,
)


def _without_dollar_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_dollar_keys(item) for key, item in value.items() if not key.startswith("$")}
    if isinstance(value, list):
        return [_without_dollar_keys(item) for item in value]
    return value


def variable_value(variables: Mapping[str, Any] | None, path: str) -> Any:
    """``_.get(variables, _.unescape(path), null)`` with every ``$…`` key left out."""
    path = re.sub(r"&(?:amp|lt|gt|quot|#39);", lambda m: _HTML_ENTITIES[m.group(0)], path)
    value = lodash.get(dict(variables or {}), path, None)
    return _without_dollar_keys(None if value is UNDEFINED else value)


def get_variable_text(value: Any) -> str:
    """What ``{{get_…_variable::…}}`` puts in the prompt."""
    if isinstance(value, str):
        return value
    return json_stringify(value) or "undefined"


def format_variable_text(value: Any, prefix: str = "") -> str:
    """What ``{{format_…_variable::…}}`` puts after ``prefix`` (the text before it on its line)."""
    text = value if isinstance(value, str) else yaml_stringify(value).rstrip()
    return text.replace("\n", "\n" + " " * js_length(prefix))


def _records(scopes: Mapping[str, Mapping[str, Any] | None], scope: str) -> Mapping[str, Any] | None:
    return scopes.get(scope.lower())


def _format_line(match: re.Match[str], scopes: Mapping[str, Mapping[str, Any] | None]) -> str:
    prefix = match.group(1)
    inner = _FORMAT.match(prefix)
    if inner:
        prefix = _format_line(inner, scopes) + prefix[inner.end() :]
    value = variable_value(_records(scopes, match.group(2)), match.group(3))
    return prefix + format_variable_text(value, prefix)


def expand_variable_macros(text: str, scopes: Mapping[str, Mapping[str, Any] | None]) -> str:
    """``text`` with the variable macros replaced, ``scopes`` giving each scope's variables.

    ``scopes["message"]`` is the record of the message in force (``history.variables_at``).
    """
    text = _GET.sub(lambda m: get_variable_text(variable_value(_records(scopes, m.group(1)), m.group(2))), text)
    return _FORMAT.sub(lambda m: _format_line(m, scopes), text)
