"""Partition sources: where a table's partitions come from (metastore, storage, projection)."""
