"""The top wing: what starts from a user's SparkSession. :func:`~.attach.attach` makes the
catalog, :mod:`.hooks` is the analyzer rule's Python side in every session, :mod:`.serve` the
SQL servers, :mod:`.path_read` and :mod:`.path_write` the path reads and writes without a
table, and :mod:`.driver` what they share of the session's JVM. Nothing below imports it."""
