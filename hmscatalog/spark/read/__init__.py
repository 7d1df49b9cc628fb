"""Reading hms tables and partitioned paths: Spark's pushed filters as predicates, the
partitions a scan selects, their values as Spark rows, size estimates, file listings kept
between queries, SerDe tables' reads and the pyarrow source for storage Spark cannot open.
Builds on :mod:`~hmscatalog.spark.bridge` and :mod:`~hmscatalog.spark.internals`."""
