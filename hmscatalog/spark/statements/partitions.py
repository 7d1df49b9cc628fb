"""The partitions a statement's PARTITION clause names (``DESCRIBE ... PARTITION``, ``ALTER
TABLE ... PARTITION ... SET ...``, ``ALTER TABLE ... DROP PARTITION``, ``SHOW PARTITIONS ...
PARTITION``), as the metastore names them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hmscatalog.errors import InvalidPartitionValue, NoSuchPartition
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME, parse_part_name
from hmscatalog.partitions.types import HiveType, format_value, parse_value
from hmscatalog.spark.bridge.jvm import Jvm, quoted, sql_string
from hmscatalog.spark.internals import plans
from hmscatalog.spark.read.rows import internal_row


def _metastore_value(text: str | None, hive_type: HiveType) -> str:
    """The metastore's string of a clause's value (``None``, NULL: the default partition, as
    Hive and the built-in catalog take it).

    Raises:
        InvalidPartitionValue: the column's type cannot hold the value.
    """
    if text is None:
        return DEFAULT_PARTITION_NAME
    if hive_type.kind in ("char", "varchar") and hive_type.length is not None:
        text = _fitted(text, hive_type.kind, hive_type.length)
    return format_value(parse_value(text, hive_type), hive_type) or DEFAULT_PARTITION_NAME


def _fitted(text: str, kind: str, length: int) -> str:
    """A CHAR or VARCHAR value of a PARTITION clause as Spark takes it (its write-side check):
    spaces beyond the length dropped, a CHAR padded to it, so that ``PARTITION (c = 'a')``
    names the partition a CHAR(3) column holds as ``'a  '``.

    Raises:
        InvalidPartitionValue: the value is longer than the length.
    """
    if len(text) > length:
        if text[length:].strip(" "):
            raise InvalidPartitionValue(f"{text!r} is longer than {length}")
        text = text[:length]
    return text.ljust(length) if kind == "char" else text


def clause_strings(table: Table, given: Mapping[str, str | None],
                   qualified: str) -> dict[str, str] | None:
    """The metastore's strings of the columns a PARTITION clause names, whole or partial
    (column → value as written, ``None`` for NULL), keyed by lower-case column; ``None`` when
    it names a column the table is not partitioned by.

    Raises:
        InvalidPartitionValue: a value its column's type cannot hold; the message names the
            value, the column and the table (``qualified``).
    """
    spec = table.partition_spec
    strings = {}
    for key, text in given.items():
        column = key.lower()
        if column not in spec.names:
            return None
        try:
            strings[column] = _metastore_value(text, spec.column(column).type)
        except InvalidPartitionValue:
            raise InvalidPartitionValue(
                f"partition value {text!r} of column {column} of {qualified} is not a valid "
                f"{spec.column(column).type}") from None
    return strings


def clause_values(jvm: Jvm, table: Table, given: Mapping[str, str], qualified: str) -> list[str]:
    """The metastore's values, in partition-column order, of the full PARTITION clause
    ``given`` (column → the value as written); a clause that does not name every partition
    column is refused as Spark refuses it."""
    spec = table.partition_spec
    by_name = {key.lower(): value for key, value in given.items()}
    if sorted(by_name) != sorted(spec.names):
        jvm.throw(plans.analysis_error(jvm, "_LEGACY_ERROR_TEMP_1232", {
            "specKeys": ", ".join(given), "partitionColumnNames": ", ".join(spec.names),
            "tableName": qualified}))
    try:
        strings = clause_strings(table, by_name, qualified)
    except InvalidPartitionValue as exc:
        jvm.throw(jvm.bare_error(str(exc), None))
    assert strings is not None
    return [strings[name] for name in spec.names]


def named_partition(jvm: Jvm, client: MetastoreClient, catalog: str, table: Table,
                    given: Mapping[str, str], time_zone: str) -> Partition:
    """The partition a full PARTITION clause names; a missing one is refused with Spark's
    ``PARTITIONS_NOT_FOUND``."""
    qualified = quoted(catalog, table.database, table.name)
    values = clause_values(jvm, table, given, qualified)
    try:
        return client.get_partition(table.database, table.name, values)
    except NoSuchPartition:
        jvm.analysis_error("NoSuchPartitionException", qualified,
                           internal_row(jvm, table.partition_spec, values, time_zone,
                                        default_name_in_strings=True),
                           jvm.struct_type(table.partition_keys))


def matching_names(names: Sequence[str], wanted: Mapping[str, str]) -> list[str]:
    """The partition names (``k=v/...``) whose columns hold ``wanted``'s strings."""
    return [name for name in names
            if all(dict(parse_part_name(name)).get(k) == v for k, v in wanted.items())]


def drop_partial(jvm: Jvm, session: Any, client: MetastoreClient, catalog: str, table: Table,
                 command: Any) -> Any:
    """``ALTER TABLE ... DROP [IF EXISTS] PARTITION (...)[, ...]`` where a clause names only
    some partition columns, as Hive and the built-in catalog drop it: every partition that
    holds the clause's values, by its metastore name. Spark's analyzer refuses such a clause
    for other catalogs (``Partition spec is invalid``) before a catalog sees it, so the
    statement becomes ``CALL <catalog>.system.drop_partitions`` of those names (named whole
    for Spark, a value its cast refuses, such as another engine's '1e2' in a DECIMAL(3,3)
    column, failed the statement). A clause that matches no partition is refused with
    ``PARTITIONS_NOT_FOUND`` as the built-in refuses it (nothing dropped), unless IF EXISTS.

    ``None`` (Spark's own path) when every clause is whole, or one names a column the table
    is not partitioned by (Spark's error names it)."""
    spec = table.partition_spec
    clauses = plans.dropped_partitions(jvm, command)
    keys = [{key.lower() for key in clause} for clause in clauses]
    if (not spec.names or all(k == set(spec.names) for k in keys)
            or any(not k <= set(spec.names) for k in keys)):
        return None
    # A value its column cannot hold: InvalidPartitionValue, [HMS_INVALID_PARTITION_VALUE].
    qualified = quoted(catalog, table.database, table.name)
    wanted = [clause_strings(table, clause, qualified) or {} for clause in clauses]
    names = client.list_partition_names(table.database, table.name)
    dropped: dict[str, None] = {}  # in order, each once
    missing = []
    for strings in wanted:
        found = matching_names(names, strings)
        if not found:
            missing.append(strings)
        dropped.update(dict.fromkeys(found))
    if missing and not command.ifExists():
        jvm.analysis_error("NoSuchPartitionsException", table.database, table.name,
                           jvm.seq([jvm.scala_map(strings) for strings in missing]))
    if not dropped:
        return plans.local_relation(jvm, "", [])
    listed = ", ".join(sql_string(name) for name in dropped)
    return plans.parse(session, (
        f"CALL {quoted(catalog)}.system.drop_partitions({sql_string(table.database)}, "
        f"{sql_string(table.name)}, array({listed}), {str(bool(command.ifExists())).lower()})"))
