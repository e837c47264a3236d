"""What a card's page scripts call besides TavernHelper's own functions (issue 45): ``EjsTemplate`` (the
ST-Prompt-Template extension's exports, as TavernHelper's frames find them) and ``Mvu.parseMessage``.

They come with the page's other calls (``POST …/scripts/call``, :func:`page_scripts.run_calls`) under
dotted names and run here on the same host, over the chat's variables:

* ``EjsTemplate.evalTemplate(code, context, options)`` — the Python EJS that renders world info
  (``variables/templates_js``, QuickJS), the chat's variables its store: ``message`` is the last
  message's record, ``chat`` the chat's variables, ``global`` the global ones; *context* (what
  ``prepareContext`` gave, or the script's own object) its names, looked up first (EJS's ``with``).
  What the template's ``setvar`` writes is written as a script's ``replaceVariables`` of that scope (an
  edit of the chat, kept), as ST-Prompt-Template writes SillyTavern's variables in place.  A template
  that fails rejects with one line, as the extension's ``evalTemplate`` throws.
* ``EjsTemplate.prepareContext(additional, last_message_id)`` — *additional* and ``variables``: the
  global, chat and message variables merged (``_.merge``, later messages over earlier, up to
  *last_message_id*), as the extension's context holds them.  Its functions (``getvar``, ``_``…) are
  not data: each template gets its own (``getvar``/``setvar``/``incvar``/``decvar``… of templates_js).
* ``EjsTemplate.getSyntaxErrorInfo(code)`` — ``""`` or why the template cannot run (compiled, not run).
* ``Mvu.parseMessage(message, old_data)`` — MVU's update of a copy of *old_data* by the commands in
  *message* (``variables/update``, the card's zod schema when it registers one): the new data, or
  ``None`` (``undefined``) when nothing changed or *old_data* has no ``stat_data``.  Nothing is written.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from peargarden.scripting.api import TavernHelperApi
from peargarden.scripting.host import ScriptError
from peargarden.variables import lodash
from peargarden.variables.templates_js import SCOPES, TIME_LIMIT_SECONDS, render_template, template_syntax_error
from peargarden.variables.update import update_variables
from peargarden.workspace.cards import CardFolder

from .variables import folder_schema

MAX_TEMPLATE = 200_000  # characters of one template a script may have evaluated
# The CPU time the templates of one request of the page may take together (QuickJS's limit is CPU
# time too): a script evaluating a `while (true)` template 200 times would hold the server 200 s.
BATCH_SECONDS = 2.0
_spent: WeakKeyDictionary[TavernHelperApi, float] = WeakKeyDictionary()  # by request (its api)

_T = TypeVar("_T")
_Handler = Callable[[TavernHelperApi, CardFolder, list[Any], str | None], Any]


def _arg(args: list[Any], index: int) -> Any:
    return args[index] if len(args) > index else None


def _template(args: list[Any], name: str) -> str:
    code = _arg(args, 0)
    if not isinstance(code, str):
        raise ScriptError(f"EjsTemplate.{name} 的第一个参数应是模板文字")
    if len(code) > MAX_TEMPLATE:
        raise ScriptError(f"EjsTemplate.{name}：模板太长（超过 {MAX_TEMPLATE} 个字符）")
    return code


def _timed(api: TavernHelperApi, run: Callable[[float], _T]) -> _T:
    """*run* given the time left of the request's template budget (at most one template's limit)."""
    spent = _spent.get(api, 0.0)
    if spent >= BATCH_SECONDS:
        raise ScriptError(f"EjsTemplate：这一批调用的模板已运行 {BATCH_SECONDS:g} 秒，其余的没有运行")
    start = time.thread_time()
    try:
        return run(min(TIME_LIMIT_SECONDS, BATCH_SECONDS - spent))
    finally:
        _spent[api] = spent + time.thread_time() - start


def _scope_option(scope: str) -> dict[str, Any]:
    return {"type": "message", "message_id": -1} if scope == "message" else {"type": scope}


def _store(api: TavernHelperApi, script: str | None) -> dict[str, Any]:
    """The template's three records, read as the script would read them."""
    return {scope: copy.deepcopy(api.call("getVariables", [_scope_option(scope)], script)) for scope in SCOPES}


def all_variables(api: TavernHelperApi, script: str | None, last: Any = None) -> dict[str, Any]:
    """Global, then chat, then each message's record up to *last* (all when not a number), merged."""
    merged: dict[str, Any] = {}
    lodash.merge(merged, copy.deepcopy(api.call("getVariables", [{"type": "global"}], script)))
    lodash.merge(merged, copy.deepcopy(api.call("getVariables", [{"type": "chat"}], script)))
    count = api.last_message_id() + 1
    end = count - 1 if not isinstance(last, int | float) or isinstance(last, bool) else min(count - 1, int(last))
    for index in range(end + 1):
        record = api.call("getVariables", [{"type": "message", "message_id": index}], script)
        lodash.merge(merged, copy.deepcopy(record))
    return merged


def eval_template(api: TavernHelperApi, card: CardFolder, args: list[Any], script: str | None) -> str:
    code = _template(args, "evalTemplate")
    given = _arg(args, 1)
    names = given if isinstance(given, dict) else prepare_context(api, card, [], script)
    store = _store(api, script)
    rendered = _timed(
        api, lambda limit: render_template(code, store, name="EjsTemplate.evalTemplate", names=names, time_limit=limit)
    )
    if rendered.warning is not None:
        raise ScriptError(rendered.warning)
    for scope in SCOPES:
        after = rendered.variables.get(scope, {})
        if after != store[scope]:
            api.call("replaceVariables", [after, _scope_option(scope)], script)
    return rendered.text


def prepare_context(api: TavernHelperApi, card: CardFolder, args: list[Any], script: str | None) -> dict[str, Any]:
    given = _arg(args, 0)
    additional = copy.deepcopy(given) if isinstance(given, dict) else {}
    return {"variables": all_variables(api, script, _arg(args, 1)), **additional}


def syntax_error_info(api: TavernHelperApi, card: CardFolder, args: list[Any], script: str | None) -> str:
    code = _template(args, "getSyntaxErrorInfo")
    return _timed(api, lambda limit: template_syntax_error(code))


def parse_message(api: TavernHelperApi, card: CardFolder, args: list[Any], script: str | None) -> Any:
    message, old = _arg(args, 0), _arg(args, 1)
    if not isinstance(message, str):
        raise ScriptError("Mvu.parseMessage 的第一个参数应是消息的文字")
    if not isinstance(old, dict) or not isinstance(old.get("stat_data"), dict):
        return None  # MVU finds nothing to update
    data = copy.deepcopy(old)
    result = update_variables(message, data, expand_macros=api.host.expand_macros, schema=folder_schema(card))
    return data if result.modified else None


CALLS: dict[str, _Handler] = {
    "EjsTemplate.evalTemplate": eval_template,
    "EjsTemplate.prepareContext": prepare_context,
    "EjsTemplate.getSyntaxErrorInfo": syntax_error_info,
    "Mvu.parseMessage": parse_message,
}


def frame_call(api: TavernHelperApi, card: CardFolder, name: str, args: list[Any], script: str | None) -> Any:
    """Run *name* for *script*: one of :data:`CALLS`, or TavernHelper's own (``api.call``)."""
    handler = CALLS.get(name)
    return handler(api, card, args, script) if handler is not None else api.call(name, args, script)


__all__ = ["CALLS", "all_variables", "frame_call"]
