"""The partition a statement's PARTITION clause names (``DESCRIBE ... PARTITION``, ``ALTER
TABLE ... PARTITION ... SET ...``), as the metastore names it."""

from __future__ import annotations

from collections.abc import Mapping

from hmscatalog.errors import InvalidPartitionValue, NoSuchPartition
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import DEFAULT_PARTITION_NAME
from hmscatalog.partitions.types import format_value, parse_value
from hmscatalog.spark.internals import plans
from hmscatalog.spark.jvm import Jvm, quoted
from hmscatalog.spark.rows import internal_row


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
    values = []
    for name in spec.names:
        text, hive_type = by_name[name], spec.column(name).type
        try:
            values.append(format_value(parse_value(text, hive_type), hive_type)
                          or DEFAULT_PARTITION_NAME)
        except InvalidPartitionValue:
            jvm.throw(jvm.bare_error(f"partition value {text!r} of column {name} of "
                                     f"{qualified} is not a valid {hive_type}", None))
    return values


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
