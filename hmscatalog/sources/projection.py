"""Partitions of a projected target: computed from its ``projection.*`` properties, no listing.

Registered partitions are ignored while projection is enabled (as in Athena). Projected
partitions whose directories do not exist are simply empty: Spark's file index skips a missing
root directory, and a source asked for files finds none there.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from hmscatalog.expressions.predicates import Predicate
from hmscatalog.projection import Projection, UnsupportedProjectionFilter, parse_projection
from hmscatalog.sources.discovery import is_hidden
from hmscatalog.sources.source import ReadTarget, SelectedPartition, Selection
from hmscatalog.storage.opening import open_storage


def projection_of(target: ReadTarget) -> Projection | None:
    """The target's projection settings, validated; ``None`` when projection is not enabled.

    Raises:
        InvalidProjection: naming the column and property that are wrong.
    """
    if not target.partition_keys and "projection.enabled" not in target.properties:
        return None
    columns = [(c.name, c.type) for c in target.partition_spec.columns]
    return parse_projection(target.properties, columns, target.location or "",
                            table=target.qualified_name)


class ProjectionSource:
    """The projected partitions a predicate does not rule out.

    With ``with_files``, each projected location is listed (not below it) and only those
    holding visible files are kept, with their files.
    """

    def __init__(self, target: ReadTarget, projection: Projection,
                 storage_options: Mapping[str, str] | None = None,
                 with_files: bool = False) -> None:
        self._target = target
        self._projection = projection
        self._storage_options = storage_options
        self._with_files = with_files

    def select(self, predicate: Predicate) -> Selection:
        """Raises:
            UnsupportedProjectionFilter: an injected column has no equality/IN filter.
            TooManyPartitions: more than the target's cap would be read (nothing is read).
        """
        projection = self._projection
        partitions = [SelectedPartition(found.values, found.location)
                      for found in projection.scan(predicate)]
        try:
            total: int | None = projection.scan(None, max_partitions=sys.maxsize).count()
        except UnsupportedProjectionFilter:
            total = None
        if not self._with_files:
            return Selection(partitions, "projection", total)
        files = self._files(partitions)
        return Selection([p for p in partitions if p.location in files], "projection", total,
                         files=files)

    def _files(self, partitions: list[SelectedPartition]) -> dict[str, list[str]]:
        """The visible files directly in each partition's location, by location; missing and
        empty locations are left out."""
        storage, _ = open_storage(self._target.location or "", self._storage_options)
        paths = [open_storage(p.location or "", self._storage_options)[1] for p in partitions]
        files = {}
        for partition, entries in zip(partitions, storage.list_many(paths), strict=True):
            found = [storage.uri(e.path) for e in entries or ()
                     if not e.is_dir and not is_hidden(e.name)]
            if found:
                files[partition.location or ""] = found
        return files
