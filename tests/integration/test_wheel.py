"""The wheel that ``python -m build`` makes, installed as a user would (``pip install
'hmscatalog[spark]'`` into a clean venv, not editable, not from the source tree) on a machine
with a Java runtime but no JDK (one linked by jlink without the compiler's modules), runs the
demo from another directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from hmscatalog.javaparts import MANIFEST
from hmscatalog.javaparts.spark_plugin import SPARK_MINORS, prebuilt_name
from hmscatalog.metastore import notification_log

pytestmark = [pytest.mark.integration, pytest.mark.spark]

PROJECT = Path(__file__).resolve().parents[2]


# The JDK's modules that are javac or need it (jlink needs jdeps, jpackage needs jlink).
_COMPILER_MODULES = {"jdk.compiler", "jdk.javadoc", "jdk.jshell", "jdk.jdeps", "jdk.jlink",
                     "jdk.jpackage"}


def _java_runtime(target: Path) -> Path:
    """A Java runtime as a JRE-only machine has one: this JDK's modules but javac's, linked by
    jlink into ``target``."""
    java = shutil.which("java")
    assert java is not None, "the test needs java on PATH"
    jdk_bin = Path(java).resolve().parent
    listed = subprocess.run([str(jdk_bin / "java"), "--list-modules"], check=True,
                            capture_output=True, text=True).stdout
    modules = [line.split("@")[0] for line in listed.split()
               if line.split("@")[0] not in _COMPILER_MODULES]
    subprocess.run([str(jdk_bin / "jlink"), "--add-modules", ",".join(modules), "--output",
                    str(target), "--strip-debug", "--no-header-files", "--no-man-pages"],
                   check=True, capture_output=True, timeout=600)
    kept = subprocess.run([str(target / "bin" / "java"), "--list-modules"], check=True,
                          capture_output=True, text=True).stdout
    assert "jdk.compiler@" not in kept and not (target / "bin" / "javac").exists()
    return target


def _path_without_jdk(folder: Path, runtime: Path) -> str:
    """A PATH like this one whose Java is ``runtime``: each program of PATH is linked into
    ``folder`` unless it is one of the JDK's."""
    java = shutil.which("java")
    assert java is not None
    jdk_bin = Path(java).resolve().parent
    folder.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not Path(directory).is_dir():
            continue
        for program in Path(directory).iterdir():
            target = program.resolve()
            if (folder / program.name).exists() or not target.is_file():
                continue
            if target.parent == jdk_bin:
                continue
            (folder / program.name).symlink_to(target)
    return os.pathsep.join([str(runtime / "bin"), str(folder)])


@pytest.mark.thorough
def test_the_wheel_runs_the_demo_on_a_java_runtime(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(PROJECT)],
        check=True, capture_output=True, text=True, timeout=1200)
    said = built.stdout + built.stderr
    assert [line for line in said.splitlines() if "deprecat" in line.lower()] == []
    (wheel,) = dist.glob("hmscatalog-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    expected = {f"hmscatalog/javaparts/{prebuilt_name(m)}" for m in SPARK_MINORS} | {
        f"hmscatalog/javaparts/{notification_log.PREBUILT_NAME}"}
    assert expected | {f"hmscatalog/javaparts/{MANIFEST}"} <= names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"{wheel}[spark]"],
                   check=True, capture_output=True, timeout=1200)

    env = {key: value for key, value in os.environ.items()
           if key not in ("JAVA_HOME", "PYTHONPATH", "VIRTUAL_ENV", "SPARK_SUBMIT_OPTS")}
    runtime = _java_runtime(tmp_path / "java-runtime")
    env["PATH"] = _path_without_jdk(tmp_path / "bin", runtime)
    env["JAVA_HOME"] = str(runtime)
    env["HMSCATALOG_HOME"] = str(tmp_path / "home")
    assert shutil.which("javac", path=env["PATH"]) is None
    assert shutil.which("java", path=env["PATH"]) == str(runtime / "bin" / "java")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    data = tmp_path / "metastore"
    hmscatalog = str(venv / "bin" / "hmscatalog")
    try:
        demo = subprocess.run([hmscatalog, "demo", "--data-dir", str(data)], cwd=elsewhere,
                              env=env, capture_output=True, text=True, timeout=600)
        assert demo.returncode == 0, demo.stderr[-3000:]
        assert "registered 125 partitions" in demo.stdout
        assert "EXPLAIN: partitions=3/42" in demo.stdout
        assert "javac" not in demo.stderr  # nothing was built: the wheel's jars ran
        assert not list((tmp_path / "home").glob("jars/hmscatalog-*.jar"))
    finally:
        subprocess.run([hmscatalog, "metastore", "stop", "--data-dir", str(data)], cwd=elsewhere,
                       env=env, capture_output=True, timeout=120)
