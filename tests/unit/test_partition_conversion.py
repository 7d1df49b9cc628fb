"""Many partitions converted at once share what they have in common, and convert exactly as one
partition alone does."""

from __future__ import annotations

from hmscatalog.metastore._thrift.hive_metastore import ttypes as t
from hmscatalog.metastore.convert import partition_from_thrift, partitions_from_thrift

PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"


def _part(k: int) -> t.Partition:
    sd = t.StorageDescriptor(
        cols=[t.FieldSchema("v", "double", None)], location=f"file:/w/t/k={k}",
        inputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        numBuckets=-1, serdeInfo=t.SerDeInfo(None, PARQUET_SERDE, {"serialization.format": "1"}),
        bucketCols=[], sortCols=[])
    return t.Partition(values=[str(k)], dbName="db", tableName="t", createTime=k, sd=sd,
                       parameters={"numRows": str(k), "transient_lastDdlTime": "1"})


def _varied() -> list[t.Partition]:
    parts = [_part(k) for k in range(12)]
    parts[1].sd.serdeInfo.parameters = {"field.delim": ","}
    parts[2].sd.cols = [t.FieldSchema("v", "double", None), t.FieldSchema("w", "int", "new")]
    parts[3].sd = None
    parts[4].parameters = None
    parts[5].sd.bucketCols, parts[5].sd.numBuckets = ["v"], 4
    parts[6].sd.sortCols = [t.Order("v", 0)]
    parts[7].sd.serdeInfo = None
    parts[8].sd.cols = None
    parts[9].sd.inputFormat = "org.apache.hadoop.mapred.TextInputFormat"
    parts[10].values = None
    return parts


def test_each_partition_converts_as_it_does_alone() -> None:
    parts = _varied()
    assert partitions_from_thrift(parts) == [partition_from_thrift(p) for p in parts]


def test_what_partitions_have_in_common_is_shared() -> None:
    first, second, other = partitions_from_thrift([_part(1), _part(2), _varied()[2]])
    assert first.columns is second.columns and first.columns is not other.columns
    assert first.storage.serde_parameters is second.storage.serde_parameters
    assert (first.location, second.location) == ("file:/w/t/k=1", "file:/w/t/k=2")
    assert first.parameters == {"numRows": "1", "transient_lastDdlTime": "1"}
    assert second.parameters["numRows"] == "2"
