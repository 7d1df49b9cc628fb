"""Spark integration: the ``hms`` catalog. The only package that imports pyspark and py4j."""

from hmscatalog.spark.attach import attach

__all__ = ["attach"]
