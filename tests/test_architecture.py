"""The house's layout rules that import-linter cannot state: the fronts' contract is an allow-list
(every package but ``app``, ``errors`` and ``formats`` is forbidden to ``cli`` and ``web``), and no two
modules import each other at module level, siblings or not (a package and its own submodule
included, which import-linter's sibling contract does not see)."""

from __future__ import annotations

import ast
import configparser
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "peargarden"
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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level_imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The project modules *path* imports when it is imported (top-level statements, not functions,
    not ``if TYPE_CHECKING:``)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.If):
                if not _type_checking(node):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name in known)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join([*base, *(node.module.split(".") if node.module else [])])
                else:
                    target = node.module or ""
                submodules = {f"{target}.{alias.name}" for alias in node.names} & known
                found.update(submodules)  # `from pkg import module` imports the module
                if target in known and len(submodules) < len(node.names):  # and names defined by pkg
                    found.add(target)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    found.discard(name)
    return found


def test_no_module_level_import_cycles() -> None:
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    known = set(paths)
    graph = {name: _module_level_imports(path, name, known) for name, path in paths.items()}
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
    from kit.imports import needless_deferrals

    assert [f"{path.relative_to(PACKAGE.parent)}:{line}: {target}" for path, line, target in needless_deferrals()] == []
