"""The house's layout rules that import-linter cannot state: the fronts' contract is an allow-list
(every package but ``app``, ``errors`` and ``formats`` is forbidden to ``cli`` and ``web``); the fronts
take from ``app`` only what its faces export (``app`` and its rooms' packages: every import, in a
function or for the type checker too, and every name); no two modules import each other at module
level or for the type checker, siblings or not (a package and its own submodule included, which
import-linter's sibling contract does not see)."""

from __future__ import annotations

import ast
import configparser
import importlib

from kit.imports import PACKAGE, lazy_names, needless_deferrals, project_imports

FRONTS = {"cli", "web"}
FRONTS_MAY_USE = {"app", "errors", "formats"}
# Every package in app is a room with a face (a new room is checked from its first day).
ROOMS = tuple(sorted(init.parent.name for init in (PACKAGE / "app").glob("*/__init__.py")))
FACES = ("peargarden.app", *(f"peargarden.app.{room}" for room in ROOMS))


def _top_level_packages() -> set[str]:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    return packages | {p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}


def test_the_fronts_contract_forbids_every_package_but_the_allowed_ones() -> None:
    config = configparser.ConfigParser()
    config.read(PACKAGE.parents[1] / ".importlinter", encoding="utf-8")
    forbidden = {line.strip().removeprefix("peargarden.") for line in
                 config["importlinter:contract:fronts"]["forbidden_modules"].split() if line.strip()}  # fmt: skip
    assert forbidden == _top_level_packages() - FRONTS_MAY_USE - FRONTS


def test_no_module_level_import_cycles() -> None:
    """Imports under ``if TYPE_CHECKING:`` count: a cycle only the type checker sees is still two
    modules that need each other (issue 43: the page and variables views took the whole session)."""
    graph = {name: info.project | info.typing for name, info in project_imports().items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    assert cycles == []


def test_imports_are_at_the_top_unless_they_defer_a_heavy_library_or_a_cycle() -> None:
    """An import inside a function is there for a reason: at the top it would load a heavy library
    the module does not load (so a light command would pay for it) or close an import cycle."""
    assert [f"{path.relative_to(PACKAGE.parent)}:{line}: {target}" for path, line, target in needless_deferrals()] == []


def test_no_parameter_in_modes_is_typed_any() -> None:
    """Issue 27: the modes once took ``session: Any`` / ``app: Any`` and reached back into the service
    through them; a mode's parameters say what they are (a JSON value is ``object``, narrowed where read)."""
    found = []
    for path in sorted((PACKAGE / "modes").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = node.args
                every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
                found += [f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}({a.arg})" for a in every
                          if isinstance(a.annotation, ast.Name) and a.annotation.id == "Any"]  # fmt: skip
    assert found == []


def test_the_architecture_doc_stays_a_map() -> None:
    """Issue 27: one line per package plus the flows, at most 10,000 characters (module lists belong
    in the packages' docstrings)."""
    doc = (PACKAGE.parents[1] / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert len(doc) <= 10_000


def _face_source(face: str) -> ast.Module:
    return ast.parse(PACKAGE.parent.joinpath(*face.split("."), "__init__.py").read_text(encoding="utf-8"))


def _exported(face: str) -> set[str]:
    """The face's ``__all__``."""
    for node in _face_source(face).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def _typing_only(face: str) -> set[str]:
    """Names a face defines for annotations alone (``AnyChat``): bound under ``if TYPE_CHECKING:`` by
    an assignment, never imported at run time."""
    names: set[str] = set()
    for node in _face_source(face).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            names |= {t.id for inner in node.body if isinstance(inner, ast.Assign)
                      for t in inner.targets if isinstance(t, ast.Name)}  # fmt: skip
    return names


def face_imports(source: str, where: str) -> tuple[list[str], dict[str, set[str]]]:
    """What a front's *source* takes from ``app``: the imports that go past the faces (``where:line:
    what``), and the names it takes from each face — imported, or read off a room imported whole
    (``from peargarden.app import cards`` … ``cards.create_book``).  Every import counts, in a
    function and under ``if TYPE_CHECKING:`` too."""
    deep: list[str] = []
    used: dict[str, set[str]] = {face: set() for face in FACES}
    rooms: dict[str, str] = {}  # a local name bound to a room's package → the room
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("peargarden.app"):
                    deep.append(f"{where}:{node.lineno}: import {alias.name}")  # a face is imported from, not whole
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("peargarden.app"):
            module = node.module or ""
            if module not in FACES:
                deep.append(f"{where}:{node.lineno}: from {module} import …")
                continue
            for alias in node.names:
                if module == "peargarden.app" and alias.name in ROOMS:
                    rooms[alias.asname or alias.name] = f"{module}.{alias.name}"
                else:
                    used[module].add(alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in rooms:
            used[rooms[node.value.id]].add(node.attr)
    for face, names in used.items():
        unknown = sorted(names - _exported(face) - _typing_only(face))
        deep += [f"{where}: {face}.{name} is no name of the face" for name in unknown]
    return deep, used


def _fronts() -> dict[str, str]:
    paths = sorted(p for front in FRONTS for p in (PACKAGE / front).rglob("*.py"))
    return {str(path.relative_to(PACKAGE.parent)): path.read_text(encoding="utf-8") for path in paths}


def test_the_fronts_take_from_app_only_what_its_faces_export() -> None:
    """Issue 43: the fronts import ``peargarden.app`` and the rooms' packages; every module in
    them is private to ``app`` (import-linter's ``faces`` contract says so for run-time imports)."""
    found = [line for where, source in _fronts().items() for line in face_imports(source, where)[0]]
    assert found == []


def test_each_face_exports_exactly_the_names_the_fronts_use() -> None:
    used: dict[str, set[str]] = {face: set() for face in FACES}
    for where, source in _fronts().items():
        for face, names in face_imports(source, where)[1].items():
            used[face] |= names
    assert {face: names - _typing_only(face) for face, names in used.items()} == {f: _exported(f) for f in FACES}


def test_a_deep_import_is_found_wherever_it_is() -> None:
    """The check above can fail: an import of a room's module (at the top, in a function, for the
    type checker), a name a face does not export, and a module read off a room imported whole."""
    source = """
from typing import TYPE_CHECKING
from peargarden.app import Beat, cards
from peargarden.app.play.service import PearApp
from peargarden.app.library import open_card, chat_files
if TYPE_CHECKING:
    from peargarden.app.play.beat import ApprovalPrompt

def handler():
    import peargarden.app.settings.connections
    return cards.lore_books.create_book, cards.create_book
"""
    deep, used = face_imports(source, "web/例子.py")
    assert deep == [
        "web/例子.py:4: from peargarden.app.play.service import …",
        "web/例子.py:7: from peargarden.app.play.beat import …",
        "web/例子.py:10: import peargarden.app.settings.connections",
        "web/例子.py: peargarden.app.cards.lore_books is no name of the face",
        "web/例子.py: peargarden.app.library.chat_files is no name of the face",
    ]
    assert used["peargarden.app"] == {"Beat"} and used["peargarden.app.cards"] == {"create_book", "lore_books"}


def test_every_name_of_a_face_is_its_modules_own() -> None:
    """A face's ``__all__`` is what it imports at the top (light names: ``Home``) and its ``_LAZY``
    table, which its type checker's imports name too; no name is one of its package's modules (once
    that module is imported, the package's attribute is the module, and a lazy name of the same name
    would never be asked for); each resolves."""
    for face in FACES:
        folder = PACKAGE.parent.joinpath(*face.split("."))
        declared: set[str] = set()
        eager: set[str] = set()
        for node in _face_source(face).body:
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                declared |= {alias.asname or alias.name for inner in node.body if isinstance(inner, ast.ImportFrom)
                             for alias in inner.names}  # fmt: skip
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("peargarden."):
                eager |= {alias.asname or alias.name for alias in node.names} - {"lazy_names"}
        exported, lazy = _exported(face), set(lazy_names(face))
        assert (lazy | eager, declared | eager, lazy & eager) == (exported, exported, set()), face
        modules = {p.stem for p in folder.glob("*.py")} | {p.parent.name for p in folder.glob("*/__init__.py")}
        assert exported & modules == set(), face
        package = importlib.import_module(face)
        assert [name for name in sorted(exported) if getattr(package, name, None) is None] == [], face
