"""Keeping what the metastore records about existing data in step with storage: repair
(MSCK, Trino's sync_partition_metadata), and registering or unregistering one partition."""
