package io.hmscatalog.spark;

import java.io.IOException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.hadoop.hive.serde2.AbstractSerDe;
import org.apache.hadoop.hive.serde2.Deserializer;
import org.apache.hadoop.hive.serde2.objectinspector.ObjectInspector;
import org.apache.hadoop.hive.serde2.objectinspector.StructField;
import org.apache.hadoop.hive.serde2.objectinspector.StructObjectInspector;
import org.apache.hadoop.mapred.JobConf;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.hive.DeserializerLock$;

/**
 * The columns a table's SerDe reads it with, for the SerDes whose schema is their own rather
 * than the metastore's (Avro's from its schema literal or URL, OpenCSV's all strings...): the
 * fields of the deserializer's object inspector, each with its type name and comment, or
 * {@code "from deserializer"} (Hive's {@code MetaStoreUtils.getFieldsFromDeserializer}, which
 * Hive's and Spark's {@code Table.getCols} use for such tables).
 *
 * <p>{@link #of} answers in one JSON document: {@code {"columns": [{"name": ..., "type": ...,
 * "comment": ...}, ...]}}, or {@code {"error": "..."}} when the SerDe refused the table's
 * properties, or {@code {"missing": true}} when the SerDe is not on the class path.
 */
public final class SerdeColumns {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FROM_DESERIALIZER = "from deserializer";

  private SerdeColumns() {
  }

  public static String of(SparkSession session, String serde, String properties)
      throws IOException {
    ObjectNode answer = JSON.createObjectNode();
    Deserializer deserializer;
    try {
      deserializer = (Deserializer) Class.forName(
          serde, true, Thread.currentThread().getContextClassLoader())
          .getConstructor().newInstance();
    } catch (ClassNotFoundException | LinkageError e) {
      return answer.put("missing", true).toString();
    } catch (ReflectiveOperationException | ClassCastException e) {
      return answer.put("error", "cannot create SerDe " + serde + ": " + e).toString();
    }
    ObjectInspector inspector;
    try {
      JobConf job = new JobConf(session.sessionState().newHadoopConf());
      synchronized (DeserializerLock$.MODULE$) {
        deserializer.initialize(job, HiveSerdeScan.properties(JSON.readTree(properties)));
      }
      String errors = deserializer instanceof AbstractSerDe
          ? ((AbstractSerDe) deserializer).getConfigurationErrors() : null;
      if (errors != null && !errors.isEmpty()) {
        return answer.put("error", errors).toString();
      }
      inspector = deserializer.getObjectInspector();
    } catch (Exception e) {
      return answer.put("error", String.valueOf(e.getMessage())).toString();
    }
    if (!(inspector instanceof StructObjectInspector)) {
      return answer.put("error", "its rows are " + inspector.getTypeName() + ", not structs")
          .toString();
    }
    ArrayNode columns = answer.putArray("columns");
    for (StructField field : ((StructObjectInspector) inspector).getAllStructFieldRefs()) {
      String comment = field.getFieldComment();
      columns.addObject()
          .put("name", field.getFieldName())
          .put("type", field.getFieldObjectInspector().getTypeName())
          .put("comment", comment == null ? FROM_DESERIALIZER : comment);
    }
    return answer.toString();
  }
}
