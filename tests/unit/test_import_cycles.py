"""No two hmscatalog modules import each other, directly or through others, when loaded.

The graph is read from the source with :mod:`ast`: the module-level ``import`` and
``from ... import`` statements of hmscatalog modules (also inside ``try``, ``if`` and class
bodies, which run at import). Imports inside functions run later, and those under
``if TYPE_CHECKING:`` never run, so neither counts.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import hmscatalog

ROOT = Path(hmscatalog.__file__).parent


def _module_names() -> dict[str, Path]:
    names = {}
    for path in ROOT.rglob("*.py"):
        parts = ["hmscatalog", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _load_time_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``body`` that run when the module is loaded."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _load_time_imports(node.orelse)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, field, None)
                if isinstance(children, list):
                    statements = [c for c in children if isinstance(c, ast.stmt)]
                    for child in children:  # except handlers and match cases hold bodies
                        if isinstance(child, ast.excepthandler | ast.match_case):
                            statements.extend(child.body)
                    yield from _load_time_imports(statements)


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom,
             modules: set[str]) -> set[str]:
    """The hmscatalog modules an import statement needs: ``from package import name`` needs
    the submodule ``package.name`` when there is one, else the package itself."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    if node.level:  # relative: from the module's package, up level - 1 more
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1])
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    found = set()
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        if submodule in modules:
            found.add(submodule)
        elif source in modules:
            found.add(source)
    return found


def import_graph() -> dict[str, set[str]]:
    names = _module_names()
    modules = set(names)
    graph: dict[str, set[str]] = {}
    for module, path in names.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in _load_time_imports(tree.body):
            edges |= _targets(module, is_package, node, modules)
        graph[module] = edges - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as a cycle
    through its modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(_cycle_in(graph, set(component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One cycle through the first module of ``component`` (a breadth-first search back to it)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target in sorted(graph[node] & component):
            if target == start:
                return [*paths[node], start]
            if target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    raise AssertionError(f"no cycle in component {component}")


def test_no_module_imports_itself_through_others() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_graph_sees_imports_that_run_and_only_those() -> None:
    graph = import_graph()
    assert "hmscatalog.errors" in graph["hmscatalog.storage.globs"]
    # from a package import a submodule: the submodule.
    assert "hmscatalog.spark.plugin" in graph["hmscatalog.spark.attach"]
    assert "hmscatalog.spark" not in graph["hmscatalog.spark.attach"]
    # hooks imports attach under TYPE_CHECKING; config imports globs inside a function and
    # under TYPE_CHECKING: no edges.
    assert "hmscatalog.spark.attach" not in graph["hmscatalog.spark.hooks"]
    assert "hmscatalog.storage.globs" not in graph["hmscatalog.config"]
    # Relative imports (the generated Thrift code) resolve.
    assert "hmscatalog.metastore._thrift.hive_metastore.ttypes" in graph[
        "hmscatalog.metastore._thrift.hive_metastore.ThriftHiveMetastore"]
    # A cycle made up here is found and named.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
