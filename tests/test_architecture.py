"""The house's layout rules that import-linter cannot state: the fronts' contract is an allow-list
(every package but ``app``, ``errors`` and ``formats`` is forbidden to ``cli`` and ``web``), and no two
modules import each other at module level or for the type checker, siblings or not (a package and
its own submodule included, which import-linter's sibling contract does not see)."""

from __future__ import annotations

import ast
import configparser

from kit.imports import PACKAGE, needless_deferrals, project_imports

FRONTS = {"cli", "web"}
FRONTS_MAY_USE = {"app", "errors", "formats"}


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
