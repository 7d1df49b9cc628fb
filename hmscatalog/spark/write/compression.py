"""How a write into an hms table compresses its files, as the built-in catalog does it.

* **Parquet and ORC** (Spark's own writers): the write option ``compression``, then
  ``parquet.compression`` / ``orc.compress``, then the session's
  ``spark.sql.parquet.compression.codec`` / ``spark.sql.orc.compression.codec``, in that order
  (``ParquetOptions``, ``OrcOptions``). The built-in hands those options the table's
  properties named like the format's (``parquet.*``, ``orc.*``), then its SerDe properties
  over them (``HiveMetastoreCatalog.convert``), then the write's options: so a table property
  wins over the session's setting.
* **Hive SerDe formats** (text, SequenceFile, RCFile, Avro...): ``hive.exec.compress.output``
  with ``mapreduce.output.fileoutputformat.compress.codec`` (a codec class) and
  ``.compress.type`` (SequenceFile's ``NONE``, ``RECORD``, ``BLOCK``), from the session's
  Hadoop settings (``SaveAsHiveFile``); see
  :func:`hmscatalog.spark.internals.write.hive_compression`.

A codec Spark does not know is refused before anything is written, naming the table, the
setting and its value (Spark's own checks fail later, inside the write, without them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hmscatalog.metastore.model import StorageFormat, Table
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.internals.session import hadoop_conf
from hmscatalog.spark.internals.write import (
    HIVE_COMPRESS,
    HIVE_COMPRESS_CODEC,
    HIVE_COMPRESS_TYPE,
    codec_class_error,
    codec_error,
    hive_compression,
)

# The option naming the codec of each format, after the ``compression`` option.
_FORMAT_KEYS = {StorageFormat.PARQUET: "parquet.compression", StorageFormat.ORC: "orc.compress"}
_FORMAT_NAMES = {StorageFormat.PARQUET: "Parquet", StorageFormat.ORC: "ORC"}
_COMPRESSION_TYPES = ("NONE", "RECORD", "BLOCK")


def _format_property(key: str, file_format: StorageFormat) -> bool:
    """Whether table property ``key`` is one the built-in hands the format's writer
    (``HiveMetastoreCatalog.isParquetProperty`` / ``isOrcProperty``)."""
    name = "orc" if file_format is StorageFormat.ORC else "parquet"
    return key.startswith(f"{name}.") or f".{name}." in key


def _sources(table: Table, file_format: StorageFormat,
             write_options: Mapping[str, str]) -> dict[str, tuple[str, str, str]]:
    """Each option by lower-case name: ``(where it was set, its name there, value)``, later
    sources over earlier ones (Spark reads options case-insensitively)."""
    merged: dict[str, tuple[str, str, str]] = {}
    for where, options in (
            ("table property", {k: v for k, v in table.parameters.items()
                                if _format_property(k, file_format)}),
            ("SerDe property", table.storage.serde_parameters),
            ("write option", write_options)):
        for key, value in options.items():
            merged[key.lower()] = (where, key, value)
    return merged


def native_options(table: Table, write_options: Mapping[str, str]) -> dict[str, str]:
    """The options a Parquet or ORC write into ``table`` hands Spark's writer: the table's
    format properties, its SerDe properties, the write's options, as the built-in merges
    them."""
    file_format = table.format
    if file_format not in _FORMAT_KEYS:
        return dict(write_options)
    return {key: value for _, key, value in _sources(table, file_format, write_options).values()}


def check_compression(jvm: Jvm, table: Table, write_options: Mapping[str, str]) -> None:
    """Refuse a write into ``table``, with options ``write_options``, whose compression names
    a codec Spark does not know (``IllegalArgumentException`` naming the table, the setting
    and its value)."""
    file_format = table.format
    if file_format in _FORMAT_KEYS:
        options = _sources(table, file_format, write_options)
        chosen = options.get("compression") or options.get(_FORMAT_KEYS[file_format])
        if chosen is None:
            return  # the session's codec, which SET has checked
        where, key, value = chosen
        error = codec_error(jvm, file_format, {key: value})
        if error is not None:
            known = re.search(r"Available codecs are ([^.]*)", error)
            jvm.illegal_argument(
                f"hms cannot write table {table.qualified_name}: its {where} {key}={value!r} "
                f"is not a {_FORMAT_NAMES[file_format]} compression codec"
                + (f" (one of {known.group(1).strip()})" if known else f": {error}"))
        return
    conf = hadoop_conf(jvm, jvm.scala_map(dict(write_options)))
    try:
        compression = hive_compression(conf, table.storage.output_format or "")
    except ValueError:
        jvm.illegal_argument(
            f"hms cannot write table {table.qualified_name}: setting {HIVE_COMPRESS}="
            f"{conf.get(HIVE_COMPRESS)!r} is not true or false")
    if compression is None:
        return
    codec, compression_type = compression
    if codec is not None and codec_class_error(jvm, codec):
        jvm.illegal_argument(
            f"hms cannot write table {table.qualified_name}: setting {HIVE_COMPRESS_CODEC}="
            f"{codec!r} (with {HIVE_COMPRESS}=true) is not a compression codec class on "
            "Spark's class path")
    if compression_type is not None and compression_type not in _COMPRESSION_TYPES:
        jvm.illegal_argument(
            f"hms cannot write table {table.qualified_name}: setting {HIVE_COMPRESS_TYPE}="
            f"{compression_type!r} (with {HIVE_COMPRESS}=true) is not one of "
            f"{', '.join(_COMPRESSION_TYPES)}")
