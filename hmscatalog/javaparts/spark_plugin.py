"""The Java side of the ``hms`` catalog, as sources: what :mod:`hmscatalog.spark.bridge.plugin`
loads into a driver, built from this package's Java files and one generated class.

Spark finds catalogs and session extensions by class name, in every session it makes
(``spark.newSession()``, each connection of the Thrift server), so hmscatalog's catalog needs a
Java class: ``io.hmscatalog.spark.HmsCatalogPlugin`` forwards each call to the Python catalog
that :func:`hmscatalog.spark.session.attach` registered for its name (one per session, made when the
session first names the catalog). Its forwarding methods are written here from the interfaces
of a Spark release (read with ``javap``), so the jar matches that minor's methods exactly.
``io.hmscatalog.spark.HmsExtensions`` adds the analyzer rule that shows the Python side every
INSERT's PARTITION clause and the repair commands (see :mod:`hmscatalog.spark.session.hooks`).

No pyspark here: the wheel's build (:mod:`hmscatalog.wheel_build`) compiles one jar per minor of
:data:`SPARK_MINORS` from the jars of that minor's pyspark release.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

from hmscatalog.errors import HmsCatalogError, UnsupportedSparkVersion
from hmscatalog.javaparts.javac import build_jar, jdk_tool

# The Spark minors hmscatalog supports (pyproject's pyspark range says the same).
SPARK_MINORS: tuple[str, ...] = ("4.0", "4.1", "4.2", "4.3")

PACKAGE = "io.hmscatalog.spark"
PLUGIN_CLASS = f"{PACKAGE}.HmsCatalogPlugin"
EXTENSIONS_CLASS = f"{PACKAGE}.HmsExtensions"
REGISTRY_CLASS = f"{PACKAGE}.Registry"
CATALOG_PKG = "org.apache.spark.sql.connector.catalog"
# The interfaces the plugin implements, forwarded to the Python catalog where it has the method.
INTERFACES = (f"{CATALOG_PKG}.TableCatalog", f"{CATALOG_PKG}.SupportsNamespaces",
              f"{CATALOG_PKG}.ProcedureCatalog")
_OWN = {"initialize", "name"}  # answered by the plugin itself
# The Python catalog's methods that the generated plugin forwards to (where an interface has a
# method of that name); tests/unit/test_plugin_source.py checks that this is every public
# method of hmscatalog.spark.catalog.HmsCatalog.
FORWARDED: tuple[str, ...] = (
    "Java", "alterNamespace", "alterTable", "capabilities", "changelogStateOptionKeys",
    "createNamespace", "createTable", "createTableLike", "defaultNamespace", "dropNamespace",
    "dropTable", "equals", "fetched", "forget_listings", "hashCode", "initialize",
    "invalidateTable", "listNamespaces", "listProcedures", "listTables", "loadNamespaceMetadata",
    "loadProcedure", "loadTable", "name", "namespaceExists", "purgeTable", "qualified_location",
    "refresh", "renameTable", "tableExists", "tableStateOptionKeys", "toString",
    "useNullableQuerySchema")


_VERSION = re.compile(r"(\d+)\.(\d+)")


def listed_minors() -> str:
    """``4.0, 4.1, 4.2 and 4.3``."""
    *rest, last = SPARK_MINORS
    return f"{', '.join(rest)} and {last}" if rest else last


def minor_of(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a Spark version string (``"4.0.5"``, ``"4.3.0-SNAPSHOT"``).

    Raises:
        UnsupportedSparkVersion: when ``version`` does not start with ``<major>.<minor>``.
    """
    match = _VERSION.match(version.strip())
    if match is None:
        raise UnsupportedSparkVersion(
            f"hmscatalog cannot read the Spark version {version!r}; it supports Spark "
            f"{listed_minors()}")
    return int(match[1]), int(match[2])


class PluginBuildError(HmsCatalogError):
    """The Java side of the catalog could not be built or loaded."""


def _sources() -> dict[str, str]:
    # By path, not importlib.resources: importing hmscatalog.spark needs pyspark.
    folder = Path(__file__).resolve().parents[1] / "spark" / "bridge" / "java"
    return {path.name: path.read_text() for path in sorted(folder.glob("*.java"))}


def spark_version(jars: Path) -> str:
    found = sorted(jars.glob("spark-core_*.jar"))
    if not found:
        raise PluginBuildError(f"no spark-core jar in {jars}: reinstall pyspark")
    return found[0].stem.split("-")[-1]


def _tool(name: str) -> str:
    return jdk_tool(name, "its Spark plugin", PluginBuildError)


# "public default java.util.Set<X> capabilities();", with or without "throws ...".
_METHOD = re.compile(r"^\s*public (?:abstract |default )(?P<ret>[\w.$<>\[\], ?]+?) "
                     r"(?P<name>\w+)\((?P<params>.*?)\)(?: throws (?P<throws>[\w.$, ]+))?;$")


def _split_params(text: str) -> list[str]:
    params, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            params.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        params.append(current.strip())
    return params


def interface_methods(javap_output: str) -> list[tuple[str, str, str, list[str], str]]:
    """``(interface, return type, name, parameter types, throws)`` of each instance method in
    ``javap -public`` output (static and generic methods are left out)."""
    methods, interface = [], ""
    for line in javap_output.splitlines():
        header = re.match(r"^public interface ([\w.$]+)", line)
        if header:
            interface = header.group(1)
            continue
        match = _METHOD.match(line)
        if match:
            methods.append((interface, match["ret"], match["name"],
                            _split_params(match["params"]), match["throws"] or ""))
    return methods


def plugin_source(methods: Iterable[tuple[str, str, str, list[str], str]],
                  forwarded: set[str]) -> str:
    """Java source of the plugin: every interface method whose name the Python catalog has
    goes to it; the others keep the interface's default."""
    lines, seen = [], set()
    for interface, ret, name, params, throws in methods:
        key = (name, tuple(params))
        if name in _OWN or name not in forwarded or key in seen:
            continue
        seen.add(key)
        args = ", ".join(f"{p.replace('...', '[]')} a{i}" for i, p in enumerate(params))
        names = ", ".join(f"a{i}" for i in range(len(params)))
        call = f"(({interface}) delegate()).{name}({names})"
        body = f"{call};" if ret == "void" else f"return {call};"
        clause = f" throws {throws}" if throws else ""
        lines.append(f"  public {ret} {name}({args}){clause} {{\n    {body}\n  }}\n")
    implements = ", ".join(INTERFACES)
    return (
        f"package {PACKAGE};\n\n"
        "/** Generated by hmscatalog.spark.bridge.plugin: forwards to the Python catalog. */\n"
        f"public final class HmsCatalogPlugin implements {implements} {{\n"
        "  private String name;\n"
        "  private org.apache.spark.sql.SparkSession session;\n"
        "  private int generation = -1;\n"
        "  private org.apache.spark.sql.connector.catalog.TableCatalog catalog;\n\n"
        "  public void initialize(String name,\n"
        "      org.apache.spark.sql.util.CaseInsensitiveStringMap options) {\n"
        "    this.name = name;\n"
        "    this.session = org.apache.spark.sql.SparkSession.active();\n"
        "  }\n\n"
        "  private synchronized org.apache.spark.sql.connector.catalog.TableCatalog delegate() {\n"
        "    int now = Registry.generation(name);\n"
        "    if (catalog == null || now != generation) {\n"
        "      catalog = Registry.catalogFor(name, session);\n"
        "      generation = now;\n"
        "    }\n"
        "    return catalog;\n"
        "  }\n\n"
        "  public String name() {\n    return name;\n  }\n\n"
        + "\n".join(lines) + "}\n")


def digest() -> str:
    """What a built plugin depends on besides the Spark minor: its sources and the forwarded
    method names."""
    return hashlib.sha256(repr((sorted(_sources().items()), FORWARDED)).encode()).hexdigest()[:12]


def prebuilt_name(minor: str) -> str:
    """The file name of the plugin built for Spark ``minor`` in a wheel."""
    return f"hmscatalog-spark-{minor}.jar"


def build(jars: Path, target: Path) -> None:
    """Build the plugin into ``target`` against the Spark whose jars are in ``jars``.

    Raises:
        PluginBuildError: no JDK, or Spark's interfaces cannot be read or compiled against.
    """
    classpath = str(jars / "*")
    listed = subprocess.run([_tool("javap"), "-public", "-cp", classpath, *INTERFACES],
                            capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        raise PluginBuildError(f"javap could not read Spark's catalog interfaces in {jars}: "
                               f"{listed.stderr.strip()[:500]}")
    sources = {**_sources(),
               "HmsCatalogPlugin.java": plugin_source(interface_methods(listed.stdout),
                                                      set(FORWARDED))}
    build_jar(sources, target, "hmscatalog's Spark plugin", PluginBuildError,
              classpath=classpath)
