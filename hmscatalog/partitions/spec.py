"""A table's partition spec: ordered partition columns with Hive types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hmscatalog.errors import InvalidPartitionSpec
from hmscatalog.partitions.codec import (
    DEFAULT_PARTITION_NAME,
    make_part_name,
    parse_part_name,
)
from hmscatalog.partitions.types import HiveType, format_value, parse_hive_type, parse_value


@dataclass(frozen=True)
class PartitionColumn:
    """One partition column: lower-case name and Hive type."""

    name: str
    type: HiveType

    @classmethod
    def of(cls, name: str, type_text: str) -> PartitionColumn:
        return cls(name.lower(), parse_hive_type(type_text))


@dataclass(frozen=True)
class PartitionSpec:
    """The ordered partition columns of a table.

    Typed values (``None`` for NULL) convert to the strings the metastore stores, to partition
    names (``dt=2024-01-05/hr=7``) and back.
    """

    columns: tuple[PartitionColumn, ...]

    @classmethod
    def of(cls, *columns: tuple[str, str]) -> PartitionSpec:
        """Build a spec from ``(name, hive type)`` pairs."""
        return cls(tuple(PartitionColumn.of(name, type_text) for name, type_text in columns))

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def __len__(self) -> int:
        return len(self.columns)

    def column(self, name: str) -> PartitionColumn:
        """The partition column called ``name`` (case-insensitive)."""
        lowered = name.lower()
        for col in self.columns:
            if col.name == lowered:
                return col
        raise InvalidPartitionSpec(f"{name!r} is not a partition column (columns: {self.names})")

    def _check_arity(self, values: Sequence[Any]) -> None:
        if len(values) != len(self.columns):
            raise InvalidPartitionSpec(
                f"expected {len(self.columns)} partition values for {self.names}, "
                f"got {len(values)}: {list(values)!r}"
            )

    def to_strings(self, values: Sequence[Any]) -> list[str]:
        """Typed values to the strings the metastore stores (NULL → the default partition)."""
        self._check_arity(values)
        out = []
        for col, value in zip(self.columns, values, strict=True):
            text = format_value(value, col.type)
            out.append(DEFAULT_PARTITION_NAME if text is None or text == "" else text)
        return out

    def from_strings(self, strings: Sequence[str]) -> tuple[Any, ...]:
        """Metastore value strings to typed values (the default partition → ``None``)."""
        self._check_arity(strings)
        return tuple(
            None if text == DEFAULT_PARTITION_NAME else parse_value(text, col.type)
            for col, text in zip(self.columns, strings, strict=True)
        )

    def name_of(self, values: Sequence[Any]) -> str:
        """The partition name, which is also its path under the table location."""
        return make_part_name(self.names, self.to_strings(values))

    def values_of(self, name_or_path: str) -> tuple[Any, ...]:
        """Parse a partition name or relative path back to typed values.

        Raises:
            InvalidPartitionSpec: if keys are missing, extra, or out of order.
        """
        pairs = parse_part_name(name_or_path)
        keys = [k.lower() for k, _ in pairs]
        if keys != self.names:
            raise InvalidPartitionSpec(
                f"partition path {name_or_path!r} has keys {keys}, expected {self.names}"
            )
        return self.from_strings([v for _, v in pairs])

    def values_from_mapping(self, mapping: Mapping[str, Any]) -> tuple[Any, ...]:
        """Order a ``{column: value}`` mapping by the spec; every column must be present."""
        lowered = {k.lower(): v for k, v in mapping.items()}
        unknown = sorted(set(lowered) - set(self.names))
        missing = [n for n in self.names if n not in lowered]
        if unknown or missing:
            raise InvalidPartitionSpec(
                f"partition spec {dict(mapping)!r} does not match columns {self.names}"
                + (f"; unknown: {unknown}" if unknown else "")
                + (f"; missing: {missing}" if missing else "")
            )
        return tuple(lowered[n] for n in self.names)
