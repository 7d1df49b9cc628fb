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
  ``key=value`` name is over :data:`~hmscatalog.write.rules.MAX_NAME_BYTES`, raises an error
  naming the table, column and value (``[HMS_INVALID_PARTITION_VALUE] ...``) instead of
  "Mkdirs failed" with no word of the value.
"""

from __future__ import annotations

from typing import Any

from hmscatalog.metastore.model import Table
from hmscatalog.partitions.codec import ESCAPED_CHARACTERS
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.spark.internals.catalyst import Expressions, writer_bucket_spec
from hmscatalog.spark.jvm import BARE_MESSAGE_CONDITION, Jvm
from hmscatalog.write.rules import MAX_NAME_BYTES

# A regular-expression class of the characters Hive's path escaping turns into %XX.
_ESCAPED_CLASS = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in sorted(ESCAPED_CHARACTERS)) + "]"


def partition_guard(jvm: Jvm, table: Table, partition_columns: list[Any]) -> Any:
    """``Some(WriterBucketSpec)`` for a table with string partition columns, else ``None``.

    Args:
        partition_columns: the write's partition attributes, in ``table.partition_keys`` order.
    """
    strings = [(column.name, attr)
               for column, attr in zip(table.partition_keys, partition_columns, strict=True)
               if parse_hive_type(column.type).is_string]
    if not strings:
        return jvm.none()
    make = Expressions(jvm)
    bucket_id = make.literal(0)
    for bit, (name, attr) in enumerate(strings):
        marked = make.if_(make.equal_to(attr, make.literal("")),
                          make.literal(1 << bit), make.literal(0))
        checked = make.if_(_nameable(make, name, attr), marked,
                           _refusal(make, table.qualified_name, name, attr))
        bucket_id = make.bitwise_or(bucket_id, checked)
    return writer_bucket_spec(jvm, bucket_id)


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


def _refusal(make: Expressions, table: str, name: str, attr: Any) -> Any:
    """An expression that raises ``[HMS_INVALID_PARTITION_VALUE]`` naming ``attr``'s value."""
    shown = make.substring(
        make.string_replace(attr, make.literal("\0"), make.literal("\\x00")),
        make.literal(1), make.literal(60))
    where = f"' of column {name} of table {table} "
    reason = make.if_(
        make.contains(attr, make.literal("\0")),
        make.literal("contains U+0000 (NUL), which a partition directory name cannot hold"),
        make.literal(f"makes a directory name over the {MAX_NAME_BYTES} bytes file systems "
                     "allow"))
    message = make.concat([
        make.literal("[HMS_INVALID_PARTITION_VALUE] partition value '"), shown,
        make.literal(where), reason])
    parameters = make.string_map([make.literal("message"), message])
    return make.raise_int_error(make.literal(BARE_MESSAGE_CONDITION), parameters)
