"""TRUNCATE TABLE [PARTITION]: every row of a table, or of some of its partitions, removed and
the partitions kept, as Hive and Spark's built-in catalog do.

It is committed as an INSERT OVERWRITE of no rows (:class:`~hmscatalog.write.commit.TableCommit`):
under the table's lock, recorded in its journal, each partition switched to a new empty
directory in one metastore call, the old files kept for the queries that planned before (for
``hmscatalog.write.keep-replaced-seconds``). A killed truncate is finished or undone like a
killed write.
"""

from __future__ import annotations

from collections.abc import Sequence

from hmscatalog.errors import InvalidOperation
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Table
from hmscatalog.write.commit import CommitResult, TableCommit, new_write_id


def truncate(client: MetastoreClient, table: Table,
             partitions: Sequence[str] | None = None) -> CommitResult:
    """Remove the rows of ``table``, or of the named partitions (``k=v/...``); every partition
    when ``partitions`` is ``None``.

    Raises:
        InvalidOperation: ``table`` is external (its files are not the catalog's to remove).
    """
    if table.is_external:
        raise InvalidOperation(
            f"hms cannot truncate table {table.qualified_name}: it is an external table, whose "
            "files TRUNCATE TABLE does not remove (as in Hive and Spark)")
    if partitions is None:
        partitions = client.list_partition_names(table.database, table.name) \
            if table.partition_keys else [""]
    return TableCommit(client, table, new_write_id()).commit("overwrite", emptied=partitions)
