"""Reading partitioned files by path, without a table: what a path or glob stands for.

A path read is planned like a discovery table over a *base* directory: ``key=value`` directories
directly below the base become partition columns, and everything below the base is walked by
:func:`~hmscatalog.sources.discovery.discover` with the pushed filters (and the glob, if any).
The base follows Spark's ``basePath``: ``base_path`` when given, else the path itself, so that
``.../dt=2024-01-05`` reads like ``spark.read.parquet`` of it (no ``dt`` column; pass the
table's root as ``base_path`` to keep it). For a glob the base is the literal directory above
its first glob segment: Spark would make every match a base of its own and so drop every column
the glob walks through, which would leave ``dt=*/hr=*`` without ``dt`` and ``hr``.

Before the walk, one branch is sampled to learn the layout: the ``key=value`` keys level by
level and one data file for the schema. Types come from
:func:`~hmscatalog.partitions.inference.infer_partition_types` over the values of every
``key=value`` directory of those levels (that the glob selects), as Spark infers them over its
whole listing: the directories above the last level are listed once each. Where that would take
more list calls than ``hmscatalog.discovery.max-list-calls`` (a tree only filtered queries can
read), the values sampled along the way decide instead (all of the first level's, those under the
first directory below). Either way a directory read later whose value is not of its key's type
(one made after planning, or one the sample missed) fails the read, naming the directory
(:func:`partition_values`), never drops its rows; ``hive_types`` fixes the types up front.
"""

from __future__ import annotations

import itertools
import logging
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from hmscatalog.config import DISCOVERY_MAX_LIST_CALLS
from hmscatalog.errors import InvalidGlob, InvalidPartitionSpec, InvalidPartitionValue, StorageError
from hmscatalog.metastore.kinds import directory_kind, directory_refusal
from hmscatalog.metastore.model import Column, StorageFormat
from hmscatalog.partitions.inference import Inference, directory_value, infer_partition_types
from hmscatalog.partitions.types import HiveType, parse_hive_type
from hmscatalog.projection import InjectedProjection, parse_projection
from hmscatalog.sources.discovery import DiscoveryLimits, is_hidden, split_directory
from hmscatalog.sources.source import ReadTarget
from hmscatalog.storage.filesystems import Storage
from hmscatalog.storage.globs import (
    Glob,
    State,
    compile_below,
    has_glob,
    selects_file,
    step_into,
)
from hmscatalog.storage.opening import open_storage

log = logging.getLogger(__name__)

HivePartitioning = bool | Literal["auto"]


@dataclass(frozen=True)
class PathLayout:
    """What a path read will walk, and the columns it will show."""

    storage: Storage
    root: str  # the base directory
    glob: Glob | None
    relative: str  # the path or glob below root ("" for none)
    columns: list[Column]  # data columns, from one file
    partition_keys: list[Column] = field(default_factory=list)

    def target(self, qualified_name: str, where: str, file_format: StorageFormat,
               properties: Mapping[str, str], values_from_paths: bool) -> ReadTarget:
        """The read as a scan sees it (see :class:`ReadTarget` for the arguments): no metastore
        table, so its partitions are discovered below the base, or projected."""
        return ReadTarget(qualified_name, where, tuple(self.columns), tuple(self.partition_keys),
                          self.storage.uri(self.root), file_format, dict(properties),
                          values_from_paths=values_from_paths)


def split_root(path: str) -> tuple[str, str]:
    """``(base, relative)`` of a path without ``base_path``: the literal directories above the
    first glob segment, and the rest; a path without a glob is its own base."""
    absolute = path.startswith("/")
    names = [name for name in path.split("/") if name]
    first = next((i for i, name in enumerate(names) if has_glob(name)), len(names))
    root = ("/" if absolute else "") + "/".join(names[:first])
    return root or "/", "/".join(names[first:])


def _below_base(storage: Storage, path: str, uri: str, base_path: str,
                storage_options: Mapping[str, str] | None) -> tuple[str, str]:
    """``(base, relative)`` for an explicit ``base_path``, which must be a literal directory at
    or above ``path`` on the same storage."""
    base_storage, base = open_storage(base_path, storage_options)
    base = base.rstrip("/") or "/"
    if has_glob(base):
        raise InvalidGlob(f"read of {uri}: base_path {base_path} must not be a glob")
    inside = base_storage.scheme == storage.scheme and (
        path == base or path.startswith(base.rstrip("/") + "/"))
    if not inside:
        raise InvalidPartitionSpec(f"read of {uri}: {storage.uri(path)} is not below base_path "
                                   f"{base_storage.uri(base)}")
    return base, path[len(base):].strip("/")


def plan_path_read(uri: str, file_format: str = "parquet",
                   hive_partitioning: HivePartitioning = "auto",
                   hive_types: Mapping[str, str] | None = None, autocast: bool = True,
                   storage_options: Mapping[str, str] | None = None,
                   base_path: str | None = None,
                   inference: Inference = "spark") -> PathLayout:
    """Sample the layout under ``uri`` (a path, ``file:``/``s3://`` URI, or glob).

    Raises:
        InvalidGlob: the glob is malformed.
        StorageError: nothing readable is there.
        InvalidPartitionSpec: one directory level mixes keys, ``key=value`` directories sit
            below a plain one, ``uri`` is not below ``base_path``, or partitioning was demanded
            (``hive_partitioning=True``) but no ``key=value`` directory exists.
    """
    storage, path = open_storage(uri, storage_options)
    if base_path is not None:
        root, relative = _below_base(storage, path, uri, base_path, storage_options)
    else:
        root, relative = split_root(path)
        if not relative and storage.list(root) is None and storage.exists(root):
            root, _, relative = root.rpartition("/")  # a file: its directory is the base
            root = root or "/"
    _refuse_lakehouse_directory(storage, root, uri)
    glob = compile_below(root, relative) if relative else None
    found = _sample(storage, root, glob, uri, hive_partitioning is not False)
    if hive_partitioning is True and not found.keys:
        raise InvalidPartitionSpec(f"hive_partitioning=True but no key=value directory is "
                                   f"under {uri}")
    budget = DiscoveryLimits.from_properties(storage_options or {}, f"read of {uri}")
    every = _every_value(storage, root, glob, found.keys, budget.max_list_calls)
    if every is None:
        log.warning("read of %s: partition types are inferred from sampled directories, since "
                    "listing every directory would take more than %d list calls (%s); a "
                    "directory whose value is of another type fails the query that reads it: "
                    "pass hive_types to avoid that", uri, budget.max_list_calls,
                    DISCOVERY_MAX_LIST_CALLS)
    types = infer_partition_types(every or found.values, hive_types, autocast, inference)
    partition_keys = [Column(key, str(types[key])) for key in found.keys]
    columns = _file_columns(storage, found.data_file, file_format, set(found.keys), uri)
    return PathLayout(storage, root, glob, relative, columns, partition_keys)


def _refuse_lakehouse_directory(storage: Storage, root: str, uri: str) -> None:
    """Refuse to read the directory of an Iceberg, Delta, Hudi or Paimon table as files: it
    holds files the table's own metadata has removed.

    Raises:
        LakehouseTable: naming the read, the directory and the format.
    """
    def names(path: str) -> set[str]:
        return {entry.name for entry in storage.list(path) or ()}

    found = directory_kind(names(root), lambda below: names(f"{root.rstrip('/')}/{below}"))
    if found is not None:
        raise directory_refusal(f"read of {uri}", storage.uri(root), found)


def _every_value(storage: Storage, root: str, glob: Glob | None, keys: list[str],
                 budget: int) -> dict[str, list[str]] | None:
    """The raw values of every ``key=value`` directory of ``keys``' levels below ``root``
    (those the glob enters), listing every directory above the last level once; ``None``
    when that takes more than ``budget`` list calls (known before the level that would pass
    it is listed)."""
    values: dict[str, list[str]] = {key: [] for key in keys}
    level: list[tuple[str, State | None]] = [(root, glob.start() if glob else None)]
    calls = 0
    for key in keys:
        calls += len(level)
        if calls > budget:
            return None
        below = []
        listings = storage.list_many([path for path, _ in level])
        for (_, state), entries in zip(level, listings, strict=True):
            for entry in entries or ():
                parts = split_directory(entry.name) if entry.is_dir else None
                enters, inside = step_into(state, entry.name)
                if parts is not None and parts[0].lower() == key and enters:
                    values[key].append(entry.name.partition("=")[2])
                    below.append((entry.path, inside))
        level = below
    return values


@dataclass(frozen=True)
class _Sample:
    """Partition keys in order, raw values seen per key, and one data file."""

    keys: list[str]
    values: dict[str, list[str]]
    data_file: str


def _sample(storage: Storage, root: str, glob: Glob | None, uri: str,
            partitioned: bool) -> _Sample:
    """Depth first from ``root``, along the first branch that holds a data file the glob (if
    any) selects; ``key=value`` levels are looked for only when ``partitioned``."""
    if storage.list(root) is None:
        if glob is not None:
            raise InvalidGlob(f"glob {uri!r} matches nothing: no directory {storage.uri(root)}")
        raise StorageError(f"{uri}: no directory {storage.uri(root)}")
    found = _branch(storage, root, glob.start() if glob else None, uri, partitioned)
    if found is None:
        if glob is not None:
            raise InvalidGlob(f"glob {uri!r} matches no data file")
        raise StorageError(f"{uri}: no data file under {storage.uri(root)}")
    return found


_MAX_SAMPLED_DIRECTORIES = 100  # per level, when looking for a branch with a data file
_Child = tuple[str, str, State | None]  # path, name, glob state inside


def _branch(storage: Storage, directory: str, state: State | None, uri: str,
            partitioned: bool) -> _Sample | None:
    """The sample below ``directory``: a data file directly in it if there is one, else the
    ``key=value`` subdirectories as one more level, else what a plain subdirectory holds."""
    partitions: list[_Child] = []
    plain: list[_Child] = []
    for entry in sorted(storage.list(directory) or (), key=lambda e: e.name):
        if not entry.is_dir:
            if entry.size > 0 and selects_file(state, entry.name):
                return _Sample([], {}, entry.path)
            continue
        enters, inside = step_into(state, entry.name)
        if not enters:
            continue
        kind = partitions if partitioned and split_directory(entry.name) else plain
        kind.append((entry.path, entry.name, inside))
    if partitions:
        return _partition_level(storage, directory, partitions, uri)
    for path, _, inside in plain[:_MAX_SAMPLED_DIRECTORIES]:
        found = _branch(storage, path, inside, uri, partitioned)
        if found is None:
            continue
        if found.keys:
            raise InvalidPartitionSpec(
                f"{uri}: key=value directories ({found.keys[0]}=...) are below the plain "
                f"directory {storage.uri(path)}; partition directories must come first below "
                "the base: read that directory (or pass it as base_path), or read with "
                "hive_partitioning=False")
        return found
    return None


def _partition_level(storage: Storage, directory: str, children: list[_Child],
                     uri: str) -> _Sample | None:
    """One ``key=value`` level: its key and every value in it, then the first child's branch
    that holds a data file."""
    keys = sorted({_key_of(name) for _, name, _ in children})
    if len(keys) > 1:
        raise InvalidPartitionSpec(f"{uri}: directories under {storage.uri(directory)} "
                                   f"mix partition keys {keys}")
    key = keys[0]
    for path, _, inside in children[:_MAX_SAMPLED_DIRECTORIES]:
        found = _branch(storage, path, inside, uri, True)
        if found is None:
            continue
        if key in found.keys:
            raise InvalidPartitionSpec(f"{uri}: partition key {key!r} appears twice on the "
                                       f"way down to {storage.uri(path)}")
        values = [name.partition("=")[2] for _, name, _ in children]
        return _Sample([key, *found.keys], {key: values, **found.values}, found.data_file)
    return None


def _key_of(name: str) -> str:
    parts = split_directory(name)
    assert parts is not None  # only key=value names are partition children
    return parts[0].lower()


def partition_values(root: str, directory: str, columns: Sequence[tuple[str, HiveType]],
                     where: str) -> list[Any]:
    """The typed values of the partition a directory below ``root`` belongs to: the raw values
    of its first ``len(columns)`` levels, each read as its column's type as Spark reads it
    (:func:`~hmscatalog.partitions.inference.directory_value`). ``root`` and ``directory`` are
    both storage paths or both URIs.

    Raises:
        InvalidPartitionValue: a value is not of its column's type (types of path reads are
            inferred from sampled directories), naming the directory, key, value and type.
        InvalidPartitionSpec: a ``key=value`` directory lies deeper than the partition columns
            (Spark would take it for one more column).
    """
    names = directory[len(root):].strip("/").split("/")
    deeper = [name for name in names[len(columns):] if split_directory(name)]
    if deeper:
        raise InvalidPartitionSpec(
            f"{where}: directory {directory}: {deeper[0]} is a key=value directory below the "
            f"partition columns {[key for key, _ in columns]}, which were sampled elsewhere")
    values = []
    for name, (key, hive_type) in zip(names[:len(columns)], columns, strict=True):
        try:
            values.append(directory_value(name.partition("=")[2], hive_type))
        except InvalidPartitionValue as error:
            raise InvalidPartitionValue(
                f"{where}: directory {directory}: partition key {key!r}: {error} (the type was "
                f"inferred from other directories; pass hive_types={{{key!r}: 'string'}} or "
                "another type that all values have)") from None
    return values


def _file_columns(storage: Storage, path: str, file_format: str, partition_keys: set[str],
                  uri: str) -> list[Column]:
    """The columns of one data file, with Hive types. A column named like a partition key is
    left out before its type is looked at: the value in the path replaces it (as in Hive and
    Spark), so a type hmscatalog cannot map does not matter there."""
    if file_format == "parquet":
        import pyarrow.parquet as pq

        with storage.open_input(path) as handle:
            schema = pq.read_schema(handle)
    elif file_format == "orc":
        import pyarrow.orc as po

        with storage.open_input(path) as handle:
            schema = po.ORCFile(handle).schema
    else:
        raise StorageError(f"format {file_format!r} cannot be read by path; use parquet or orc")
    columns = []
    for arrow_field in schema:
        if arrow_field.name.lower() in partition_keys:
            log.warning("%s: data files hold a column %r named like a partition key; "
                        "the value in the path is used (Hive and Spark do the same)",
                        uri, arrow_field.name)
            continue
        columns.append(Column(arrow_field.name, hive_type_of(arrow_field.type)))
    return columns


def hive_type_of(arrow_type: Any) -> str:
    """The Hive type string of an Arrow type (as Spark maps Parquet/ORC types)."""
    import pyarrow as pa
    import pyarrow.types as t

    # Unsigned integers as Spark reads them from Parquet: each in the next wider signed type,
    # 64 bits as DECIMAL(20,0).
    simple = [(t.is_int8, "tinyint"), (t.is_int16, "smallint"), (t.is_int32, "int"),
              (t.is_int64, "bigint"), (t.is_uint8, "smallint"), (t.is_uint16, "int"),
              (t.is_uint32, "bigint"), (t.is_uint64, "decimal(20,0)"),
              (t.is_float32, "float"), (t.is_float64, "double"),
              (t.is_boolean, "boolean"), (t.is_string, "string"), (t.is_large_string, "string"),
              (t.is_binary, "binary"), (t.is_large_binary, "binary"), (t.is_date32, "date"),
              (t.is_timestamp, "timestamp")]
    for test, name in simple:
        if test(arrow_type):
            return name
    if t.is_decimal(arrow_type):
        return f"decimal({arrow_type.precision},{arrow_type.scale})"
    if t.is_list(arrow_type) or t.is_large_list(arrow_type):
        return f"array<{hive_type_of(arrow_type.value_type)}>"
    if t.is_map(arrow_type):
        return f"map<{hive_type_of(arrow_type.key_type)},{hive_type_of(arrow_type.item_type)}>"
    if t.is_struct(arrow_type):
        fields = ",".join(f"{f.name}:{hive_type_of(f.type)}" for f in arrow_type)
        return f"struct<{fields}>"
    if isinstance(arrow_type, pa.DataType) and t.is_dictionary(arrow_type):
        return hive_type_of(arrow_type.value_type)
    raise StorageError(f"data files hold a column of type {arrow_type}, which hmscatalog "
                       "cannot map to a Spark type")


_PROJECTION_KEY = re.compile(r"projection\.([^.]+)\.")
_PROJECTED_TYPES = {"integer": "bigint"}  # others (enum, date, injected): string
_SAMPLED_LOCATIONS = 100


def plan_projected_read(uri: str, projection: Mapping[str, str], file_format: str = "parquet",
                        hive_types: Mapping[str, str] | None = None,
                        storage_options: Mapping[str, str] | None = None,
                        ) -> tuple[PathLayout, dict[str, str]]:
    """A path read whose partitions are projected: the layout, and the table properties that
    enable the projection.

    Partition columns are the projected ones, in the order the settings name them, typed by
    ``hive_types`` or else BIGINT for ``integer`` and STRING for the other projection types.
    The data columns come from the first data file found in the first projected locations.

    Raises:
        InvalidProjection: the settings are wrong (naming column and property).
        StorageError: no data file in the first projected locations.
    """
    storage, root = open_storage(uri, storage_options)
    properties = {"projection.enabled": "true", **projection}
    names: list[str] = []
    for key in projection:
        match = _PROJECTION_KEY.match(key)
        if match and match.group(1).lower() not in names:
            names.append(match.group(1).lower())
    explicit = {k.lower(): v for k, v in (hive_types or {}).items()}
    keys = [Column(name, explicit.get(name) or _PROJECTED_TYPES.get(
        projection.get(f"projection.{name}.type", "").lower(), "string")) for name in names]
    parsed = parse_projection(properties, [(c.name, parse_hive_type(c.type)) for c in keys],
                              storage.uri(root), table=f"read of {uri}")
    assert parsed is not None  # enabled above
    data_file = _first_data_file(storage, root)
    if data_file is None and not any(isinstance(c, InjectedProjection) for c in parsed.columns):
        for found in itertools.islice(parsed.scan(None, max_partitions=sys.maxsize),
                                      _SAMPLED_LOCATIONS):
            _, path = open_storage(found.location, storage_options)
            data_file = _first_data_file(storage, path, depth=0)
            if data_file is not None:
                break
    if data_file is None:
        raise StorageError(f"read of {uri}: no data file under it or in the first "
                           f"{_SAMPLED_LOCATIONS} projected locations, so no schema to read")
    columns = _file_columns(storage, data_file, file_format, set(names), uri)
    return PathLayout(storage, root, None, "", columns, keys), properties


def _first_data_file(storage: Storage, directory: str, depth: int = 8) -> str | None:
    """A visible, non-empty file at most ``depth`` levels below ``directory`` (depth first, in
    name order), to read a schema from."""
    entries = sorted(storage.list(directory) or (), key=lambda e: e.name)
    for entry in entries:
        if not entry.is_dir and not is_hidden(entry.name) and entry.size > 0:
            return entry.path
    if depth > 0:
        for entry in entries:
            if entry.is_dir and not is_hidden(entry.name):
                found = _first_data_file(storage, entry.path, depth - 1)
                if found is not None:
                    return found
    return None
