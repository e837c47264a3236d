"""Card templates (``<% %>``, ST-Prompt-Template) run in QuickJS, with ``getvar``/``setvar`` on the chat's variables.

Why an engine here, in a pure package: a template is a program the card author wrote, and
only JavaScript runs it as SillyTavern does.  QuickJS (``quickjs-ng``) is a bare interpreter: no
``require``, no ``fetch``, no file or network object exists in it; each render gets a fresh context
(≈0.1 ms) with a memory limit and a time limit, and nothing of one render survives into the next.
So the result depends only on the template and the variables passed in, as a pure function's would.
The engine is imported on the first render, never by ``import peargarden.variables``.

The variables are three records: ``message`` (the message in force: MVU's ``stat_data`` lives
here), ``chat`` and ``global``.  ``getvar(path, {defaults, scope})`` reads a lodash-style path from
the scope asked for, or from message, then chat, then global; ``setvar(path, value, {scope})`` writes
(to ``message`` by default); ``incvar``/``decvar`` add or subtract.  A template that fails (a syntax
error, an exception, the time or memory limit) is left as it was, with a warning naming the entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec

from peargarden.variables.ejs import TemplateSyntaxError, compile_template, has_template
from peargarden.variables.jsvalues import clone, from_json

MEMORY_LIMIT_BYTES = 32 * 1024 * 1024
TIME_LIMIT_SECONDS = 1.0
SCOPES = ("message", "chat", "global")

# The helpers every render gets.  Paths follow lodash (``a.b[0]["c d"]``); ``__vars`` is the store.
_PRELUDE = r"""
"use strict";
const __scopes = ["message", "chat", "global"];
function __path(path) {
  if (Array.isArray(path)) return path.map(String);
  const out = [];
  const re = /[^.[\]]+|\[(?:(-?\d+(?:\.\d+)?)|(["'])((?:(?!\2)[^\\]|\\.)*?)\2)\]|(?=(?:\.|\[\])(?:\.|\[\]|$))/g;
  const text = String(path);
  if (text.charCodeAt(0) === 46) out.push("");
  text.replace(re, (m, num, quote, sub) => { out.push(quote ? sub.replace(/\\(\\)?/g, "$1") : (num || m)); return m; });
  return out;
}
function __get(root, path) {
  let node = root;
  for (const key of __path(path)) {
    if (node === null || node === undefined) return undefined;
    node = node[key];
  }
  return node;
}
function __set(root, path, value) {
  const keys = __path(path);
  let node = root;
  keys.forEach((key, i) => {
    if (i === keys.length - 1) { node[key] = value; return; }
    if (node[key] === null || typeof node[key] !== "object") node[key] = /^(?:0|[1-9]\d*)$/.test(keys[i + 1]) ? [] : {};
    node = node[key];
  });
}
function __scope(options) {
  const scope = options && options.scope;
  if (scope === undefined) return undefined;
  const name = scope === "local" ? "chat" : scope;
  if (!__scopes.includes(name)) throw new Error("unknown variable scope: " + scope);
  return name;
}
function getvar(path, options) {
  const scope = __scope(options);
  const names = scope ? [scope] : __scopes;
  for (const name of names) {
    const value = __get(__vars[name], path);
    if (value !== undefined) return value;
  }
  return options && "defaults" in options ? options.defaults : undefined;
}
function setvar(path, value, options) {
  __set(__vars[__scope(options) || "message"], path, value);
  return value;
}
function incvar(path, by, options) {
  const value = Number(getvar(path, options) || 0) + (by === undefined ? 1 : Number(by));
  return setvar(path, value, options);
}
function decvar(path, by, options) { return incvar(path, -(by === undefined ? 1 : Number(by)), options); }
const getLocalVar = (p, o) => getvar(p, { ...o, scope: "chat" });
const getGlobalVar = (p, o) => getvar(p, { ...o, scope: "global" });
const getMessageVar = (p, o) => getvar(p, { ...o, scope: "message" });
const setLocalVar = (p, v, o) => setvar(p, v, { ...o, scope: "chat" });
const setGlobalVar = (p, v, o) => setvar(p, v, { ...o, scope: "global" });
const setMessageVar = (p, v, o) => setvar(p, v, { ...o, scope: "message" });
function __escape(value) {
  if (value === undefined || value === null) return "";
  const entities = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#39;", '"': "&#34;"};
  return String(value).replace(/[&<>'"]/g, c => entities[c]);
}
"""


class Rendered(msgspec.Struct):
    """A template's output, the variables after it ran, and a warning when it failed."""

    text: str
    variables: dict[str, Any] = msgspec.field(default_factory=dict)
    warning: str | None = None


def _store(variables: Mapping[str, Any] | None) -> dict[str, Any]:
    given = dict(variables or {})
    return {scope: clone(given.get(scope)) if isinstance(given.get(scope), dict) else {} for scope in SCOPES}


def render_template(
    template: str,
    variables: Mapping[str, Any] | None = None,
    *,
    name: str = "",
    time_limit: float = TIME_LIMIT_SECONDS,
    memory_limit: int = MEMORY_LIMIT_BYTES,
    names: Mapping[str, Any] | None = None,
) -> Rendered:
    """``template`` evaluated with ``variables`` (``{"message": …, "chat": …, "global": …}``).

    ``name`` (the lorebook entry or prompt) is what a failure's warning names.  *names*: names the
    template reads besides the helpers (``EjsTemplate.evalTemplate(code, context)``), looked up first,
    as EJS's default ``with (locals)`` does.
    """
    store = _store(variables)
    if not has_template(template):
        return Rendered(template, store)
    locals_ = None if names is None else json.dumps(dict(names), ensure_ascii=False)
    label = f"「{name}」" if name else "模板"
    try:
        body = compile_template(template)
    except TemplateSyntaxError as error:
        return Rendered(template, store, f"{label}的 <% %> 模板无法解析（template syntax）：{error}")
    import quickjs

    context = quickjs.Context()
    context.set_memory_limit(memory_limit)
    context.set_time_limit(time_limit)
    try:
        context.set("__vars", context.parse_json(json.dumps(store, ensure_ascii=False)))
        context.eval(_PRELUDE)
        if locals_ is not None:
            context.set("__locals", context.parse_json(locals_))
            body = "with (__locals) {\n" + body + "\n}"
        # Through JSON: a long output is a rope string in quickjs-ng, which the binding cannot hand over.
        text = json.loads(
            context.eval(
                'JSON.stringify((function () { let __output = ""; const __append = s => { if (s !== undefined '
                "&& s !== null) __output += s; };\n" + body + "\nreturn __output; })())"
            )
        )
        after = json.loads(context.eval("JSON.stringify(__vars)"))
    except quickjs.JSException as error:
        reason = str(error).strip() or "out of memory"
        if reason == "null":
            reason = "out of memory"
        first_line = reason.splitlines()[0]
        return Rendered(template, store, f"{label}的 <% %> 模板运行失败（template failed）：{first_line}")
    except quickjs.StackOverflow:
        return Rendered(template, store, f"{label}的 <% %> 模板运行失败（template failed）：stack overflow")
    return Rendered(str(text), from_json(after) if isinstance(after, dict) else store)


def template_syntax_error(template: str) -> str:
    """Why *template* cannot run (its tags, or the JavaScript they make, compiled but not run), or ``""``."""
    try:
        body = compile_template(template)
    except TemplateSyntaxError as error:
        return f"<% %> 模板无法解析（template syntax）：{error}"
    import quickjs

    context = quickjs.Context()
    context.set_memory_limit(MEMORY_LIMIT_BYTES)
    context.set_time_limit(TIME_LIMIT_SECONDS)
    try:
        # ``Function`` compiles the body without running it (a body made by ``compile_template`` only
        # appends; no code of the template runs here).
        context.eval(f"new Function({json.dumps(body, ensure_ascii=False)}); undefined")
    except quickjs.JSException as error:
        return f"<% %> 模板的 JavaScript 有语法错误：{(str(error).strip() or 'syntax error').splitlines()[0]}"
    return ""
