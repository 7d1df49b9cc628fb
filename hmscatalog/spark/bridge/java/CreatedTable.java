package io.hmscatalog.spark;

/**
 * The table an hms catalog's {@code createTable} returns. Spark writes a CREATE or REPLACE
 * TABLE ... AS SELECT (and {@code writeTo(...).create()}, {@code saveAsTable}) into exactly that
 * object, by position; a write into it fills a table that did not exist, which Hive's strict
 * dynamic-partition mode does not restrict (it guards the partitions of existing tables).
 */
public interface CreatedTable {}
