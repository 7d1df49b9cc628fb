"""The Java side of the ``hms`` catalog: a small jar built from this package's own sources with
the JDK, once per Spark version, into ``~/.hmscatalog/jars/``.

Spark finds catalogs and session extensions by class name, in every session it makes
(``spark.newSession()``, each connection of the Thrift server), so hmscatalog's catalog needs a
Java class: ``io.hmscatalog.spark.HmsCatalogPlugin`` forwards each call to the Python catalog
that :func:`hmscatalog.spark.attach` registered for its name (one per session, made when the
session first names the catalog). Its forwarding methods are written here from the interfaces
of the Spark that runs (read with ``javap``), so the jar matches that version's methods exactly.
``io.hmscatalog.spark.HmsExtensions`` adds the analyzer rule that shows the Python side every
INSERT's PARTITION clause and the repair commands (see :mod:`hmscatalog.spark.hooks`).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from hmscatalog import jars as jar_cache
from hmscatalog.errors import HmsCatalogError
from hmscatalog.metastore.server import find_spark_jars
from hmscatalog.storage import hadoop_jars

PACKAGE = "io.hmscatalog.spark"
PLUGIN_CLASS = f"{PACKAGE}.HmsCatalogPlugin"
EXTENSIONS_CLASS = f"{PACKAGE}.HmsExtensions"
REGISTRY_CLASS = f"{PACKAGE}.Registry"
CATALOG_PKG = "org.apache.spark.sql.connector.catalog"
# The interfaces the plugin implements, forwarded to the Python catalog where it has the method.
INTERFACES = (f"{CATALOG_PKG}.TableCatalog", f"{CATALOG_PKG}.SupportsNamespaces",
              f"{CATALOG_PKG}.ProcedureCatalog")
_OWN = {"initialize", "name"}  # answered by the plugin itself


class PluginBuildError(HmsCatalogError):
    """The Java side of the catalog could not be built or loaded."""




def _sources() -> dict[str, str]:
    folder = resources.files("hmscatalog.spark") / "java"
    return {item.name: item.read_text() for item in folder.iterdir()
            if item.name.endswith(".java")}


def _spark_version(jars: Path) -> str:
    found = sorted(jars.glob("spark-core_*.jar"))
    if not found:
        raise PluginBuildError(f"no spark-core jar in {jars}: reinstall pyspark")
    return found[0].stem.split("-")[-1]


def _tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / name) if home else shutil.which(name)
    if not found or not Path(found).exists():
        raise PluginBuildError(
            f"hms needs the JDK's {name} to build its Spark plugin once (a JRE is not enough): "
            "install a JDK 17 (e.g. apt-get install openjdk-17-jdk-headless) or set JAVA_HOME")
    return found


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
        "/** Generated by hmscatalog.spark.plugin: forwards to the catalog's Python side. */\n"
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


def _forwarded_names() -> set[str]:
    from hmscatalog.spark.catalog import HmsCatalog

    return {name for name in dir(HmsCatalog)
            if not name.startswith("_") and callable(getattr(HmsCatalog, name))}


def plugin_jar() -> Path:
    """The plugin's jar for the installed Spark, built first if it is not in the cache."""
    jars = find_spark_jars()
    version = _spark_version(jars)
    sources = _sources()
    names = sorted(_forwarded_names())
    digest = hashlib.sha256(repr((version, sorted(sources.items()), names)).encode())
    target = jar_cache.cache() / f"hmscatalog-spark-{version}-{digest.hexdigest()[:12]}.jar"
    if not target.exists():
        _build(jars, sources, set(names), target)
    return target


def _build(jars: Path, sources: dict[str, str], forwarded: set[str], target: Path) -> None:
    classpath = str(jars / "*")
    listed = subprocess.run([_tool("javap"), "-public", "-cp", classpath, *INTERFACES],
                            capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        raise PluginBuildError(f"javap could not read Spark's catalog interfaces in {jars}: "
                               f"{listed.stderr.strip()[:500]}")
    sources = {**sources,
               "HmsCatalogPlugin.java": plugin_source(interface_methods(listed.stdout),
                                                      forwarded)}
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hmscatalog-java-") as work:
        src, out = Path(work) / "src", Path(work) / "classes"
        src.mkdir()
        for name, text in sources.items():
            (src / name).write_text(text)
        compiled = subprocess.run(
            [_tool("javac"), "-nowarn", "-encoding", "UTF-8", "--release", "17", "-cp",
             classpath, "-d", str(out), *sorted(str(p) for p in src.glob("*.java"))],
            capture_output=True, text=True, check=False)
        if compiled.returncode != 0:
            raise PluginBuildError(f"javac could not build hmscatalog's Spark plugin against "
                                   f"{jars}: {compiled.stderr.strip()[:2000]}")
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        with zipfile.ZipFile(partial, "w") as jar:
            for path in sorted(out.rglob("*.class")):
                jar.write(path, path.relative_to(out).as_posix())
        os.replace(partial, target)


def load(jvm_view: Any) -> None:
    """Make the plugin's classes visible in a running driver: added to the class loader that
    Spark and py4j resolve class names with (PySpark's driver runs under spark-submit's
    mutable class loader), unless they are there already (``spark.jars`` at start)."""
    thread = jvm_view.java.lang.Thread.currentThread()
    loader = thread.getContextClassLoader()
    try:
        jvm_view.java.lang.Class.forName(REGISTRY_CLASS, False, loader)
        return
    except Exception:
        pass
    jar = plugin_jar()
    if "addURL" not in {str(m.getName()) for m in loader.getClass().getMethods()}:
        raise PluginBuildError(
            f"cannot add {jar} to this driver's class loader ({loader.getClass().getName()}): "
            f"start the session with spark.jars={jar}")
    loader.addURL(jvm_view.java.io.File(str(jar)).toURI().toURL())


def session_conf(names: Sequence[str] = ("hms",), s3: bool = False,
                 json: bool = False) -> dict[str, str]:
    """Settings that give a SparkSession the plugin from its start: its jar, the extension, and
    the catalog class for each name (``attach`` still registers the Python side).

    Args:
        s3: add S3A to ``spark.jars`` (``hmscatalog jars s3``: ``hadoop-aws`` matching
            pyspark's Hadoop, and its AWS SDK; fetched from Maven Central on first use), so
            that Spark reads and writes ``s3a://``.
        json: add Hive's JSON SerDe to ``spark.jars`` (``hmscatalog jars json``), so that
            tables stored with ``org.apache.hive.hcatalog.data.JsonSerDe`` are read and
            written (through hms and the built-in catalog alike).
    """
    jars = [str(plugin_jar()), *(hadoop_jars.spark_jars("s3") if s3 else ()),
            *(hadoop_jars.spark_jars("json") if json else ())]
    conf = {"spark.jars": ",".join(jars), "spark.sql.extensions": EXTENSIONS_CLASS}
    conf.update({f"spark.sql.catalog.{name}": PLUGIN_CLASS for name in names})
    return conf
