package io.hmscatalog.spark;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Properties;

import org.apache.hadoop.hive.serde2.Deserializer;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapred.FileSplit;
import org.apache.hadoop.mapred.InputFormat;
import org.apache.hadoop.mapred.InputSplit;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.RecordReader;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.TextInputFormat;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
import org.apache.spark.sql.catalyst.types.DataTypeUtils$;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.hive.DeserializerLock$;
import org.apache.spark.sql.hive.HadoopTableReader$;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.SerializableConfiguration;

import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The readers of a {@link HiveSerdeScan}, made on the executors: each split is opened with its
 * partition's input format, its records are deserialized by the partition's SerDe and converted
 * to the table's schema by the table's SerDe (Spark's {@code HadoopTableReader.fillObject}), and
 * the partition values fill the partition columns.
 */
final class HiveSerdeReaders implements PartitionReaderFactory {
  private final Broadcast<SerializableConfiguration> conf;
  private final StructType required;
  private final StructType partitionSchema;
  private final String tableSerde;
  private final Properties tableProperties;
  private final int skipHeader;

  HiveSerdeReaders(Broadcast<SerializableConfiguration> conf, StructType required,
          StructType partitionSchema, String tableSerde, Properties tableProperties,
          int skipHeader) {
    this.conf = conf;
    this.required = required;
    this.partitionSchema = partitionSchema;
    this.tableSerde = tableSerde;
    this.tableProperties = tableProperties;
    this.skipHeader = skipHeader;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public PartitionReader<InternalRow> createReader(InputPartition input) {
    if (input instanceof FileRead) {
      return ((FileRead) input).open();  // Spark's Parquet or ORC reader
    }
    HiveSerdeScan.Split split = (HiveSerdeScan.Split) input;
    JobConf job = new JobConf(conf.value().value());
    InputSplit inputSplit = split.split.value();
    Deserializer deserializer = deserializer(split.serde, job, overlaid(split.properties));
    Deserializer tableDeserializer = deserializer(tableSerde, job, tableProperties);
    InputFormat format = HiveSerdeScan.inputFormat(split.inputFormat, job);
    RecordReader reader;
    try {
      reader = format.getRecordReader(inputSplit, job, Reporter.NULL);
    } catch (IOException e) {
      throw new IllegalStateException("cannot open " + inputSplit + ": " + e.getMessage(), e);
    }
    Records records = new Records(reader);
    if (skipHeader > 0 && format instanceof TextInputFormat
        && inputSplit instanceof FileSplit && ((FileSplit) inputSplit).getStart() == 0) {
      for (int i = 0; i < skipHeader && records.hasNext(); i++) {
        records.next();
      }
    }
    // The row holds the required columns in order; partition values are set once.
    StructField[] fields = required.fields();
    SpecificInternalRow row = new SpecificInternalRow(required);
    List<Tuple2<Attribute, Object>> dataColumns = new ArrayList<>();
    List<AttributeReference> attributes = CollectionConverters.asJava(
        DataTypeUtils$.MODULE$.toAttributes(required));
    for (int i = 0; i < fields.length; i++) {
      int partitionIndex = partitionIndex(fields[i].name());
      if (partitionIndex >= 0) {
        if (split.values.isNullAt(partitionIndex)) {
          row.setNullAt(i);
        } else {
          row.update(i, split.values.get(partitionIndex, fields[i].dataType()));
        }
      } else {
        dataColumns.add(new Tuple2<>(attributes.get(i), i));
      }
    }
    scala.collection.Iterator<InternalRow> rows = HadoopTableReader$.MODULE$.fillObject(
        CollectionConverters.asScala((Iterator<Writable>) records),
        deserializer, CollectionConverters.asScala(dataColumns).toSeq(), row,
        tableDeserializer);
    return new PartitionReader<InternalRow>() {
      private InternalRow current;

      @Override
      public boolean next() {
        if (!rows.hasNext()) {
          return false;
        }
        current = rows.next();
        return true;
      }

      @Override
      public InternalRow get() {
        return current;
      }

      @Override
      public void close() throws IOException {
        reader.close();
      }
    };
  }

  private int partitionIndex(String name) {
    String[] names = partitionSchema.fieldNames();
    for (int i = 0; i < names.length; i++) {
      if (names[i].equalsIgnoreCase(name)) {
        return i;
      }
    }
    return -1;
  }

  /** The partition's properties over the table's; the table's Avro schema wins, as Spark's
   *  built-in reader keeps it (schema evolution of Avro tables). */
  private Properties overlaid(Properties partition) {
    Properties merged = new Properties();
    merged.putAll(tableProperties);
    for (String key : partition.stringPropertyNames()) {
      boolean avroSchema = key.equals("avro.schema.literal") || key.equals("avro.schema.url");
      if (!(avroSchema && tableProperties.containsKey(key))) {
        merged.setProperty(key, partition.getProperty(key));
      }
    }
    return merged;
  }

  private static Deserializer deserializer(String name, JobConf job, Properties properties) {
    try {
      Deserializer deserializer = (Deserializer) Class.forName(
          name, true, Thread.currentThread().getContextClassLoader())
          .getConstructor().newInstance();
      synchronized (DeserializerLock$.MODULE$) {
        deserializer.initialize(job, properties);
      }
      return deserializer;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create SerDe " + name + ": " + e, e);
    } catch (Exception e) {
      throw new IllegalArgumentException("SerDe " + name + " refused the table's "
          + "properties: " + e.getMessage(), e);
    }
  }

  /** The values of a record reader, as an iterator (each value object is reused). */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class Records implements Iterator<Writable> {
    private final RecordReader reader;
    private final Object key;
    private final Object value;
    private Boolean ready;

    Records(RecordReader reader) {
      this.reader = reader;
      this.key = reader.createKey();
      this.value = reader.createValue();
    }

    @Override
    public boolean hasNext() {
      if (ready == null) {
        try {
          ready = reader.next(key, value);
        } catch (IOException e) {
          throw new IllegalStateException("cannot read a record: " + e.getMessage(), e);
        }
      }
      return ready;
    }

    @Override
    public Writable next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      ready = null;
      return (Writable) value;
    }
  }
}
