"""Building hmscatalog's own Java classes with the JDK, once, into a jar of the jars cache: the
Spark plugin (:mod:`hmscatalog.spark.bridge.plugin`) and the metastore's launcher
(:mod:`hmscatalog.metastore.launcher`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from hmscatalog.errors import HmsCatalogError


def jdk_tool(name: str, purpose: str, error: type[HmsCatalogError] = HmsCatalogError) -> str:
    """The JDK's ``name`` (``javac``, ``javap``) from ``JAVA_HOME`` or ``PATH``.

    Raises:
        error: there is none (``purpose`` says what it was needed for).
    """
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / name) if home else shutil.which(name)
    if not found or not Path(found).exists():
        raise error(
            f"hms needs the JDK's {name} to build {purpose} once (a JRE is not enough): "
            "install a JDK 17 (e.g. apt-get install openjdk-17-jdk-headless) or set JAVA_HOME")
    return found


def build_jar(sources: Mapping[str, str], target: Path, purpose: str,
              error: type[HmsCatalogError] = HmsCatalogError, classpath: str = "",
              options: Sequence[str] = ("--release", "17")) -> None:
    """Compile ``sources`` (file name to text) into the jar ``target``, which appears whole or
    not at all (several processes may build it at once).

    Raises:
        error: no JDK, or the sources do not compile against ``classpath``.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    # Once per version, and javac takes a while: say so rather than stall in silence.
    print(f"hmscatalog: building {purpose} with javac into {target} (once)", file=sys.stderr,
          flush=True)
    with tempfile.TemporaryDirectory(prefix="hmscatalog-java-") as work:
        src, out = Path(work) / "src", Path(work) / "classes"
        src.mkdir()
        for name, text in sources.items():
            (src / name).write_text(text)
        compiled = subprocess.run(
            [jdk_tool("javac", purpose, error), "-nowarn", "-encoding", "UTF-8", *options,
             *(["-cp", classpath] if classpath else []), "-d", str(out),
             *sorted(str(p) for p in src.glob("*.java"))],
            capture_output=True, text=True, check=False)
        if compiled.returncode != 0:
            where = f" against {classpath}" if classpath else ""
            raise error(f"javac could not build {purpose}{where}: "
                        f"{compiled.stderr.strip()[:2000]}")
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        with zipfile.ZipFile(partial, "w") as jar:
            for path in sorted(out.rglob("*.class")):
                jar.write(path, path.relative_to(out).as_posix())
        os.replace(partial, target)
