"""The row count of a Parquet file, from its footer (for partition statistics).

A Parquet file ends with its metadata (a Thrift ``FileMetaData`` struct in the compact
protocol), the metadata's length (4 bytes, little-endian) and the magic ``PAR1``. The row count
is field 3 of that struct, an i64; every other field is skipped.
"""

from __future__ import annotations

import struct
from pathlib import Path

from thrift.protocol.TCompactProtocol import TCompactProtocol
from thrift.Thrift import TType
from thrift.transport.TTransport import TMemoryBuffer

MAGIC = b"PAR1"
NUM_ROWS_FIELD = 3


def parquet_row_count(path: Path) -> int | None:
    """The number of rows in a Parquet file, or ``None`` if it is not a readable one."""
    try:
        with path.open("rb") as stream:
            stream.seek(0, 2)
            size = stream.tell()
            if size < 12:
                return None
            stream.seek(size - 8)
            tail = stream.read(8)
            if tail[4:] != MAGIC:
                return None
            (length,) = struct.unpack("<i", tail[:4])
            if not 0 < length <= size - 12:
                return None
            stream.seek(size - 8 - length)
            footer = stream.read(length)
    except OSError:
        return None
    protocol = TCompactProtocol(TMemoryBuffer(footer))
    try:
        protocol.readStructBegin()
        while True:
            _, field_type, field_id = protocol.readFieldBegin()
            if field_type == TType.STOP:
                return None
            if field_id == NUM_ROWS_FIELD and field_type == TType.I64:
                return int(protocol.readI64())
            protocol.skip(field_type)
            protocol.readFieldEnd()
    except Exception:  # a malformed footer: no statistics rather than a failed write
        return None
