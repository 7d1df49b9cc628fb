"""Spark integration: the ``hms`` catalog and path reads. The only package that imports pyspark
and py4j."""

from hmscatalog.spark.attach import attach
from hmscatalog.spark.paths import read_partitioned
from hmscatalog.spark.plugin import session_conf

__all__ = ["attach", "read_partitioned", "session_conf"]
