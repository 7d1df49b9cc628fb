package io.hmscatalog.spark;

import java.io.IOException;
import java.io.Serializable;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * An input partition of one of Spark's file scans within a {@link HiveSerdeScan} (a Parquet or
 * ORC partition of a table of another format), read by that file scan's reader factory as rows,
 * never as columnar batches; its columns are put in the HiveSerdeScan's order where the file
 * scan's differs (a file scan reads the data columns first, then the partition columns).
 */
final class FileRead implements InputPartition, Serializable {
  final InputPartition inner;
  final PartitionReaderFactory factory;
  final int[] order;  // null: the file scan's columns are this scan's
  final StructType schema;  // the file scan's

  FileRead(InputPartition inner, PartitionReaderFactory factory, int[] order,
           StructType schema) {
    this.inner = inner;
    this.factory = factory;
    this.order = order;
    this.schema = schema;
  }

  /** For each column of {@code required}, its position in {@code read}; null if the same. */
  static int[] order(StructType required, StructType read) {
    String[] names = read.fieldNames();
    StructField[] fields = required.fields();
    if (fields.length != names.length) {
      throw new IllegalStateException("a file scan reads " + read.catalogString()
          + ", not the columns " + required.catalogString());
    }
    int[] order = new int[fields.length];
    boolean same = true;
    for (int i = 0; i < fields.length; i++) {
      order[i] = -1;
      for (int j = 0; j < names.length; j++) {
        if (names[j].equalsIgnoreCase(fields[i].name())) {
          order[i] = j;
          break;
        }
      }
      if (order[i] < 0) {
        throw new IllegalStateException("a file scan reads " + read.catalogString()
            + ", without the column " + fields[i].name());
      }
      same &= order[i] == i;
    }
    return same ? null : order;
  }

  PartitionReader<InternalRow> open() {
    PartitionReader<InternalRow> reader = factory.createReader(inner);
    if (order == null) {
      return reader;
    }
    StructField[] fields = schema.fields();
    return new PartitionReader<InternalRow>() {
      @Override
      public boolean next() throws IOException {
        return reader.next();
      }

      @Override
      public InternalRow get() {
        InternalRow row = reader.get();
        Object[] values = new Object[order.length];
        for (int i = 0; i < order.length; i++) {
          int at = order[i];
          values[i] = row.isNullAt(at) ? null : row.get(at, fields[at].dataType());
        }
        return new GenericInternalRow(values);
      }

      @Override
      public void close() throws IOException {
        reader.close();
      }
    };
  }

  @Override
  public String[] preferredLocations() {
    return inner.preferredLocations();
  }
}
