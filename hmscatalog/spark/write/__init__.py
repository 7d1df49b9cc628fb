"""Writing hms tables: Spark's file writers planned into hmscatalog's commit, what an INSERT's
PARTITION clause carries, the per-row partition value check and the compression the built-in
catalog would choose. Builds on :mod:`~hmscatalog.spark.read` (an overwrite's read of what it
replaces) and the wings below it."""
