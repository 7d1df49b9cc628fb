"""Which source a read target's partitions come from: the one place that decides."""

from __future__ import annotations

from collections.abc import Mapping

from hmscatalog.errors import HmsCatalogError
from hmscatalog.sources.discovery import DiscoverySource, is_enabled
from hmscatalog.sources.metastore import MetastoreAccess, MetastoreSource
from hmscatalog.sources.projection import ProjectionSource, projection_of
from hmscatalog.sources.source import PartitionSource, ReadTarget, Unpartitioned


def source_for(target: ReadTarget, storage_options: Mapping[str, str] | None = None,
               metastore: MetastoreAccess | None = None,
               with_files: bool = False) -> PartitionSource:
    """The source of ``target``'s partitions: none when it has no partition columns; else
    projection when its properties enable it; else its location walked for ``key=value``
    directories when it is a path read or a table with ``hmscatalog.discovery.enabled``; else
    the partitions registered in ``metastore``.

    Args:
        storage_options: S3 settings, for the sources that list storage.
        with_files: the selection should name the data files of every partition (discovery and
            projection list them; a reader without Spark's file index needs them).

    Raises:
        InvalidProjection: the projection settings are wrong.
        InvalidSetting: a discovery setting is misspelt or not true/false.
        HmsCatalogError: the partitions are registered, but there is no metastore to ask.
    """
    if not target.partition_keys:
        return Unpartitioned()
    projection = projection_of(target)
    if projection is not None:
        return ProjectionSource(target, projection, storage_options, with_files)
    if target.table is None or is_enabled(target.properties, f"Table {target.qualified_name}"):
        return DiscoverySource(target, storage_options, with_files)
    if metastore is None:
        raise HmsCatalogError(f"{target.qualified_name}: no metastore to read partitions from")
    return MetastoreSource(metastore, target.table)
