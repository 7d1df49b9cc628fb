"""Reading partitioned files by path, without a table: what a path or glob stands for.

A path read is planned like a discovery table: the *root* is the deepest literal directory
above the first glob or ``key=value`` segment, and everything below it is walked by
:func:`~hmscatalog.sources.discovery.discover` with the pushed filters (and the glob, if any).
Before that, one branch is sampled to learn the layout: the ``key=value`` keys level by level,
the values at each sampled level (all of the first level's, those under the first directory
below), and one data file for the schema. Types come from
:func:`~hmscatalog.partitions.inference.infer_partition_types` over those sampled values, so
pass ``hive_types`` when later directories could hold values of another kind.
"""

from __future__ import annotations

import itertools
import logging
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from hmscatalog.errors import InvalidGlob, InvalidPartitionSpec, StorageError
from hmscatalog.metastore.model import Column
from hmscatalog.partitions.inference import infer_partition_types
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.projection import InjectedProjection, parse_projection
from hmscatalog.sources.discovery import is_hidden, split_directory
from hmscatalog.storage.filesystems import Entry, Storage, open_storage
from hmscatalog.storage.globs import Glob, State, compile_below, has_glob

log = logging.getLogger(__name__)

HivePartitioning = bool | Literal["auto"]


@dataclass(frozen=True)
class PathLayout:
    """What a path read will walk, and the columns it will show."""

    storage: Storage
    root: str
    glob: Glob | None
    relative: str  # the glob below root ("" for none)
    columns: list[Column]  # data columns, from one file
    partition_keys: list[Column] = field(default_factory=list)


def split_root(path: str) -> tuple[str, str]:
    """``(root, relative)``: the literal directory above the first glob or ``key=value``
    segment, and the rest of the path below it."""
    absolute = path.startswith("/")
    names = [name for name in path.split("/") if name]
    first = next((i for i, name in enumerate(names)
                  if has_glob(name) or split_directory(name) is not None), len(names))
    root = ("/" if absolute else "") + "/".join(names[:first])
    return root or "/", "/".join(names[first:])


def plan_path_read(uri: str, file_format: str = "parquet",
                   hive_partitioning: HivePartitioning = "auto",
                   hive_types: Mapping[str, str] | None = None, autocast: bool = True,
                   storage_options: Mapping[str, str] | None = None) -> PathLayout:
    """Sample the layout under ``uri`` (a path, ``file:``/``s3://`` URI, or glob).

    Raises:
        InvalidGlob: the glob is malformed.
        StorageError: nothing readable is there.
        InvalidPartitionSpec: one directory level mixes keys, or partitioning was demanded
            (``hive_partitioning=True``) but no ``key=value`` directory exists.
    """
    storage, path = open_storage(uri, storage_options)
    root, relative = split_root(path)
    glob = compile_below(root, relative) if relative else None
    keys, values, data_file = _sample(storage, root, glob, uri)
    if hive_partitioning is True and not keys:
        raise InvalidPartitionSpec(f"hive_partitioning=True but no key=value directory is "
                                   f"under {uri}")
    if hive_partitioning is False:
        keys, values = [], {}
    types = infer_partition_types(values, hive_types, autocast)
    partition_keys = [Column(key, str(types[key])) for key in keys]
    columns = []
    for column in _file_columns(storage, data_file, file_format):
        if column.name.lower() in values:
            log.warning("%s: data files hold a column %r named like a partition key; "
                        "the value in the path is used (Hive and Spark do the same)",
                        uri, column.name)
            continue
        columns.append(column)
    return PathLayout(storage, root, glob, relative, columns, partition_keys)


def _sample(storage: Storage, root: str, glob: Glob | None,
            uri: str) -> tuple[list[str], dict[str, list[str | None]], str]:
    """Keys (in order), sampled values per key, and one data file: depth first from ``root``,
    along the first branch that holds a data file the glob (if any) matches."""
    entries = storage.list(root)
    if entries is None:
        if glob is not None:
            raise InvalidGlob(f"glob {uri!r} matches nothing: no directory {storage.uri(root)}")
        raise StorageError(f"{uri}: no directory {storage.uri(root)}")
    found = _branch(storage, root, entries, glob.start() if glob else None, uri)
    if found is None:
        if glob is not None:
            raise InvalidGlob(f"glob {uri!r} matches no data file")
        raise StorageError(f"{uri}: no data file under {storage.uri(root)}")
    return found


_MAX_SAMPLED_DIRECTORIES = 100  # per level, when looking for a branch with a data file


def _branch(storage: Storage, directory: str, entries: list[Entry], state: State | None,
            uri: str) -> tuple[list[str], dict[str, list[str | None]], str] | None:
    children: list[tuple[str, str, str | None, State | None]] = []
    for entry in sorted(entries, key=lambda e: e.name):
        after = state.step(entry.name) if state is not None else None
        if state is not None and after is None:
            continue
        if not entry.is_dir:
            if not is_hidden(entry.name) and entry.size > 0 and (after is None or
                                                                 after.accepts):
                return [], {}, entry.path
            continue
        parts = split_directory(entry.name)
        if parts is not None:
            children.append((entry.path, parts[0].lower(), parts[1],
                             None if after is not None and after.accepts else after))
    if not children:
        return None
    level_keys = sorted({key for _, key, _, _ in children})
    if len(level_keys) > 1:
        raise InvalidPartitionSpec(f"{uri}: directories under {storage.uri(directory)} "
                                   f"mix partition keys {level_keys}")
    key = level_keys[0]
    for path, _, _, after in children[:_MAX_SAMPLED_DIRECTORIES]:
        found = _branch(storage, path, storage.list(path) or [], after, uri)
        if found is None:
            continue
        keys, values, data_file = found
        if key in keys:
            raise InvalidPartitionSpec(f"{uri}: partition key {key!r} appears twice on the "
                                       f"way down to {storage.uri(path)}")
        return [key, *keys], {key: [value for _, _, value, _ in children], **values}, data_file
    return None


def _file_columns(storage: Storage, path: str, file_format: str) -> list[Column]:
    """The columns of one data file, with Hive types."""
    if file_format == "parquet":
        import pyarrow.parquet as pq

        with storage.filesystem.open_input_file(path) as handle:
            schema = pq.read_schema(handle)
    elif file_format == "orc":
        import pyarrow.orc as po

        with storage.filesystem.open_input_file(path) as handle:
            schema = po.ORCFile(handle).schema
    else:
        raise StorageError(f"format {file_format!r} cannot be read by path; use parquet or orc")
    return [Column(f.name, hive_type_of(f.type)) for f in schema]


def hive_type_of(arrow_type: Any) -> str:
    """The Hive type string of an Arrow type (as Spark maps Parquet/ORC types)."""
    import pyarrow as pa
    import pyarrow.types as t

    simple = [(t.is_int8, "tinyint"), (t.is_int16, "smallint"), (t.is_int32, "int"),
              (t.is_int64, "bigint"), (t.is_float32, "float"), (t.is_float64, "double"),
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
    columns = [c for c in _file_columns(storage, data_file, file_format) if c.name.lower()
               not in names]
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
