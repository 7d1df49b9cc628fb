"""Maintenance of tables: work that changes what the metastore records about existing data
(repairing partitions), as opposed to reading or writing the data itself."""
