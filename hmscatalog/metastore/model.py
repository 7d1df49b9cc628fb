"""hmscatalog's own types for metastore objects (Thrift structs never leave the client)."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hmscatalog.errors import InvalidPartitionValue, UnsupportedFormat
from hmscatalog.partitions.codec import make_part_name
from hmscatalog.partitions.spec import PartitionColumn, PartitionSpec
from hmscatalog.partitions.types import parse_hive_type

MANAGED_TABLE = "MANAGED_TABLE"
EXTERNAL_TABLE = "EXTERNAL_TABLE"
VIRTUAL_VIEW = "VIRTUAL_VIEW"
# Where Spark keeps the statistics ANALYZE TABLE computes, in table and partition parameters.
SPARK_STATISTICS = "spark.sql.statistics."
SPARK_TOTAL_SIZE = SPARK_STATISTICS + "totalSize"
SPARK_NUM_ROWS = SPARK_STATISTICS + "numRows"
# ANALYZE TABLE ... FOR COLUMNS: spark.sql.statistics.colStats.<column>.<statistic>
SPARK_COLUMN_STATS = SPARK_STATISTICS + "colStats."


def without_spark_statistics(parameters: Mapping[str, str]) -> dict[str, str]:
    """``parameters`` without what ANALYZE TABLE stored (:data:`SPARK_STATISTICS`)."""
    return {k: v for k, v in parameters.items() if not k.startswith(SPARK_STATISTICS)}


@dataclass(frozen=True)
class StorageClasses:
    input_format: str
    output_format: str
    serde: str
    serde_parameters: Mapping[str, str] = field(default_factory=dict)


class StorageFormat(enum.Enum):
    """File formats hmscatalog creates tables in, with Hive's class names for each."""

    PARQUET = StorageClasses(
        "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
        {"serialization.format": "1"},
    )
    ORC = StorageClasses(
        "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
        "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
        "org.apache.hadoop.hive.ql.io.orc.OrcSerde",
        {"serialization.format": "1"},
    )
    TEXT = StorageClasses(
        "org.apache.hadoop.mapred.TextInputFormat",
        "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
        {"serialization.format": "1"},
    )

    @classmethod
    def parse(cls, name: str | StorageFormat) -> StorageFormat:
        """``'parquet'``, ``'orc'`` or ``'text'``/``'textfile'`` (any case)."""
        if isinstance(name, StorageFormat):
            return name
        key = name.strip().upper()
        key = "TEXT" if key == "TEXTFILE" else key
        try:
            return cls[key]
        except KeyError:
            choices = ", ".join(f.name.lower() for f in cls)
            raise UnsupportedFormat(
                f"unknown storage format {name!r}; expected one of {choices}"
            ) from None

    @classmethod
    def detect(cls, input_format: str | None, serde: str | None) -> StorageFormat | None:
        """The format whose input format or serde matches, or ``None`` for anything else."""
        key = (input_format, serde)
        if key not in _DETECTED:  # asked once per partition of a scan: remembered
            _DETECTED[key] = next((fmt for fmt in cls if input_format == fmt.value.input_format
                                   or serde == fmt.value.serde), None)
        return _DETECTED[key]


_DETECTED: dict[tuple[str | None, str | None], StorageFormat | None] = {}

# The formats Spark reads with its own Parquet and ORC readers; every other is read through
# the table's Hive SerDe.
NATIVE_FORMATS = (StorageFormat.PARQUET, StorageFormat.ORC)


@dataclass(frozen=True)
class Column:
    """A column: name, Hive type string, optional comment."""

    name: str
    type: str
    comment: str | None = None


@dataclass(frozen=True)
class Database:
    name: str
    location: str | None = None
    description: str | None = None
    parameters: Mapping[str, str] = field(default_factory=dict)
    owner: str | None = None


@dataclass(frozen=True)
class Storage:
    """Where and how an object's files are stored (a Thrift StorageDescriptor, simplified)."""

    location: str | None
    input_format: str | None
    output_format: str | None
    serde: str | None
    serde_parameters: Mapping[str, str] = field(default_factory=dict)
    # Hive bucketing (CLUSTERED BY ... SORTED BY ... INTO n BUCKETS): kept as stored, so that
    # changes made through hms leave it as it was; -1 buckets: not bucketed.
    num_buckets: int = -1
    bucket_columns: tuple[str, ...] = ()
    sort_columns: tuple[tuple[str, int], ...] = ()  # (column, 1 ascending / 0 descending)

    @property
    def bucketed(self) -> bool:
        return self.num_buckets > 0 and bool(self.bucket_columns)

    @classmethod
    def of(cls, fmt: StorageFormat, location: str | None = None) -> Storage:
        v = fmt.value
        return cls(location, v.input_format, v.output_format, v.serde, dict(v.serde_parameters))

    @property
    def format(self) -> StorageFormat | None:
        return StorageFormat.detect(self.input_format, self.serde)


@dataclass(frozen=True)
class Table:
    """A metastore table."""

    database: str
    name: str
    columns: Sequence[Column]
    partition_keys: Sequence[Column] = ()
    storage: Storage = field(default_factory=lambda: Storage.of(StorageFormat.PARQUET))
    table_type: str = MANAGED_TABLE
    parameters: Mapping[str, str] = field(default_factory=dict)
    owner: str | None = None
    create_time: int = 0
    # A view's (VIRTUAL_VIEW) query, as written and as its creator expanded it.
    view_original_text: str | None = None
    view_expanded_text: str | None = None

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.name}"

    @property
    def location(self) -> str | None:
        return self.storage.location

    @property
    def format(self) -> StorageFormat | None:
        return self.storage.format

    @property
    def is_external(self) -> bool:
        """Whether the table's files outlive it. An EXTERNAL_TABLE with
        ``external.table.purge=TRUE`` owns its files as a managed table does: Hive 4 stores every
        non-transactional managed table that way (``TRANSLATED_TO_EXTERNAL``)."""
        return (self.table_type == EXTERNAL_TABLE
                and self.parameters.get("external.table.purge", "").upper() != "TRUE")

    @property
    def acid(self) -> str | None:
        """``"full"`` or ``"insert_only"`` for Hive ACID tables (``transactional=true``), else
        ``None``. Their files are base and delta directories that only readers aware of Hive's
        transactions can read exactly."""
        params = {k.lower(): v for k, v in self.parameters.items()}
        if params.get("transactional", "").strip().lower() != "true":
            return None
        kind = params.get("transactional_properties", "").strip().lower()
        return "insert_only" if kind == "insert_only" else "full"

    @property
    def partition_spec(self) -> PartitionSpec:
        """The partition columns with their types.

        Raises:
            InvalidPartitionValue: a partition column's type is not a Hive type (naming the
                table and the column).
        """
        columns = []
        for c in self.partition_keys:
            try:
                columns.append(PartitionColumn(c.name.lower(), parse_hive_type(c.type)))
            except InvalidPartitionValue as exc:
                raise InvalidPartitionValue(f"partition column {c.name} of table "
                                            f"{self.qualified_name}: {exc}") from exc
        return PartitionSpec(tuple(columns))

    def with_parameters(self, parameters: Mapping[str, str]) -> Table:
        return replace(self, parameters=dict(parameters))

    def partition_at(self, strings: Sequence[str], location: str | None,
                     parameters: Mapping[str, str] | None = None) -> Partition:
        """A partition of this table with these stored value strings, at ``location``, in the
        table's storage format."""
        return Partition(self.database, self.name, tuple(strings),
                         replace(self.storage, location=location), dict(parameters or {}))


@dataclass(frozen=True)
class Partition:
    """A metastore partition: its value strings as stored, and its storage."""

    database: str
    table: str
    values: Sequence[str]
    storage: Storage
    parameters: Mapping[str, str] = field(default_factory=dict)
    create_time: int = 0
    # The partition's own data columns (its storage descriptor's), which stay as they were
    # when the table's columns change without CASCADE; empty: the table's.
    columns: Sequence[Column] = ()

    @property
    def location(self) -> str | None:
        return self.storage.location

    def typed_values(self, spec: PartitionSpec) -> tuple[Any, ...]:
        """Values typed by the table's partition columns (the default partition → ``None``)."""
        return spec.from_strings(self.values)

    def name(self, spec: PartitionSpec) -> str:
        """The partition's name, ``k1=v1/k2=v2``, escaped as Hive does."""
        return make_part_name(spec.names, list(self.values))


@dataclass(frozen=True)
class Event:
    """One entry of the metastore's notification log (``NotificationEvent``): a committed
    change, in order of ``id``.

    Attributes:
        type: Hive's event type (``ADD_PARTITION``, ``ALTER_TABLE``, ``DROP_DATABASE``, ...).
        database, table: what it changed, when the event names them (lower case).
        message: the listener's description; its form is named by ``message_format``.
    """

    id: int
    time: int
    type: str
    database: str | None
    table: str | None
    message: str = ""
    message_format: str | None = None
