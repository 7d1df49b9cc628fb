"""Shared fixtures: one real metastore and one SparkSession per test session (per worker
process, under pytest-xdist's ``-n``)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import kerberized
import pytest
from jvm_archive import SHORT_LIVED_JVM, driver_options, start_making

from hmscatalog import jars as jar_cache
from hmscatalog.errors import JarsUnavailable
from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.releases import release
from hmscatalog.storage import hadoop_jars, minihdfs

if TYPE_CHECKING:
    from remote import Remote
    from s3 import MotoServer
else:
    MotoServer = Any


TIERS = ("quick", "thorough", "all")

# Every JVM the tests start (metastores, their schema tools, the mini HDFS, Spark's drivers in
# child processes) compiles with C1 only: the metastore of a test session spent 60% less CPU so,
# and the tests' JVMs live minutes, not hours. (Java names the option on each JVM's stderr.)
os.environ.setdefault("JDK_JAVA_OPTIONS", " ".join(SHORT_LIVED_JVM))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--tier", choices=TIERS, default="quick",
        help="quick (default): every kind of check, each matrix by a few of its cases; "
             "thorough: only what quick leaves out (tests marked thorough, the other cases of "
             "tests marked cases(n)); all: both. .ci/run runs quick, then thorough.")


def _thorough(items: list[pytest.Item]) -> set[str]:
    """The node ids the quick tier leaves out: tests marked ``thorough``, and of a test marked
    ``cases(n)`` every case but n spread evenly over its cases (the first always among them,
    so that tests sharing a module fixture's parameter share its first value)."""
    left_out = {item.nodeid for item in items if item.get_closest_marker("thorough")}
    groups: dict[tuple[str, str], list[pytest.Item]] = {}
    for item in items:
        if item.get_closest_marker("cases") and item.nodeid not in left_out:
            groups.setdefault((item.path.as_posix(), item.originalname), []).append(item)
    for group in groups.values():
        marker = group[0].get_closest_marker("cases")
        assert marker is not None
        count = len(group)
        kept = {(i * count) // marker.args[0] for i in range(min(marker.args[0], count))}
        left_out.update(item.nodeid for i, item in enumerate(group) if i not in kept)
    return left_out


def _select_tier(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the tier ``--tier`` names; a test named by its node id on the command line runs
    whatever its tier."""
    tier = config.getoption("--tier")
    if tier == "all":
        return
    named = {arg for arg in config.args if "::" in arg}
    thorough = _thorough(items)
    keep = [item for item in items
            if (item.nodeid in thorough) == (tier == "thorough")
            or any(item.nodeid.endswith(arg) for arg in named)]
    kept = {id(item) for item in keep}
    dropped = [item for item in items if id(item) not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
    config.stash[_LEFT_OUT] = len(dropped)


_LEFT_OUT = pytest.StashKey[int]()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker per core, at least two and at most four (each worker runs a
    metastore, a Spark driver and, for some tests, a mini HDFS: about 2 GB)."""
    return min(max(os.cpu_count() or 2, 2), 4)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker process hands its count of left-out tests to the controlling process."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["left_out"] = session.config.stash.get(_LEFT_OUT, 0)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """Under xdist the workers collect: every one leaves out the same tests."""
    left_out = getattr(node, "workeroutput", {}).get("left_out", 0)
    node.config.stash[_LEFT_OUT] = max(node.config.stash.get(_LEFT_OUT, 0), left_out)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    left_out = config.stash.get(_LEFT_OUT, 0)
    if left_out and config.getoption("--tier") == "quick":
        terminalreporter.write_line(
            f"quick tier: {left_out} thorough tests or cases not run "
            "(--tier thorough runs them, as .ci/run does)")


# Files whose tests take minutes together: they start right after the unit tests, so that no
# worker process is left running one of them alone at the end (pytest-xdist hands out files in
# the order of the items).
_LONG_FILES = ("test_differential.py", "test_wheel.py", "test_remote_writes.py",
               "test_crash_safety.py", "test_path_writes.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the ``--tier`` asked for. Mark ``spark`` every test that uses the SparkSession
    (directly, or through ``hms`` or ``db``), so that ``-m spark`` selects every Spark-facing
    test: ``.ci/run`` runs them again with the oldest supported pyspark. Against Hive 4
    metastores, skip the tests that compare with Spark's built-in catalog (``builtin``): it
    cannot read their tables (the comparison for Hive 4 is test_metastore_releases.py's,
    against 2.3 through hms). The unit tests run first, while the Spark drivers' class archive
    is made (``_spark_class_archive``), then the long files (``_LONG_FILES``)."""
    _select_tier(config, items)
    items.sort(key=lambda item: (not _is_unit(item), item.path.name not in _LONG_FILES))
    builtin_skip = pytest.mark.skip(
        reason=f"Spark's built-in Hive catalog (a Hive 2.3.10 client) cannot talk to Hive "
        f"{release(HIVE_VERSION).version}: it calls get_table, which Hive 4.0.1 removed")
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
        if item.get_closest_marker("builtin") and release(HIVE_VERSION).line.startswith("4"):
            item.add_marker(builtin_skip)


# The metastore release the session runs (``--hive-version`` of ``hmscatalog metastore start``):
# .ci/run runs the metastore-facing tests once more against each of the others.
HIVE_VERSION = release(os.environ.get("HMSCATALOG_TEST_HIVE_VERSION")).line


def pytest_report_header() -> str:
    return (f"metastore: Hive {release(HIVE_VERSION).version} (HMSCATALOG_TEST_HIVE_VERSION)"
            + (", Kerberized (HMSCATALOG_TEST_KERBEROS)" if kerberized.ENABLED else ""))


def _fetch_or_skip(what: str, fetch: Callable[[], list[str]]) -> list[str] | str:
    """The jars ``fetch`` gives, or, when Maven Central cannot be reached and this is not CI,
    the one-line reason the tests that need them skip with. CI fails instead: it must run
    them."""
    try:
        return fetch()
    except JarsUnavailable as exc:
        if os.environ.get("CI"):
            raise
        return f"{what} unavailable: {exc}"


@pytest.fixture(scope="session")
def s3a_fetched() -> list[str] | str:
    """pyspark's S3A jars and the metastore release's, fetched once: the former for
    ``spark.jars``; or why they cannot be had (see :func:`_fetch_or_skip`)."""
    hive = release(HIVE_VERSION)
    return _fetch_or_skip("S3A jars", lambda: (
        jar_cache.classpath(hadoop_jars.s3a(hive.hadoop)) and hadoop_jars.spark_jars("s3")))


@pytest.fixture(scope="session")
def json_fetched() -> list[str] | str:
    """Hive's JSON SerDe for ``spark.jars``, fetched once; or why it cannot be had."""
    return _fetch_or_skip("JSON SerDe jars", lambda: hadoop_jars.spark_jars("json"))


@pytest.fixture(scope="session")
def s3a_jars(s3a_fetched: list[str] | str) -> list[str]:
    """The session's S3A jars; the tests that use S3A through Spark or the metastore skip
    (outside CI) when they cannot be fetched."""
    if isinstance(s3a_fetched, str):
        pytest.skip(s3a_fetched)
    return s3a_fetched


@pytest.fixture(scope="session")
def metastore(tmp_path_factory: pytest.TempPathFactory, moto_s3: MotoServer,
              s3a_fetched: list[str] | str) -> Iterator[server.ServerInfo]:
    """A real Hive Metastore (Derby) on a free port, for the whole test session, with S3A on
    its class path and moto's server as its S3 endpoint."""
    data_dir = tmp_path_factory.mktemp("metastore")
    kerberos: dict[str, str] = {}
    kdc = None
    if kerberized.ENABLED:
        kdc, keytab = kerberized.begin(tmp_path_factory.mktemp("kdc"))
        kerberos = {"kerberos_keytab": str(keytab), "kerberos_principal": kerberized.SERVICE}
    info = server.start(port=0, data_dir=data_dir, hive_version=HIVE_VERSION,
                        with_s3=not isinstance(s3a_fetched, str),
                        hadoop_conf=moto_s3.hadoop_settings, **kerberos)
    try:
        yield info
    finally:
        server.stop(data_dir)
        if kdc is not None:
            kdc.stop()


@pytest.fixture(scope="session")
def moto_s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    """moto's S3 server for the whole session; S3 tests assert request counts on its log.
    Imported here so that tests without S3 never need boto3."""
    try:
        from s3 import MotoServer, MotoStartError
    except ImportError as exc:
        pytest.fail(f"S3 tests need the dev dependency moto[server] (and its boto3): {exc}")
    try:
        s3_server = MotoServer(tmp_path_factory.mktemp("moto") / "requests.log")
    except MotoStartError as exc:
        pytest.fail(f"cannot start moto's S3 server (moto[server] is a dev dependency): {exc}")
    try:
        yield s3_server
    finally:
        s3_server.stop()


@pytest.fixture(scope="session")
def metastore_uri(metastore: server.ServerInfo) -> str:
    return metastore.uri


@pytest.fixture
def client(metastore_uri: str) -> Iterator[MetastoreClient]:
    with MetastoreClient(metastore_uri, timeout_s=60, backoff_s=0.1,
                         **kerberized.client_options()) as c:
        yield c


@pytest.fixture(scope="session")
def hdfs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[minihdfs.MiniHdfs]:
    """A real HDFS (Hadoop's mini cluster in its own JVM) on loopback, for the session."""
    found = _fetch_or_skip("HDFS mini cluster jars", lambda: hadoop_jars.spark_jars("hdfs"))
    if isinstance(found, str):
        pytest.skip(found)
    cluster = minihdfs.start(tmp_path_factory.mktemp("hdfs"))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def s3a_bucket(moto_s3: MotoServer) -> str:
    """The bucket S3A tests put their tables in."""
    moto_s3.create_bucket("hms-remote")
    return "hms-remote"


@pytest.fixture(params=["s3a", "hdfs"])
def remote(request: pytest.FixtureRequest, spark: Any) -> Remote:
    """A directory of the test's own on S3 (moto, through S3A) or on HDFS (a mini cluster)."""
    from remote import Remote, unique_root

    if request.param == "s3a":
        request.getfixturevalue("s3a_jars")
        moto = request.getfixturevalue("moto_s3")
        bucket = request.getfixturevalue("s3a_bucket")
        return Remote("s3a", unique_root("t", f"s3a://{bucket}"), spark, moto)
    if kerberized.ENABLED:
        pytest.skip(kerberized.NOT_ON_HDFS)
    cluster = request.getfixturevalue("hdfs")
    return Remote("hdfs", unique_root("t", f"{cluster.uri}/warehouse"), spark)


def _stopped_children() -> list[int]:
    """This process's children that are stopped (SIGSTOP), from /proc."""
    children = set()
    for listed in Path("/proc/self/task").glob("*/children"):
        with contextlib.suppress(OSError):
            children.update(int(pid) for pid in listed.read_text().split())
    found = []
    for pid in children:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state in ("T", "t"):
            found.append(pid)
    return found


@pytest.fixture(autouse=True)
def _no_stopped_child_left() -> Iterator[None]:
    """Crash tests stop child processes at a point of their commit (SIGSTOP); one whose test
    failed before resuming it is killed here rather than left behind."""
    yield
    for pid in _stopped_children():
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _is_unit(item: pytest.Item) -> bool:
    return "unit" in item.path.relative_to(item.config.rootpath).parts[:2]


@pytest.fixture(scope="session", autouse=True)
def _spark_class_archive(request: pytest.FixtureRequest) -> subprocess.Popen[str] | None:
    """The process making the Spark drivers' class archive (tests/jvm_archive.py), started as
    the session starts when a selected test uses Spark and the archive is missing: the unit
    tests, which run first, start no JVM."""
    if "SPARK_SUBMIT_OPTS" in os.environ or not any(
            item.get_closest_marker("spark") for item in request.session.items):
        return None
    return start_making(jar_cache.home())


@pytest.fixture(scope="session")
def spark_driver_options(_spark_class_archive: subprocess.Popen[str] | None) -> str:
    """SPARK_SUBMIT_OPTS, which Spark's launcher gives every driver (the session's, and those
    of child processes, which inherit the environment), with the class archive once it is
    made. Fixtures that start a Spark driver ask for it, so that it is set before they do."""
    if "SPARK_SUBMIT_OPTS" not in os.environ:
        os.environ["SPARK_SUBMIT_OPTS"] = driver_options(jar_cache.home(), _spark_class_archive)
    return os.environ["SPARK_SUBMIT_OPTS"]


@pytest.fixture(autouse=True)
def _spark_driver_options(request: pytest.FixtureRequest) -> None:
    """Before every test past the unit tests: the drivers' options (for tests whose child
    processes start Spark)."""
    if not _is_unit(request.node):
        request.getfixturevalue("spark_driver_options")


@pytest.fixture(scope="session")
def spark(metastore: server.ServerInfo, moto_s3: MotoServer,  # type: ignore[no-untyped-def]
          s3a_fetched: list[str] | str, json_fetched: list[str] | str,
          tmp_path_factory: pytest.TempPathFactory, spark_driver_options: str):
    """A local SparkSession whose built-in Hive catalog uses the test metastore; S3A on its
    class path, pointed at moto's server."""
    pyspark_sql = pytest.importorskip("pyspark.sql")
    warehouse = tmp_path_factory.mktemp("spark-warehouse")
    os.environ.setdefault("PYSPARK_PYTHON", str(Path(os.sys.executable)))
    from hmscatalog.spark import session_conf

    session = (
        pyspark_sql.SparkSession.builder.master("local[2]")
        # hms's plugin from the start, as the README shows (with S3A unless it cannot be had)
        .config(map=session_conf(s3=not isinstance(s3a_fetched, str),
                                 json=not isinstance(json_fetched, str)))
        .appName("hmscatalog-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.catalogImplementation", "hive")
        .config("spark.hadoop.hive.metastore.uris", metastore.uri)
        .config(map={f"spark.hadoop.{k}": v for k, v in moto_s3.hadoop_settings.items()})
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config("spark.driver.extraJavaOptions", " ".join(
            ["-Dderby.system.home=" + str(warehouse), *kerberized.java_options()]))
        .config(map=kerberized.spark_settings())
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()


def _name_for(prefix: str, request: pytest.FixtureRequest, length: int) -> str:
    """A database name from the test's name; a cut name ends in a hash of the whole one, so
    that parametrized tests with long names never share a database (Spark's built-in catalog
    would then serve one test's cached files to the next)."""
    full = "".join(ch if ch.isalnum() else "_" for ch in request.node.name.lower())
    if len(full) <= length:
        return prefix + full
    return prefix + full[:length - 9] + "_" + hashlib.sha1(full.encode()).hexdigest()[:8]


@pytest.fixture
def unique_db(client: MetastoreClient, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database named after the test, dropped (cascade) afterwards."""
    name = _name_for("t_", request, 60)
    client.drop_database(name, cascade=True, if_exists=True)
    client.create_database(name)
    yield name
    client.drop_database(name, cascade=True, if_exists=True)


@pytest.fixture(scope="session")
def hms(spark: Any, metastore_uri: str) -> Any:
    """Catalog ``hms`` attached to the test session's SparkSession and metastore."""
    from hmscatalog.spark import attach

    return attach(spark, uri=metastore_uri)


@pytest.fixture
def db(spark: Any, hms: Any, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh hms namespace named after the test, in nonstrict dynamic-partition mode; the
    namespace is dropped (cascade) and Hive's settings reset afterwards."""
    name = _name_for("h_", request, 50)
    spark.sql(f"DROP NAMESPACE IF EXISTS hms.{name} CASCADE")
    spark.sql(f"CREATE NAMESPACE hms.{name}")
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    yield name
    for setting in ("hive.exec.dynamic.partition.mode", "hive.exec.max.dynamic.partitions"):
        spark.sql(f"RESET {setting}")
    spark.sql(f"DROP NAMESPACE IF EXISTS hms.{name} CASCADE")
