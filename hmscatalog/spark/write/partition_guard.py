"""A per-row expression that Spark's file writer evaluates before it opens a partition's file.

Spark's ``FileFormatDataWriter`` computes a "bucket id" for every row, from an expression we
give it, before it creates the row's partition directory. hmscatalog uses that hook for string
partition columns (the only ones whose values can be empty, hold NUL or be long):

* **'' and NULL.** Hive (and Spark's built-in catalog, which turns ``''`` into NULL before
  writing) puts both in ``__HIVE_DEFAULT_PARTITION__``. The writer starts a new file whenever
  the partition *values* change, numbering files per value from 0, so a task that sees NULL and
  ``''`` rows would open two files of the same name in one directory and fail with
  FileAlreadyExistsException. The bucket id sets one bit per string partition column holding
  ``''``, which gives those files their own names (``..._00001.c000...``); rows still go to the
  same directory, and reads see NULL for both, as in Hive.
* **Values no directory can be named after.** A value holding U+0000, or whose escaped
  ``key=value`` name is over :data:`~hmscatalog.partitions.codec.MAX_NAME_BYTES`, raises an error
  naming the table, column and value (``[HMS_INVALID_PARTITION_VALUE] ...``) instead of
  "Mkdirs failed" with no word of the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hmscatalog.metastore.model import Table
from hmscatalog.partitions.codec import ESCAPED_CHARACTERS, MAX_NAME_BYTES
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.spark.bridge.jvm import BARE_MESSAGE_CONDITION, Jvm
from hmscatalog.spark.internals.catalyst import Expressions, writer_bucket_spec

# A regular-expression class of the characters Hive's path escaping turns into %XX.
_ESCAPED_CLASS = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in sorted(ESCAPED_CHARACTERS)) + "]"


def partition_guard(jvm: Jvm, owner: str, columns: Sequence[tuple[str, bool, Any]],
                    refuse_null: bool = False) -> Any:
    """``Some(WriterBucketSpec)`` when a partition column needs checking, else ``None``.

    Args:
        owner: what is written, for messages (``table db.t``, ``write to /path``).
        columns: ``(name, is a string, attribute)`` of each partition column, in directory
            order.
        refuse_null: NULL in any partition column raises an error naming the column, instead
            of going to ``__HIVE_DEFAULT_PARTITION__``.
    """
    checked = [(name, is_string, attr) for name, is_string, attr in columns
               if is_string or refuse_null]
    if not checked:
        return jvm.none()
    make = Expressions(jvm)
    bucket_id = make.literal(0)
    for bit, (name, is_string, attr) in enumerate(checked):
        value = make.literal(0)
        if is_string:
            marked = make.if_(make.equal_to(attr, make.literal("")),
                              make.literal(1 << bit), make.literal(0))
            value = make.if_(_nameable(make, name, attr), marked,
                             _refusal(make, owner, name, attr))
        if refuse_null:
            value = make.if_(make.is_null(attr), _null_refusal(make, owner, name), value)
        bucket_id = make.bitwise_or(bucket_id, value)
    return writer_bucket_spec(jvm, bucket_id)


def table_partition_guard(jvm: Jvm, table: Table, partition_columns: list[Any]) -> Any:
    """:func:`partition_guard` of a table's write (``partition_columns`` in
    ``table.partition_keys`` order)."""
    return partition_guard(jvm, f"table {table.qualified_name}", [
        (column.name, parse_hive_type(column.type).is_string, attr)
        for column, attr in zip(table.partition_keys, partition_columns, strict=True)])


def _nameable(make: Expressions, name: str, attr: Any) -> Any:
    """True where ``attr`` can name a directory: NULL, or no NUL and a short enough name.
    The escaped length is computed (by a regular expression) only for values long enough to
    need it: escaping at most triples a value's bytes."""
    room = MAX_NAME_BYTES - len(name.encode("utf-8")) - 1  # "name=" before the value
    octets = make.octet_length(attr)
    escaped = make.regexp_replace(attr, make.literal(_ESCAPED_CLASS), make.literal("%00"))
    short = make.or_(
        make.less_than_or_equal(octets, make.literal(room // 3)),
        make.less_than_or_equal(make.octet_length(escaped), make.literal(room)))
    no_nul = make.not_(make.contains(attr, make.literal("\0")))
    return make.or_(make.is_null(attr), make.and_(no_nul, short))


def _raise(make: Expressions, message: Any) -> Any:
    parameters = make.string_map([make.literal("message"), message])
    return make.raise_int_error(make.literal(BARE_MESSAGE_CONDITION), parameters)


def _refusal(make: Expressions, owner: str, name: str, attr: Any) -> Any:
    """An expression that raises ``[HMS_INVALID_PARTITION_VALUE]`` naming ``attr``'s value."""
    shown = make.substring(
        make.string_replace(attr, make.literal("\0"), make.literal("\\x00")),
        make.literal(1), make.literal(60))
    where = f"' of column {name} of {owner} "
    reason = make.if_(
        make.contains(attr, make.literal("\0")),
        make.literal("contains U+0000 (NUL), which a partition directory name cannot hold"),
        make.literal(f"makes a directory name over the {MAX_NAME_BYTES} bytes file systems "
                     "allow"))
    return _raise(make, make.concat([
        make.literal("[HMS_INVALID_PARTITION_VALUE] partition value '"), shown,
        make.literal(where), reason]))


def _null_refusal(make: Expressions, owner: str, name: str) -> Any:
    """An expression that raises ``[HMS_NULL_PARTITION_VALUE]`` naming the column."""
    return _raise(make, make.literal(
        f"[HMS_NULL_PARTITION_VALUE] partition column {name} of {owner} is NULL in a row, "
        "and null_partition='error' refuses NULL partition values"))
