"""Register or unregister one partition, with Trino's ``register_partition`` and
``unregister_partition`` rules: the columns named must be the table's partition columns (in any
order); registering needs the partition's directory to exist (the table's layout by default, or
a given location) and refuses a partition that is registered already; unregistering removes
the partition from the metastore and leaves its files alone. And drop partitions by their
metastore names, their files with them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hmscatalog.errors import InvalidPartitionSpec, NoSuchPartition, StorageError
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.kinds import refuse_lakehouse
from hmscatalog.metastore.model import Partition, Table
from hmscatalog.partitions.codec import make_part_name
from hmscatalog.storage.opening import open_storage


def _strings(table: Table, columns: Sequence[str], values: Sequence[str]) -> list[str]:
    """The value strings in the table's partition-column order."""
    names = table.partition_spec.names
    given = [c.lower() for c in columns]
    if sorted(given) != sorted(names) or len(set(given)) != len(given):
        raise InvalidPartitionSpec(
            f"partition columns {list(columns)} do not match the partition columns {names} "
            f"of table {table.qualified_name}")
    if len(values) != len(columns):
        raise InvalidPartitionSpec(
            f"{len(columns)} partition columns but {len(values)} values for table "
            f"{table.qualified_name}: {list(values)}")
    by_name = dict(zip(given, values, strict=True))
    typed = table.partition_spec.values_from_mapping(by_name)  # checks each value's type
    return table.partition_spec.to_strings(typed)


def register_partition(client: MetastoreClient, table: Table, columns: Sequence[str],
                       values: Sequence[str], location: str | None = None,
                       storage_options: Mapping[str, str] | None = None) -> Partition:
    """Add one partition whose directory exists; returns it.

    Raises:
        InvalidPartitionSpec: the columns or values do not fit the table.
        StorageError: the location does not exist.
        AlreadyExists: the partition is registered.
    """
    refuse_lakehouse(table, "register a partition of")
    strings = _strings(table, columns, values)
    name = make_part_name(table.partition_spec.names, strings)
    if location is None:
        if not table.location:
            raise InvalidPartitionSpec(
                f"table {table.qualified_name} has no location: give the partition's location")
        location = table.location.rstrip("/") + "/" + name
    storage, path = open_storage(location, storage_options)
    if not storage.exists(path):
        raise StorageError(f"partition location {location} of partition {name} of table "
                           f"{table.qualified_name} does not exist")
    partition = table.partition_at(strings, location, None)
    client.add_partitions(table, [partition], create_local_dirs=False)
    return partition


def unregister_partition(client: MetastoreClient, table: Table, columns: Sequence[str],
                         values: Sequence[str]) -> str:
    """Remove one partition from the metastore, keeping its files; returns its name.

    Raises:
        NoSuchPartition: the partition is not registered.
    """
    refuse_lakehouse(table, "unregister a partition of")
    name = make_part_name(table.partition_spec.names, _strings(table, columns, values))
    if client.drop_partitions(table.database, table.name, [name], delete_data=False,
                              if_exists=True) == 0:
        raise NoSuchPartition(f"partition {name} of table {table.qualified_name} does not exist")
    return name


def drop_partitions(client: MetastoreClient, table: Table, names: Sequence[str],
                    if_exists: bool) -> None:
    """Drop the partitions of those metastore names (``dt=2024-01-05/hr=7``) in one request,
    their files with them unless the table is external (the metastore keeps an external
    table's files whatever it is asked).

    Raises:
        NoSuchPartition: unless ``if_exists``, one is not registered (naming each; none is
            dropped).
    """
    refuse_lakehouse(table, "drop partitions of")
    names = list(dict.fromkeys(names))  # the metastore drops none of a list naming one twice
    try:
        client.drop_partitions(table.database, table.name, names, delete_data=True,
                               if_exists=if_exists)
    except NoSuchPartition:  # the metastore's message names none of them
        present = set(client.list_partition_names(table.database, table.name))
        missing = [name for name in names if name not in present]
        what = (f"partition {missing[0]} of table {table.qualified_name} does not exist"
                if len(missing) == 1 else f"partitions {', '.join(missing)} of table "
                f"{table.qualified_name} do not exist")
        raise NoSuchPartition(f"{what} (none was dropped)") from None
