"""Spark integration: the ``hms`` catalog, path reads and path writes. The only package that
imports pyspark and py4j."""

try:
    import py4j  # noqa: F401
    import pyspark  # noqa: F401
except ImportError as missing:
    raise ImportError(f"hmscatalog.spark needs pyspark 4.0 to 4.3 ({missing}): "
                      "pip install 'hmscatalog[spark]'") from missing

from hmscatalog.spark.bridge.plugin import session_conf
from hmscatalog.spark.session.attach import attach
from hmscatalog.spark.session.path_read import read_partitioned
from hmscatalog.spark.session.path_write import PathWriteResult, write_partitioned

__all__ = ["PathWriteResult", "attach", "read_partitioned", "session_conf", "write_partitioned"]
