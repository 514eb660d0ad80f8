"""The package's layers: imports point down only (simulation -> http -> processes -> cluster -> registry ->
storage/kinds -> machinery), and no module imports another that imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "fakeapi"
# each layer, and the layers below it that it may import (the top-level modules above them may import all)
MAY_IMPORT = {
    "machinery": {"machinery"},
    "storage": {"storage", "machinery"},
    "kinds": {"kinds", "machinery"},
    "registry": {"registry", "storage", "kinds", "machinery"},
    "controllers": {"controllers", "registry", "storage", "kinds", "machinery"},
    # the simulated cluster is a client of the API, like `testing`: nothing below it imports it
    "simulation": {"simulation", "cluster", "config", "http", "processes", "registry", "storage", "kinds",
                   "machinery"},
    "http": {"http", "cluster", "config", "openapi", "podlogs", "processes", "seeding", "registry", "storage",
             "kinds", "machinery"},
    # what runs inside containers (exec, files, port-forward targets): reads the cluster, knows no HTTP
    "processes": {"processes", "cluster", "config", "podlogs", "registry", "storage", "kinds", "machinery"},
    # the settings and the state beside the cluster sit low: what builds the cluster reads them
    "config": {"config", "storage", "machinery"},
    "podlogs": {"podlogs", "storage", "machinery"},
    "cluster": {"cluster", "config", "controllers", "podlogs", "registry", "storage", "kinds", "machinery"},
}


def module_imports() -> dict[str, set[str]]:
    """fakeapi module -> the fakeapi modules it imports (at any depth of the file, lazy imports included)."""
    imports: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fakeapi"):
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name.startswith("fakeapi"))
        imports[module] = found
    return {module: {name for name in found if name in imports} for module, found in imports.items()}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else parts[-1]


def test_each_layer_imports_only_the_layers_below_it() -> None:
    upward = [
        f"{module} imports {imported}"
        for module, imported_modules in module_imports().items()
        if layer(module) in MAY_IMPORT
        for imported in imported_modules
        if layer(imported) not in MAY_IMPORT[layer(module)] and imported != "fakeapi"
    ]
    assert upward == []


def test_there_are_no_import_circles() -> None:
    graph = module_imports()
    circles: list[list[str]] = []

    def visit(module: str, path: list[str], done: set[str]) -> None:
        for imported in sorted(graph.get(module, ())):
            if imported in path:
                circles.append(path[path.index(imported):] + [imported])
            elif imported not in done:
                visit(imported, [*path, imported], done)
        done.add(module)

    done: set[str] = set()
    for module in sorted(graph):
        if module not in done:
            visit(module, [module], done)
    # a package and its own modules (fakeapi.kinds.pod -> fakeapi.kinds.pod.strategy) are not a circle
    real = [circle for circle in circles
            if not all(name.startswith(circle[0] + ".") or circle[0].startswith(name + ".")
                       for name in circle[1:-1])]
    assert real == []
