"""Imports run one way through hmscatalog.

No two modules import each other, directly or through others, when loaded: that graph is read
from the source with :mod:`ast`, from the module-level ``import`` and ``from ... import``
statements (also inside ``try``, ``if`` and class bodies, which run at import). Imports inside
functions run later, and those under ``if TYPE_CHECKING:`` never run, so neither counts there.

And the packages stand in an order (:data:`LAYERS`, and :data:`WINGS` inside ``spark/``): a
module imports only from its own package or one below it. That check counts every import a
file makes, in functions and under ``TYPE_CHECKING`` too, since a deferred import of a package
above is the same knot, only hidden.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import hmscatalog

ROOT = Path(hmscatalog.__file__).parent


@functools.cache
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


# The top-level packages and modules of hmscatalog, lowest first. A name imports only names in
# an earlier group, or itself.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("faults", "processes", "jars", "access"),
    ("storage",),
    ("config",),
    ("partitions",),
    ("expressions",),
    ("javaparts",),
    ("metastore",),
    ("projection",),
    ("write",),
    ("sources",),
    ("maintenance",),
    ("spark",),
    ("cli", "wheel_build"),
)
# The wings of hmscatalog.spark, lowest first; "" is the catalog and table at spark/ itself. The
# package's own __init__ (the public API) stands above them all.
WINGS: tuple[str, ...] = ("bridge", "internals", "read", "write", "statements", "", "session")


def every_import(path: Path, module: str) -> set[str]:
    """Every hmscatalog module or package that ``path`` (module ``module``) names in an import
    statement, wherever the statement is."""
    modules = set(_module_names())
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found |= _targets(module, path.name == "__init__.py", node, modules)
    return found - {module}


def _rank(order: tuple[tuple[str, ...], ...], name: str) -> int:
    return next(i for i, group in enumerate(order) if name in group)


def _hmscatalog_modules() -> list[tuple[str, Path]]:
    return [(module, path) for module, path in sorted(_module_names().items())
            if "_thrift" not in module.split(".")]


def test_every_top_level_name_has_a_layer() -> None:
    names = {module.split(".")[1] for module, _ in _hmscatalog_modules() if "." in module}
    placed = {name for group in LAYERS for name in group}
    assert names == placed


def test_packages_import_only_the_layers_below_their_own() -> None:
    upward = []
    for module, path in _hmscatalog_modules():
        if module == "hmscatalog":
            continue
        own = module.split(".")[1]
        for target in sorted(every_import(path, module)):
            other = target.split(".")[1] if target != "hmscatalog" else ""
            if other != own and (not other or _rank(LAYERS, other) >= _rank(LAYERS, own)):
                upward.append(f"{module} -> {target}")
    assert upward == []


def _wing(module: str) -> str | None:
    """The wing of a module of hmscatalog.spark; None for the package's own __init__."""
    parts = module.split(".")[2:]
    if not parts:
        return None
    return parts[0] if len(parts) > 1 or parts[0] in WINGS else ""


def test_every_spark_module_is_in_a_wing() -> None:
    wings = {_wing(module) for module, _ in _hmscatalog_modules()
             if module.startswith("hmscatalog.spark.")}
    assert wings == set(WINGS)
    for wing in WINGS:
        if wing:
            docstring = ast.get_docstring(ast.parse(
                (ROOT / "spark" / wing / "__init__.py").read_text(encoding="utf-8")))
            assert docstring, f"hmscatalog.spark.{wing} says what it holds"


def test_spark_wings_import_only_the_wings_below_their_own() -> None:
    upward = []
    for module, path in _hmscatalog_modules():
        own = _wing(module) if module.startswith("hmscatalog.spark.") else None
        if own is None:
            continue
        for target in sorted(every_import(path, module)):
            if not target.startswith("hmscatalog.spark"):
                continue
            other = _wing(target)
            if other is None or WINGS.index(other) > WINGS.index(own):
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_the_order_checks_find_an_upward_import(tmp_path: Path) -> None:
    # Every import counts, also one deferred into a function or kept for type checking.
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from hmscatalog.spark.session import attach\n"
                      "def f():\n    from hmscatalog.spark.read.scan import HmsScanBuilder\n")
    found = every_import(source, "hmscatalog.spark.bridge.m")
    assert found == {"hmscatalog.spark.session.attach", "hmscatalog.spark.read.scan"}
    assert [WINGS.index(_wing(t) or "") > WINGS.index("bridge") for t in sorted(found)] == [
        True, True]
    assert _wing("hmscatalog.spark.catalog") == "" and _wing("hmscatalog.spark") is None
    assert _rank(LAYERS, "write") > _rank(LAYERS, "storage")


def test_the_graph_sees_imports_that_run_and_only_those() -> None:
    graph = import_graph()
    assert "hmscatalog.errors" in graph["hmscatalog.storage.globs"]
    # from a package import a submodule: the submodule.
    assert "hmscatalog.spark.bridge.plugin" in graph["hmscatalog.spark.session.attach"]
    assert "hmscatalog.spark" not in graph["hmscatalog.spark.session.attach"]
    # internals import the bridge's Jvm under TYPE_CHECKING; path_read imports arrow_source
    # inside a function: no edges.
    assert "hmscatalog.spark.bridge.jvm" not in graph["hmscatalog.spark.internals.read"]
    assert "hmscatalog.spark.read.arrow_source" not in graph[
        "hmscatalog.spark.session.path_read"]
    # Relative imports (the generated Thrift code) resolve.
    assert "hmscatalog.metastore._thrift.hive_metastore.ttypes" in graph[
        "hmscatalog.metastore._thrift.hive_metastore.ThriftHiveMetastore"]
    # A cycle made up here is found and named.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
