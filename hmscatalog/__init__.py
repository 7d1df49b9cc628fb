"""hmscatalog: a Hive Metastore as the catalog of Python and PySpark pipelines."""
