"""Statements Spark's catalog API does not hand a catalog, answered as Spark's built-in Hive
catalog answers them: DESCRIBE and SHOW CREATE TABLE, ALTER of storage, views, ANALYZE, the
PARTITION clauses of statements, CREATE TABLE's definitions and ``CALL`` procedures. The
analyzer rule of :mod:`~hmscatalog.spark.session` dispatches to them; builds on the read and
write wings."""
