"""Writing into metastore tables: Hive's partition rules and the commit protocol."""
