"""Compiling hmscatalog's Java parts into the wheel that ``python -m build`` makes: the Spark
plugin for every minor of :data:`SPARK_MINORS`, each against the jars of that minor's newest
pyspark release on the package index (``pip download``, so the user's pip settings and mirrors
apply), and the metastore's launcher. Building a wheel therefore needs a JDK and the index;
installing and running it needs neither.

Setuptools runs :class:`BuildPy` in place of its own ``build_py`` (pyproject's
``[tool.setuptools.cmdclass]``). An editable install skips the compiling: a checkout builds its
jars with the JDK at first use.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

# Setuptools loads this module from its file, outside its package: put the project on the path.
_PROJECT = str(Path(__file__).resolve().parents[1])
if _PROJECT not in sys.path:
    sys.path.insert(0, _PROJECT)

from setuptools.command.build_py import build_py  # noqa: E402

from hmscatalog.javaparts import MANIFEST  # noqa: E402
from hmscatalog.javaparts.spark_plugin import (  # noqa: E402
    SPARK_MINORS,
    build,
    digest,
    prebuilt_name,
)
from hmscatalog.metastore import launcher, notification_log  # noqa: E402
from hmscatalog.metastore.releases import release  # noqa: E402


def spark_jars(minor: str, work: Path) -> Path:
    """The jars of the newest pyspark ``minor`` release, unpacked into a folder of ``work``."""
    download = work / f"download-{minor}"
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    f"pyspark=={minor}.*", "--dest", str(download)], check=True)
    (archive,) = download.iterdir()
    jars = work / f"spark-{minor}"
    jars.mkdir()
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            for name in wheel.namelist():
                if name.startswith("pyspark/jars/") and name.endswith(".jar"):
                    (jars / Path(name).name).write_bytes(wheel.read(name))
    else:  # the sdist: pyspark-4.1.4/deps/jars/*.jar
        with tarfile.open(archive) as sdist:
            for member in sdist:
                if member.isfile() and "/deps/jars/" in member.name and \
                        member.name.endswith(".jar"):
                    source = sdist.extractfile(member)
                    assert source is not None
                    (jars / Path(member.name).name).write_bytes(source.read())
    archive.unlink()
    return jars


def build_all(target: Path) -> dict[str, str]:
    """Compile every prebuilt jar into ``target`` and write the manifest that names them."""
    wheel_release = release("2.3")
    target.mkdir(parents=True, exist_ok=True)
    manifest = {launcher.PREBUILT_NAME: launcher.source_digest()}
    launcher.build(target / launcher.PREBUILT_NAME)
    with tempfile.TemporaryDirectory(prefix="hmscatalog-wheel-") as work:
        for minor in SPARK_MINORS:
            print(f"hmscatalog: fetching pyspark {minor}'s jars to build the plugin for it",
                  file=sys.stderr, flush=True)
            jars = spark_jars(minor, Path(work))
            build(jars, target / prebuilt_name(minor))
            manifest[prebuilt_name(minor)] = digest()
            if notification_log.PREBUILT_NAME not in manifest:  # Hive 2.3: any pyspark's
                notification_log.build(wheel_release, target / notification_log.PREBUILT_NAME,
                                       f"{jars}/*")
                manifest[notification_log.PREBUILT_NAME] = notification_log.source_digest(
                    wheel_release)
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


class BuildPy(build_py):
    """Setuptools' ``build_py``, then the Java parts (not for an editable install)."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            build_all(Path(self.build_lib) / "hmscatalog" / "javaparts")
