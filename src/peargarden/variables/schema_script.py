"""A TavernHelper script read as text, without running it: the modules its static imports name,
whether it registers a zod schema with MVU (``registerMvuSchema``), and its code as the body of an
async function.  A chat decides here whether its card has a schema at all; only one that has loads
the engine that runs it (:mod:`.zod_schema`, QuickJS), and the script frames rewrite their scripts
with :func:`script_body` without it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import NamedTuple

import msgspec


class _Patterns(NamedTuple):
    static_import: re.Pattern[str]
    dynamic_import: re.Pattern[str]
    export_declaration: re.Pattern[str]
    export_default: re.Pattern[str]
    export_list: re.Pattern[str]


@cache
def _patterns() -> _Patterns:
    """Compiled on first use: a chat whose card has no scripts (most) never reads one, and compiling
    these at import was ~5 M instructions of every beat."""
    return _Patterns(
        re.compile(
            r"""^[ \t]*import\s+(?:(?P<default>[\w$]+)\s*,?\s*)?"""
            r"""(?:\{(?P<names>[^}]*)\}|\*\s*as\s+(?P<star>[\w$]+))?\s*"""
            r"""(?:from\s*)?(?P<q>['"])(?P<url>[^'"]+)(?P=q)[ \t]*;?""",
            re.MULTILINE,
        ),
        re.compile(r"(?<![\w$.])import\s*\("),
        re.compile(r"^([ \t]*)export\s+(?=(?:const|let|var|function|class|async)\b)", re.MULTILINE),
        re.compile(r"^([ \t]*)export\s+default\s+", re.MULTILINE),
        re.compile(r"^[ \t]*export\s*(?:\*|\{[^}]*\})(?:\s*from\s*['\"][^'\"]*['\"])?[ \t]*;?", re.MULTILINE),
    )


def _bindings(names: str) -> str:
    """``a, b as c`` of an import list as a destructuring pattern (``a, b: c``)."""
    parts = [part.strip() for part in names.split(",") if part.strip()]
    return ", ".join(re.sub(r"^([\w$]+)\s+as\s+([\w$]+)$", r"\1: \2", part) for part in parts)


def _static_import(match: re.Match[str]) -> str:
    module = f"__pear.load({json.dumps(match['url'])})"
    lines = []
    if match["default"]:
        lines.append(f"const {match['default']} = ({module}).default;")
    if match["names"] is not None:
        lines.append(f"const {{ {_bindings(match['names'])} }} = {module};")
    if match["star"]:
        lines.append(f"const {match['star']} = {module};")
    return " ".join(lines) or f"{module};"


def script_body(source: str) -> str:
    """A TavernHelper script (an ES module) as the body of an async function: static imports read
    from the recognised modules, ``import(url)`` answered at once, ``export`` dropped."""
    patterns = _patterns()
    body = patterns.static_import.sub(_static_import, source)
    body = patterns.dynamic_import.sub("__pear_import(", body)
    body = patterns.export_declaration.sub(r"\1", body)
    body = patterns.export_default.sub(r"\1const __default_export = ", body)
    return patterns.export_list.sub("", body)


def registers_schema(source: str) -> bool:
    """Whether a script's code calls ``registerMvuSchema`` (what makes it a schema script)."""
    return "registerMvuSchema" in source


class SchemaScript(msgspec.Struct, frozen=True):
    """One TavernHelper script that registers a schema: its name (for warnings), its code, and the
    remote modules it imports that the card plays from the data folder (``(url, source)``: a script
    that only imports its schema from a URL, as the template cards do, registers it from there)."""

    name: str
    code: str
    modules: tuple[tuple[str, str], ...] = ()


def imported_urls(code: str) -> list[str]:
    """The addresses a script's static imports name, in order."""
    return list(dict.fromkeys(match["url"] for match in _patterns().static_import.finditer(code)))


def registering_scripts(
    scripts: Iterable[tuple[str, str]], sources: Callable[[str], str | None] | None = None
) -> tuple[SchemaScript, ...]:
    """The scripts given as ``(name, code)`` (enabled ones, in TavernHelper's order) that register a
    schema, each with the remote modules it imports that *sources* gives the text of (None: not in the
    data folder); a script whose imported module registers a schema is a schema script too."""
    found = []
    for name, code in scripts:
        modules = tuple((url, text) for url in imported_urls(code) if sources and (text := sources(url)) is not None)
        if registers_schema(code) or any(registers_schema(text) for _, text in modules):
            found.append(SchemaScript(name, code, modules))
    return tuple(found)
