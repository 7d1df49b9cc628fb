"""The same statements through hms on the session's metastore and on each other release.

Every release the embedded server runs (3.1, 4.0 and 4.x next to the session's 2.3) is started
once here and attached as a second catalog of the test SparkSession. One script of statements --
CREATE, INSERT (static, dynamic, overwrite), SELECT with pruning, SHOW PARTITIONS, CTAS, MSCK,
DROP of managed and external tables -- runs through both catalogs, and every answer must be the
same: rows, partitions read, partitions listed, files kept or deleted. Spark's built-in catalog
cannot be the reference here, as it cannot talk to Hive 4.0.1 and later.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from hmscatalog.errors import MetastoreError, NoSuchObject
from hmscatalog.metastore import server
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.releases import RELEASES, release

pytestmark = [pytest.mark.integration, pytest.mark.spark]



def _others() -> list[str]:
    """The releases but the session's, 2.3 last: the quick tier's case of a test marked
    cases(1) is the first, and most of these tests check what Hive 3 added."""
    from conftest import HIVE_VERSION

    return sorted((line for line in RELEASES if line != HIVE_VERSION), key=lambda r: r == "2.3")


@pytest.fixture(scope="module", params=_others())
def other(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
          spark: Any, hms: Any) -> Iterator[tuple[str, str, MetastoreClient]]:
    """(release line, catalog name, client) of a second metastore attached to the session."""
    from hmscatalog.spark import attach

    line = request.param
    data_dir = tmp_path_factory.mktemp(f"metastore-{line}")
    info = server.start(port=0, data_dir=data_dir, hive_version=line)
    name = "hms_" + re.sub(r"[^0-9a-z]", "", line)
    try:
        attached = attach(spark, name=name, uri=info.uri)
        yield line, name, attached.client
    finally:
        server.stop(data_dir)


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def _partitions_read(df: Any) -> str:
    plan = str(df._jdf.queryExecution().executedPlan().toString())
    found = re.search(r"partitions=(\d+/\d+)", plan)
    assert found, plan
    return found.group(1)


def _location(client: MetastoreClient, db: str, table: str) -> Path:
    return Path(urlparse(client.get_table(db, table).location or "").path)


def _script(spark: Any, catalog: str, client: MetastoreClient, db: str,
            scratch: Path) -> list[tuple[str, Any]]:
    """Run the statements through ``catalog``; returns (step, answer) pairs to compare."""
    answers: list[tuple[str, Any]] = []
    t = f"{catalog}.{db}.t"

    def sql(text: str) -> Any:
        return spark.sql(text.format(t=t, c=catalog, db=db))

    def show(step: str, query: str) -> None:
        answers.append((step, _rows(sql(query))))

    sql("CREATE NAMESPACE {c}.{db}")
    sql("CREATE TABLE {t} (a BIGINT, b STRING) PARTITIONED BY (dt STRING, hr INT) "
        "STORED AS PARQUET")
    sql("INSERT INTO {t} PARTITION (dt='2024-01-01', hr) VALUES (1, 'x', 0), (2, 'y', 1)")
    sql("INSERT INTO {t} VALUES (3, 'z', '2024-01-02', 0), (4, 'w', '2024-01-03', 1)")
    sql("INSERT OVERWRITE {t} PARTITION (dt='2024-01-02', hr=0) VALUES (5, 'v')")
    sql("INSERT INTO {t} PARTITION (dt='2024-01-03', hr=1) VALUES (6, 'u')")
    show("all", "SELECT * FROM {t}")
    show("partitions", "SHOW PARTITIONS {t}")
    for where in ("dt = '2024-01-02'", "hr = 1", "dt IN ('2024-01-01', '2024-01-03') AND hr >= 1",
                  "dt > '2024-01-01' OR hr = 0", "dt = 'none'"):
        df = sql(f"SELECT * FROM {{t}} WHERE {where}")
        answers.append((where, (_rows(df), _partitions_read(df))))
    show("aggregate", "SELECT dt, hr, count(*), sum(a) FROM {t} GROUP BY dt, hr")
    show("describe columns", "DESCRIBE TABLE {t}")

    sql("CREATE TABLE {c}.{db}.c PARTITIONED BY (dt) STORED AS PARQUET AS "
        "SELECT a, b, dt FROM {t} WHERE hr = 1")
    show("ctas partitions", "SHOW PARTITIONS {c}.{db}.c")
    show("ctas rows", "SELECT * FROM {c}.{db}.c")

    # A partition directory written by another tool, registered by MSCK.
    table_dir = _location(client, db, "t")
    extra = table_dir / "dt=2024-01-09" / "hr=5"
    extra.mkdir(parents=True)
    source = next((table_dir / "dt=2024-01-01" / "hr=0").glob("*.parquet"))
    shutil.copy(source, extra / source.name)
    sql("MSCK REPAIR TABLE {t}")
    show("after msck", "SHOW PARTITIONS {t}")
    df = sql("SELECT a FROM {t} WHERE dt = '2024-01-09'")
    answers.append(("repaired partition", (_rows(df), _partitions_read(df))))
    sql("ALTER TABLE {t} DROP PARTITION (dt='2024-01-09', hr=5)")
    show("after drop partition", "SHOW PARTITIONS {t}")

    # Managed: DROP TABLE deletes the files. External: they stay.
    external_dir = scratch / f"{catalog}-external"
    sql(f"CREATE TABLE {{c}}.{{db}}.e (a INT) PARTITIONED BY (p STRING) STORED AS PARQUET "
        f"LOCATION 'file:{external_dir}'")
    sql("INSERT INTO {c}.{db}.e PARTITION (p='one') VALUES (1)")
    show("external rows", "SELECT * FROM {c}.{db}.e")
    sql("DROP TABLE {c}.{db}.e")
    answers.append(("external files kept", any(external_dir.rglob("*.parquet"))))
    sql("DROP TABLE {t}")
    answers.append(("managed files deleted", not table_dir.exists()))
    show("tables left", "SHOW TABLES IN {c}.{db}")
    sql("DROP NAMESPACE {c}.{db} CASCADE")
    return answers


@pytest.mark.thorough
def test_statements_answer_as_on_the_session_metastore(
        spark: Any, hms: Any, other: tuple[str, str, MetastoreClient], tmp_path: Path) -> None:
    line, name, client = other
    db = f"rel_{re.sub(r'[^0-9a-z]', '', line)}"
    spark.sql("SET hive.exec.dynamic.partition.mode=nonstrict")
    try:
        ours = _script(spark, name, client, db, tmp_path)
        reference = _script(spark, "hms", hms.client, db, tmp_path)
    finally:
        spark.sql("RESET hive.exec.dynamic.partition.mode")
        for catalog in (name, "hms"):
            spark.sql(f"DROP NAMESPACE IF EXISTS {catalog}.{db} CASCADE")
    assert [step for step, _ in ours] == [step for step, _ in reference]
    for (step, got), (_, want) in zip(ours, reference, strict=True):
        assert got == want, (line, step)


@pytest.mark.cases(1)
def test_the_client_speaks_each_release(other: tuple[str, str, MetastoreClient]) -> None:
    line, _, client = other
    dialect = client.dialect()
    assert dialect.major == int(line[0])
    assert dialect.catalogs == (dialect.major >= 3)
    assert dialect.requests == (dialect.major >= 4)
    if dialect.major >= 4:
        assert dialect.version == release(line).version


@pytest.mark.cases(1)
def test_managed_tables_on_hive_4_are_purged_external_tables(
        spark: Any, other: tuple[str, str, MetastoreClient], tmp_path: Path) -> None:
    """Hive 4 stores a non-transactional managed table as EXTERNAL_TABLE with
    external.table.purge=TRUE (whatever a client declares); hms treats it as the managed table
    the user asked for: DROP TABLE deletes its files."""
    line, name, client = other
    db = f"kind_{re.sub(r'[^0-9a-z]', '', line)}"
    spark.sql(f"CREATE NAMESPACE {name}.{db}")
    try:
        spark.sql(f"CREATE TABLE {name}.{db}.m (a INT) STORED AS PARQUET")
        stored = client.get_table(db, "m")
        if line.startswith("4"):
            assert stored.table_type == "EXTERNAL_TABLE"
            assert stored.parameters.get("external.table.purge", "").upper() == "TRUE"
        else:
            assert stored.table_type == "MANAGED_TABLE"
        assert not stored.is_external
        props = dict(spark.sql(f"SHOW TBLPROPERTIES {name}.{db}.m").collect())
        assert "external" not in props
        spark.sql(f"CREATE EXTERNAL TABLE {name}.{db}.x (a INT) STORED AS PARQUET "
                  f"LOCATION 'file:{tmp_path / 'x'}'")
        assert client.get_table(db, "x").is_external
    finally:
        spark.sql(f"DROP NAMESPACE IF EXISTS {name}.{db} CASCADE")


def _create_acid(client: MetastoreClient, db: str, properties: dict[str, str]) -> None:
    """An ACID table as Hive makes one: Hive 4 creates them only for clients that declare they
    write such tables (hms does not, so the test does it by hand)."""
    from hmscatalog.metastore import convert
    from hmscatalog.metastore._thrift.hive_metastore import ttypes as t
    from hmscatalog.metastore.model import Column, Storage, StorageFormat, Table

    definition = Table(db, "a", (Column("x", "int"),), (Column("p", "string"),),
                       Storage.of(StorageFormat.ORC), parameters=properties)
    thrift = convert.table_to_thrift(definition)
    with client._errors():
        if client.dialect().major >= 4:
            client._call("create_table_req", t.CreateTableRequest(
                table=thrift,
                processorCapabilities=["HIVEFULLACIDWRITE", "HIVEMANAGEDINSERTWRITE"]))
        else:
            client._call("create_table", thrift)


INSERT_ONLY = ({"transactional": "true", "transactional_properties": "insert_only"},
               "an insert-only ACID table (transactional=true, "
               "transactional_properties=insert_only)")
FULL = ({"transactional": "true"}, "a full ACID table (transactional=true)")


@pytest.mark.cases(1)
def test_acid_tables_are_refused_for_reads_and_writes(
        spark: Any, other: tuple[str, str, MetastoreClient]) -> None:
    line, name, client = other
    db = f"acid_{re.sub(r'[^0-9a-z]', '', line)}"
    client.create_database(db, if_not_exists=True)
    kinds = [INSERT_ONLY, FULL]
    if line == "2.3":
        # Hive 2.3 holds transactional tables only bucketed, which hms never reads: nothing to
        # refuse, as the server refuses to make one.
        with pytest.raises(MetastoreError, match="must be bucketed and stored using an ACID"):
            _create_acid(client, db, INSERT_ONLY[0])
        kinds = []
    elif line in ("3.1", "4.0"):
        # These standalone servers check a full ACID table's input format by loading ORC's class,
        # which only hive-exec has (4.x runs from it): they cannot hold one, so only insert-only
        # tables are checked on them.
        with pytest.raises(MetastoreError, match="must be stored using an ACID compliant format"):
            _create_acid(client, db, FULL[0])
        kinds = [INSERT_ONLY]
    try:
        for properties, kind in kinds:
            _create_acid(client, db, properties)
            assert client.get_table(db, "a").acid is not None
            for statement, verb in ((f"SELECT * FROM {name}.{db}.a", "read"),
                                    (f"INSERT INTO {name}.{db}.a PARTITION (p='1') VALUES (1)",
                                     "write")):
                with pytest.raises(Exception) as refused:
                    spark.sql(statement).collect()
                first = str(refused.value).strip().splitlines()[0]
                assert f"hms cannot {verb} table {db}.a: it is {kind}" in first, (line, first)
            client.drop_table(db, "a")
    finally:
        client.drop_database(db, cascade=True, if_exists=True)


@pytest.mark.cases(1)
def test_a_catalog_of_its_own(spark: Any, other: tuple[str, str, MetastoreClient],
                              tmp_path: Path) -> None:
    """``metastore-catalog`` (Hive 3+): databases, tables and partitions of another catalog,
    through the client and through ``spark.sql``, unseen from the default catalog."""
    from hmscatalog.spark import attach

    line, _, default = other
    uri = default.uris[0]
    if line == "2.3":
        with pytest.raises(MetastoreError, match="cannot create catalog 'lab': the metastore at "
                           f"{re.escape(uri)} is Hive 2.x, which has no catalogs"):
            default.create_catalog("lab", f"file:{tmp_path / 'lab'}")
        return
    default.create_catalog("lab", f"file:{tmp_path / 'lab'}")
    lab = MetastoreClient(uri, catalog="lab")
    try:
        assert "lab" in default.list_catalogs()
        lab.create_database("lab_db")
        table = lab.new_table("lab_db", "t", [("a", "int")], [("dt", "string"), ("hr", "int")])
        assert table.location is not None and str(tmp_path / "lab") in table.location
        lab.add_partitions(table, [lab.new_partition(table, [d, h])
                                   for d in ("a", "b") for h in range(3)])
        assert [p.values for p in lab.get_partitions_by_filter(
            "lab_db", "t", 'dt = "b" and hr >= 1')] == [("b", "1"), ("b", "2")]
        assert len(lab.get_partitions_by_names("lab_db", "t", ["dt=a/hr=0", "dt=b/hr=9"])) == 1
        assert "lab_db" in lab.list_databases()  # beside the catalog's own "default"
        assert "lab_db" not in default.list_databases()
        spark.conf.set("spark.hmscatalog.hms_lab.metastore-catalog", "lab")
        attach(spark, name="hms_lab", uri=uri)
        spark.sql("INSERT INTO hms_lab.lab_db.t PARTITION (dt='c', hr=0) VALUES (7)")
        assert spark.sql("SELECT a FROM hms_lab.lab_db.t WHERE dt = 'c'").collect() == [(7,)]
        assert lab.drop_partitions("lab_db", "t", ["dt=a/hr=0"]) == 1
        assert lab.count_partitions("lab_db", "t") == 6
        with pytest.raises(NoSuchObject, match="metastore catalog 'nope' does not exist"):
            MetastoreClient(uri, catalog="nope").list_databases()
    finally:
        spark.conf.unset("spark.hmscatalog.hms_lab.metastore-catalog")
        lab.drop_database("lab_db", cascade=True, if_exists=True)
        lab.close()
        default.drop_catalog("lab", if_exists=True)


def test_catalogs_need_hive_3(metastore_uri: str, client: MetastoreClient) -> None:
    """On the session's metastore: a catalog is an error naming it on 2.x, and works on 3+."""
    if client.dialect().major >= 3:
        assert "hive" in client.list_catalogs()
        assert MetastoreClient(metastore_uri, catalog="hive").database_exists("default")
        return
    with pytest.raises(NoSuchObject, match=r"metastore catalog 'lab' was asked for, but the "
                       r"metastore at thrift://\S+ is Hive 2.x, which has no catalogs"):
        MetastoreClient(metastore_uri, catalog="lab").list_databases()
    with pytest.raises(MetastoreError, match=r"cannot list catalogs: .* is Hive 2\.x"):
        client.list_catalogs()


@pytest.mark.thorough
def test_a_full_batch_of_partitions(other: tuple[str, str, MetastoreClient],
                                    tmp_path: Path) -> None:
    """A batch of 1,000 partitions in one add_partitions_req (Hive 4 inserts them with one
    statement of many rows, which overflowed the embedded Derby's default thread stack)."""
    line, _, client = other
    db = f"batch_{re.sub(r'[^0-9a-z]', '', line)}"
    client.create_database(db, location=f"file:{tmp_path / db}")
    try:
        table = client.new_table(db, "t", [("v", "bigint")], [("dt", "string"), ("b", "int")])
        added = client.add_partitions(
            table, [client.new_partition(table, [f"d{i // 100}", i % 100]) for i in range(1_200)])
        assert added == 1_200
        assert client.count_partitions(db, "t", 'dt = "d11"') == 100
    finally:
        client.drop_database(db, cascade=True, if_exists=True)
