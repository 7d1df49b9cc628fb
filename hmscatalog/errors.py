"""The exceptions hmscatalog raises.

Every error derives from :class:`HmsCatalogError`, so a pipeline can catch the whole family with
one ``except``. Messages name what was wrong (database, table, column, property, path or value)
and fit on one line.
"""

from __future__ import annotations


class HmsCatalogError(Exception):
    """Root of every exception raised by hmscatalog."""


class MetastoreError(HmsCatalogError):
    """The metastore refused a request for a reason not covered by a narrower class."""


class MetastoreUnavailable(MetastoreError):
    """No metastore answered (connection refused, timed out, or every URI failed)."""


class NoSuchObject(MetastoreError):
    """A database, table or partition does not exist."""


class NoSuchNamespace(NoSuchObject):
    """The database does not exist."""


class NoSuchTable(NoSuchObject):
    """The table does not exist."""


class NoSuchPartition(NoSuchObject):
    """The partition does not exist."""


class AlreadyExists(MetastoreError):
    """A database, table or partition with that name already exists."""


class InvalidObject(MetastoreError):
    """The metastore rejected the definition of an object (bad column type, bad name...)."""


class InvalidOperation(MetastoreError):
    """The metastore rejected an operation (non-empty database without cascade...)."""


class InvalidFilter(MetastoreError):
    """A partition filter string could not be parsed or evaluated by the metastore."""


class InvalidPartitionValue(HmsCatalogError, ValueError):
    """A partition value cannot be read or written as its column's Hive type."""


class InvalidPartitionSpec(HmsCatalogError, ValueError):
    """A partition spec or path does not match the table's partition columns."""


class InvalidUri(HmsCatalogError, ValueError):
    """A metastore or database URI is malformed."""


class ServerError(HmsCatalogError):
    """The embedded metastore server could not be started, found or stopped."""


class JarsUnavailable(ServerError):
    """JVM jars could not be fetched from Maven Central (or found in the jars cache)."""


class UnsupportedFormat(HmsCatalogError, ValueError):
    """A storage format hmscatalog cannot create or read."""


class DynamicPartitionError(HmsCatalogError, ValueError):
    """A write breaks Hive's dynamic-partition rules (strict mode, order, limits); nothing was
    written."""


class StorageError(HmsCatalogError):
    """A storage location cannot be opened or listed, or holds an unexpected layout."""


class InvalidGlob(HmsCatalogError, ValueError):
    """A path pattern is malformed or matches nothing."""


class TooManyPartitions(HmsCatalogError):
    """A scan would read or list more partitions (or make more list calls) than allowed."""


class WriteFailed(HmsCatalogError):
    """A write could not be committed; the table was left as it was before the write."""


class InvalidSetting(HmsCatalogError, ValueError):
    """A table property or read option of hmscatalog's is unknown or has a value of the wrong
    kind; the message names the table (or read), the key and the value."""


class RecoveryFailed(HmsCatalogError):
    """An interrupted write into a table could not be finished or undone; the message names the
    table and what stopped it, and its record is kept for the next attempt."""


class UnsupportedSparkVersion(HmsCatalogError):
    """The running Spark is not a version hmscatalog was tested with; the message names the
    running version and the supported ones."""


class LakehouseTable(HmsCatalogError):
    """A statement would read or change an Iceberg, Delta, Hudi or Paimon table as a Hive table;
    the message names the table, its format and the setting that redirects it."""
