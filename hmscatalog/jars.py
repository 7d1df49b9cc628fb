"""JVM parts the pyspark wheel lacks, fetched from Maven Central once and reused offline.

Each named set of artifacts is resolved by Maven (``mvn``, with the user's own settings, so a
mirror in ``~/.m2/settings.xml`` is used) into a local repository under the jars cache,
``$HMSCATALOG_HOME/jars`` or ``~/.hmscatalog/jars``. Without ``mvn`` on PATH, Apache Maven's own
binary distribution is fetched from Maven Central once (checked against its SHA-512) into the
jars cache and used: a Java runtime is all it needs, and it resolves exactly as an installed
Maven does. (pyspark's Ivy, which ``spark.jars.packages`` uses, would need no download, but it
settles version conflicts by taking the newest version where Maven takes the nearest one: for
the Hive 4.1 metastore it picked other versions of some 40 jars, and that metastore then failed
``create_database``.) The resolved class path is recorded in
``<cache>/<name>/classpath.txt``; later calls read it back without Maven or a network, as long as
every jar it names is still there.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from hmscatalog.errors import JarsUnavailable

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
MVN_TIMEOUT_S = 1800.0


def home() -> Path:
    """``$HMSCATALOG_HOME``, or ``~/.hmscatalog``."""
    value = os.environ.get("HMSCATALOG_HOME")
    return Path(value) if value else Path.home() / ".hmscatalog"


def cache() -> Path:
    """Where fetched and built jars live."""
    return home() / "jars"


@dataclass(frozen=True)
class JarSet:
    """Maven artifacts to resolve with their runtime dependencies.

    Args:
        name: the folder under the jars cache (``hive-metastore-3.1.3``).
        what: how errors name the set (``Hive Metastore 3.1.3``).
        artifacts: ``group:artifact:version`` coordinates.
        exclusions: ``group:artifact`` pairs left out of every artifact's dependencies.
        unpack: ``group:artifact:version:type:classifier`` archives to unpack into
            ``<cache>/<name>/unpacked`` (only paths matching ``unpack_includes``).
    """

    name: str
    what: str
    artifacts: tuple[str, ...]
    exclusions: tuple[str, ...] = ()
    unpack: tuple[str, ...] = ()
    unpack_includes: str = "**"

    @property
    def folder(self) -> Path:
        return cache() / self.name

    @property
    def unpacked(self) -> Path:
        return self.folder / "unpacked"


def _pom(jars: JarSet) -> str:
    excl = "".join(
        f"<exclusion><groupId>{escape(g)}</groupId><artifactId>{escape(a)}</artifactId>"
        "</exclusion>"
        for g, a in (e.split(":") for e in jars.exclusions)
    )
    deps = "".join(
        f"<dependency><groupId>{escape(g)}</groupId><artifactId>{escape(a)}</artifactId>"
        f"<version>{escape(v)}</version><exclusions>{excl}</exclusions></dependency>\n"
        for g, a, v in (c.split(":") for c in jars.artifacts)
    )
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        f"<groupId>hmscatalog.jars</groupId><artifactId>{escape(jars.name)}</artifactId>"
        "<version>1</version><packaging>pom</packaging>"
        f"<dependencies>\n{deps}</dependencies></project>\n"
    )


def _recorded(jars: JarSet) -> list[str] | None:
    try:
        entries = (jars.folder / "classpath.txt").read_text().split(os.pathsep)
    except OSError:
        return None
    entries = [e for e in entries if e.strip()]
    if not entries or not all(Path(e).is_file() for e in entries):
        return None
    if jars.unpack and not (jars.unpacked / ".complete").exists():
        return None
    return entries


MAVEN_VERSION = "3.9.11"
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"


def _mvn() -> str:
    """``mvn`` from PATH, else the Maven fetched into the jars cache (fetched now if need be)."""
    return shutil.which("mvn") or str(_fetched_maven())


def _maven_env() -> dict[str, str]:
    """The environment Maven runs in: ours, with ``JAVA_HOME`` found from ``java`` on PATH
    when it is not set (Maven's script needs one or the other).

    Raises:
        JarsUnavailable: there is no Java at all.
    """
    env = dict(os.environ)
    if not env.get("JAVA_HOME"):
        java = shutil.which("java")
        if java is None:
            raise JarsUnavailable("Maven needs Java to fetch jars, and there is no java on PATH "
                                  "and no JAVA_HOME: install Java 17")
        env["JAVA_HOME"] = str(Path(java).resolve().parents[1])
    return env


def _fetched_maven() -> Path:
    """``bin/mvn`` of Apache Maven :data:`MAVEN_VERSION`, fetched from Maven Central into the jars
    cache on first use, its archive checked against the SHA-512 published beside it.

    Raises:
        JarsUnavailable: it cannot be fetched, or its checksum does not match.
    """
    home = cache() / f"apache-maven-{MAVEN_VERSION}"
    mvn = home / "bin" / "mvn"
    if mvn.is_file():
        return mvn
    name = f"apache-maven-{MAVEN_VERSION}-bin.tar.gz"
    url = f"{MAVEN_CENTRAL}/org/apache/maven/apache-maven/{MAVEN_VERSION}/{name}"
    print(f"hmscatalog: fetching Apache Maven {MAVEN_VERSION} from Maven Central into {home} "
          "(no mvn on PATH; once)", file=sys.stderr, flush=True)
    cache().mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(url + ".sha512", timeout=60) as reply:
            expected = reply.read().decode().split()[0].strip().lower()
        with tempfile.TemporaryDirectory(dir=cache(), prefix=".maven-") as tmp:
            archive = Path(tmp) / name
            with urllib.request.urlopen(url, timeout=60) as reply, archive.open("wb") as out:
                shutil.copyfileobj(reply, out)
            digest = hashlib.sha512(archive.read_bytes()).hexdigest()
            if digest != expected:
                raise JarsUnavailable(f"cannot fetch Apache Maven from {url}: its SHA-512 "
                                      f"{digest[:16]}... is not the published {expected[:16]}...")
            with tarfile.open(archive) as tar:
                tar.extractall(tmp, filter="data")
            shutil.rmtree(home, ignore_errors=True)
            (Path(tmp) / f"apache-maven-{MAVEN_VERSION}").rename(home)
    except (OSError, urllib.error.URLError, tarfile.TarError) as exc:
        raise JarsUnavailable(f"Maven (mvn) is not on PATH, and Apache Maven cannot be fetched "
                              f"from {url}: {getattr(exc, 'reason', exc)}; install Maven "
                              "(apt-get install maven) or check the network") from exc
    return mvn


# Maven's batch-mode line for each file it has downloaded, with its size.
_DOWNLOADED = re.compile(r"Downloaded from [^:]+: \S+ \((\d+(?:\.\d+)?) (B|kB|MB|GB)")
_UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}


class _Progress:
    """What a fetch has downloaded so far, from Maven's transfer lines: on a terminal one line
    rewritten as files arrive, otherwise one line at the end (nothing when nothing was
    downloaded)."""

    def __init__(self, what: str) -> None:
        self.what, self.files, self.size = what, 0, 0.0
        self.began = time.monotonic()
        self.live = sys.stderr.isatty()

    def see(self, line: str) -> None:
        found = _DOWNLOADED.search(line)
        if found is None:
            return
        self.files += 1
        self.size += float(found.group(1)) * _UNITS[found.group(2)]
        if self.live:
            print(f"\r{self._text()}", end="", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.files:
            print(("\r" if self.live else "") + self._text(), file=sys.stderr, flush=True)

    def _text(self) -> str:
        return (f"hmscatalog: fetched {self.files} files ({self.size / 1e6:.1f} MB) of "
                f"{self.what} from Maven Central in {time.monotonic() - self.began:.0f}s")


def _run_mvn(jars: JarSet, work: Path, goal: str, *props: str) -> None:
    repo = cache() / "maven-repository"
    # Not -q: the transfer lines of batch mode (-B) are the progress shown.
    command = [_mvn(), "-B", "-Dstyle.color=never", "-f", str(work / "pom.xml"),
               f"-Dmaven.repo.local={repo}", f"{DEPENDENCY_PLUGIN}:{goal}", *props]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, stdin=subprocess.DEVNULL, env=_maven_env())
    timed_out = threading.Event()

    def give_up() -> None:
        timed_out.set()
        proc.kill()

    timer = threading.Timer(MVN_TIMEOUT_S, give_up)
    timer.start()
    progress, output = _Progress(jars.what), []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            progress.see(line)
        proc.wait()
    finally:
        timer.cancel()
        progress.done()
    if timed_out.is_set():
        raise JarsUnavailable(
            f"cannot fetch {jars.what} from Maven Central: mvn took over {MVN_TIMEOUT_S:.0f}s")
    if proc.returncode != 0:
        text = re.sub(r"\x1b\[[0-9;]*m", "", "".join(output))
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        errors = [ln.removeprefix("[ERROR]").removesuffix("-> [Help 1]").strip()
                  for ln in lines if ln.startswith("[ERROR]")]
        reason = next((e for e in errors if e), lines[-1] if lines else "mvn failed")
        raise JarsUnavailable(f"cannot fetch {jars.what} from Maven Central: {reason[:400]}")


def classpath(jars: JarSet) -> list[str]:
    """The jars of ``jars``, fetched on first use (a few minutes), then read from the cache.

    Raises:
        JarsUnavailable: one line naming the set and why (no Maven, no network, a missing
            artifact); nothing is recorded, so the next call tries again.
    """
    found = _recorded(jars)
    if found is not None:
        return found
    jars.folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=jars.folder, prefix=".resolve-") as tmp:
        work = Path(tmp)
        (work / "pom.xml").write_text(_pom(jars))
        listing = work / "classpath.txt"
        _run_mvn(jars, work, "build-classpath", f"-Dmdep.outputFile={listing}",
                 "-Dmdep.includeScope=runtime")
        if jars.unpack:
            target = work / "unpacked"
            for archive in jars.unpack:
                _run_mvn(jars, work, "unpack", f"-Dartifact={archive}",
                         f"-DoutputDirectory={target}",
                         f"-Dmdep.unpack.includes={jars.unpack_includes}")
            (target / ".complete").write_text("\n".join(jars.unpack) + "\n")
            shutil.rmtree(jars.unpacked, ignore_errors=True)
            target.rename(jars.unpacked)
        os.replace(listing, jars.folder / "classpath.txt")
    found = _recorded(jars)
    if found is None:
        raise JarsUnavailable(f"cannot fetch {jars.what}: Maven resolved no jars")
    return found


def have(jars: JarSet) -> bool:
    """Whether ``jars`` is in the cache already (no network needed)."""
    return _recorded(jars) is not None

