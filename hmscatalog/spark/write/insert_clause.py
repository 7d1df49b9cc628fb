"""What an INSERT's PARTITION clause tells a write that Spark's write API does not carry.

Spark states a fully static ``INSERT OVERWRITE ... PARTITION (...)`` to a catalog's write
builder as an overwrite by those values only in static mode
(``spark.sql.sources.partitionOverwriteMode``); in dynamic mode it asks for a dynamic overwrite,
which names no partition, so a write of no rows would leave the clause's partition as it was,
where Hive and the built-in catalog replace it (by an empty one). A fully static
``INSERT INTO ... PARTITION (...)`` reaches the builder as a plain append: with no rows it would
register nothing, where Hive and the built-in make the (empty) partition. And Spark refuses
``IF NOT EXISTS`` for every catalog but its own (``INSERT_PARTITION_SPEC_IF_NOT_EXISTS``).

The analyzer rule (:mod:`hmscatalog.spark.session.hooks`) sees the clause before Spark folds it into
the query, and hands it to the write as options of the INSERT's table, which Spark passes to
the write builder as it passes ``INSERT ... WITH (...)``'s options
(:class:`~hmscatalog.spark.write.table_write.HmsWriteBuilder`):

* :data:`STATIC_PARTITION`: the clause's values as written (JSON: column → text, ``null`` for
  NULL), when an INSERT (INTO or OVERWRITE) names every partition column;
* :data:`IF_NOT_EXISTS`: the clause's ``IF NOT EXISTS``, which the statement then no longer
  carries: the write commits nothing when the partition exists (Hive's and the built-in's
  semantics).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Table
from hmscatalog.partitions.codec import make_part_name
from hmscatalog.spark.bridge.jvm import Jvm, quoted
from hmscatalog.spark.internals import plans
from hmscatalog.spark.internals.session import time_zone
from hmscatalog.spark.read.rows import internal_row, partition_strings

STATIC_PARTITION = "__hms_static_partition__"
IF_NOT_EXISTS = "__hms_if_partition_not_exists__"


def rewritten_insert(jvm: Jvm, catalog: str, table: Table, insert: Any) -> Any:
    """The ``InsertIntoStatement`` ``insert`` into ``table`` with its clause as options (see
    the module), or ``None`` when it needs none or carries them already (the analyzer's rules
    run until the plan stops changing).

    Raises (through the JVM): IF NOT EXISTS with a clause that leaves a partition column
    dynamic, naming the table and the columns.
    """
    names = table.partition_spec.names
    if_not_exists = plans.if_partition_not_exists(insert)
    if not names:
        return None
    static = {key.lower(): value for key, value in plans.static_values(jvm, insert).items()}
    wanted: dict[str, str] = {}
    if set(static) == set(names):
        wanted[STATIC_PARTITION] = json.dumps({name: static[name] for name in names})
    elif if_not_exists:  # Spark's parser refuses a dynamic column only when it is named
        missing = ", ".join(name for name in names if name not in static)
        jvm.throw(jvm.bare_error(
            f"INSERT OVERWRITE {quoted(catalog, table.database, table.name)} PARTITION (...) "
            f"IF NOT EXISTS needs a value for every partition column; it has none for: "
            f"{missing}", None))
    if if_not_exists:
        wanted[IF_NOT_EXISTS] = "true"
    given = plans.table_options(jvm, insert)
    if not wanted or (all(given.get(k) == v for k, v in wanted.items()) and not if_not_exists):
        return None
    return plans.insert_with_options(jvm, insert, wanted)


@dataclass(frozen=True)
class InsertClause:
    """What the rule handed a write: the clause's values as written, ``IF NOT EXISTS``."""

    static: dict[str, str | None] | None = None
    if_not_exists: bool = False

    @staticmethod
    def of(options: Mapping[str, str]) -> InsertClause:
        """The clause carried by a write's options (none when the rule added nothing)."""
        text = options.get(STATIC_PARTITION)
        return InsertClause(None if text is None else json.loads(text),
                            options.get(IF_NOT_EXISTS) == "true")

    def metastore_strings(self, jvm: Jvm, table: Table) -> dict[str, str]:
        """The clause's values as the metastore names the partition, cast to the columns'
        types as Spark casts the values it writes (in the session time zone); a CHAR value is
        padded to its length, as Spark pads what it writes. Empty without a clause."""
        if self.static is None:
            return {}
        spec = table.partition_spec
        zone = time_zone(jvm)
        values = [self.static[name] for name in spec.names]  # None: NULL
        row = internal_row(jvm, spec, cast(list[str], values), zone)
        strings = partition_strings(row, spec, zone)
        for column in spec.columns:
            if column.type.kind == "char" and self.static[column.name] is not None:
                strings[column.name] = strings[column.name].ljust(column.type.length or 0)
        return strings


def partition_exists(client: MetastoreClient, table: Table, static: Mapping[str, str]) -> bool:
    """Whether the partition that ``static`` (every partition column → metastore string)
    names is in the metastore."""
    names = table.partition_spec.names
    name = make_part_name(names, [static[n] for n in names])
    return bool(client.get_partitions_by_names(table.database, table.name, [name]))
