"""Keeping a table's partitions in the metastore in step with its storage: repair (MSCK,
Trino's sync_partition_metadata), and registering or unregistering one partition."""
