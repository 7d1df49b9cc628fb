package io.hmscatalog.spark;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.FileInputFormat;
import org.apache.hadoop.mapred.InputFormat;
import org.apache.hadoop.mapred.InputSplit;
import org.apache.hadoop.mapred.InvalidInputException;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobConfigurable;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.spark.SerializableWritable;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
import org.apache.spark.sql.catalyst.util.CharVarcharUtils$;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;

import scala.Option;

/**
 * A scan of a table stored with a Hive SerDe (text, CSV, JSON, Avro, SequenceFile, RCFile...),
 * read as Hive and Spark's built-in Hive catalog read it: each partition's files are split by the
 * partition's own input format and deserialized by the partition's own SerDe, initialized with
 * the table's properties overlaid by the partition's, then converted to the table's schema
 * (Spark's {@code HadoopTableReader.fillObject}).
 *
 * <p>Python describes the partitions in one JSON document:
 * <pre>
 * {"table": "db.t", "timeZone": "UTC", "skipHeader": 0, "recursive": false,
 *  "tableSerde": "...", "tableProperties": {...}, "partitionTypes": ["date", ...],
 *  "sizeInBytes": 123 or null, "numRows": 45 or null,
 *  "partitions": [{"location": "...", "inputFormat": "...", "serde": "...",
 *                  "properties": {...}, "values": ["2024-01-01", ...]}]}
 * </pre>
 * A partition value of {@code null} is SQL NULL; the others are cast to their column's type as
 * the built-in catalog casts them.
 *
 * <p>Partitions stored as Parquet or ORC (a table whose format changed with Hive's ALTER TABLE
 * ... SET FILEFORMAT) are not read through their SerDe but by Spark's own file scans of them
 * ({@code fileScans}, built by Python over those partitions with this scan's schema), as hms
 * reads Parquet and ORC tables: Hive's ParquetHiveSerDe cannot read every file Spark writes
 * (a DECIMAL stored as INT32 or INT64). Their input partitions join this scan's, each with its
 * scan's reader factory ({@link FileRead}).
 */
public final class HiveSerdeScan implements Scan, Batch, SupportsReportStatistics {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RECURSIVE = "mapreduce.input.fileinputformat.input.dir.recursive";

  private final SparkSession session;
  private final StructType required;
  private final StructType partitionSchema;
  private final JsonNode spec;
  private final Scan[] fileScans;
  private InputPartition[] planned;

  public HiveSerdeScan(SparkSession session, StructType required, StructType dataSchema,
                       StructType partitionSchema, String spec, Scan[] fileScans)
      throws IOException {
    this.session = session;
    this.required = whole(required, dataSchema);
    this.partitionSchema = partitionSchema;
    this.spec = JSON.readTree(spec);
    this.fileScans = fileScans;
  }

  /**
   * {@code required} with each data column's whole type from {@code dataSchema}. A SerDe hands
   * back whole structs (in arrays and maps too), not the fields Spark's nested schema pruning
   * asks for; reporting the whole types makes Spark take the fields it needs by name.
   */
  public static StructType whole(StructType required, StructType dataSchema) {
    StructType columns = CharVarcharUtils$.MODULE$.replaceCharVarcharWithStringInSchema(
        dataSchema);
    StructField[] fields = required.fields().clone();
    for (int i = 0; i < fields.length; i++) {
      for (StructField column : columns.fields()) {
        if (column.name().equalsIgnoreCase(fields[i].name())) {
          fields[i] = new StructField(fields[i].name(), column.dataType(), fields[i].nullable(),
                                      fields[i].metadata());
          break;
        }
      }
    }
    return new StructType(fields);
  }

  /** The first of {@code names} (comma-separated class names) that cannot be loaded, or null. */
  public static String missingClass(String names) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    for (String name : names.split(",")) {
      if (name.isEmpty()) {
        continue;
      }
      try {
        Class.forName(name, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        return name;
      }
    }
    return null;
  }

  @Override
  public StructType readSchema() {
    return required;
  }

  @Override
  public String description() {
    Set<String> serdes = new LinkedHashSet<>();
    for (JsonNode part : spec.get("partitions")) {
      String serde = part.get("serde").asText();
      serdes.add(serde.substring(serde.lastIndexOf('.') + 1));
    }
    for (Scan scan : fileScans) {
      serdes.add(scan.getClass().getSimpleName());
    }
    return "HiveSerdeScan " + String.join(", ", serdes) + " " + required.catalogString();
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public ColumnarSupportMode columnarSupportMode() {
    return ColumnarSupportMode.UNSUPPORTED;
  }

  @Override
  public Statistics estimateStatistics() {
    JsonNode size = spec.get("sizeInBytes");
    JsonNode rows = spec.get("numRows");
    long defaultSize = session.sessionState().conf().defaultSizeInBytes();
    return new Statistics() {
      @Override
      public java.util.OptionalLong sizeInBytes() {
        return java.util.OptionalLong.of(size == null || size.isNull() ? defaultSize
                                         : size.asLong());
      }

      @Override
      public java.util.OptionalLong numRows() {
        return rows == null || rows.isNull() ? java.util.OptionalLong.empty()
                                             : java.util.OptionalLong.of(rows.asLong());
      }
    };
  }

  @Override
  public InputPartition[] planInputPartitions() {
    if (planned == null) {
      planned = plan();
    }
    return planned;
  }

  private InputPartition[] plan() {
    Configuration conf = session.sessionState().newHadoopConf();
    int minSplits = session.sparkContext().isLocal() ? 0 : session.sparkContext()
        .defaultMinPartitions();
    String zone = spec.get("timeZone").asText();
    List<InputPartition> splits = new ArrayList<>();
    for (JsonNode part : spec.get("partitions")) {
      String location = part.get("location").asText();
      String inputFormat = part.get("inputFormat").asText();
      JobConf job = new JobConf(conf);
      job.setBoolean(RECURSIVE, spec.get("recursive").asBoolean());
      FileInputFormat.setInputPaths(job, new Path(location));
      InputSplit[] found;
      try {
        Path path = new Path(location);
        if (!path.getFileSystem(job).exists(path)) {
          continue;  // a partition without a directory has no rows, as in Hive
        }
        found = inputFormat(inputFormat, job).getSplits(job, minSplits);
      } catch (InvalidInputException e) {
        continue;
      } catch (IOException e) {
        String message = String.valueOf(e.getMessage());
        if (message.startsWith("Not a file: ")) {
          throw new UnsupportedOperationException("hms cannot read table "
              + spec.get("table").asText()
              + ": " + location + " holds the directory " + message.substring(12)
              + "; set TBLPROPERTIES ('hmscatalog.read.recursive-directories'='true') to read"
              + " the files below it (Hive on Tez writes UNION ALL output there)", e);
        }
        throw new IllegalArgumentException("hms cannot list " + location + " of table "
            + spec.get("table").asText() + ": " + message, e);
      }
      InternalRow values = partitionValues(part.get("values"), zone);
      Properties properties = properties(part.get("properties"));
      for (InputSplit split : found) {
        splits.add(new Split(new SerializableWritable<>(split), inputFormat,
                             part.get("serde").asText(), properties, values));
      }
    }
    for (Scan scan : fileScans) {
      Batch batch = scan.toBatch();
      PartitionReaderFactory factory = batch.createReaderFactory();
      int[] order = FileRead.order(required, scan.readSchema());
      for (InputPartition inner : batch.planInputPartitions()) {
        splits.add(new FileRead(inner, factory, order, scan.readSchema()));
      }
    }
    return splits.toArray(new InputPartition[0]);
  }

  private InternalRow partitionValues(JsonNode values, String zone) {
    StructField[] fields = partitionSchema.fields();
    SpecificInternalRow row = new SpecificInternalRow(partitionSchema);
    for (int i = 0; i < fields.length; i++) {
      JsonNode value = values.get(i);
      if (value.isNull()) {
        row.setNullAt(i);
        continue;
      }
      Literal text = Literal.create(UTF8String.fromString(value.asText()), DataTypes.StringType);
      Object typed = new Cast(text, fields[i].dataType(), Option.apply(zone),
                              EvalMode$.MODULE$.LEGACY()).eval(null);
      row.update(i, typed);
    }
    return row;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    Configuration conf = session.sessionState().newHadoopConf();
    Broadcast<SerializableConfiguration> broadcast = JavaSparkContext
        .fromSparkContext(session.sparkContext()).broadcast(new SerializableConfiguration(conf));
    return new HiveSerdeReaders(broadcast, required, partitionSchema, spec.get("tableSerde").asText(),
                       properties(spec.get("tableProperties")), spec.get("skipHeader").asInt());
  }

  static Properties properties(JsonNode node) {
    Properties properties = new Properties();
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      properties.setProperty(field.getKey(), field.getValue().asText());
    }
    return properties;
  }

  @SuppressWarnings("rawtypes")
  static InputFormat inputFormat(String name, JobConf job) {
    Class<?> cls;
    try {
      cls = Class.forName(name, true, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("input format " + name + " is not on the class path", e);
    }
    if (!InputFormat.class.isAssignableFrom(cls)) {
      throw new IllegalStateException("input format " + name
          + " is not an org.apache.hadoop.mapred.InputFormat");
    }
    InputFormat format = (InputFormat) ReflectionUtils.newInstance(cls, job);
    if (format instanceof JobConfigurable) {
      ((JobConfigurable) format).configure(job);
    }
    return format;
  }

  /** One input split of one partition, with what its reader needs. */
  static final class Split implements InputPartition, Serializable {
    final SerializableWritable<InputSplit> split;
    final String inputFormat;
    final String serde;
    final Properties properties;
    final InternalRow values;

    Split(SerializableWritable<InputSplit> split, String inputFormat, String serde,
          Properties properties, InternalRow values) {
      this.split = split;
      this.inputFormat = inputFormat;
      this.serde = serde;
      this.properties = properties;
      this.values = values;
    }

    @Override
    public String[] preferredLocations() {
      try {
        return split.value().getLocations();
      } catch (IOException e) {
        return new String[0];
      }
    }
  }
}
