package io.hmscatalog.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;

/** The Python side's answers to statements Spark's catalog API does not pass to a catalog. */
public interface SessionHooks {
  /**
   * Checks an InsertIntoStatement's PARTITION clause against Hive's rules (throws if broken);
   * returns the statement to write instead (its clause handed to the write as options of its
   * table), or null to keep it.
   */
  LogicalPlan checkInsert(SparkSession session, LogicalPlan insert) throws Exception;

  /**
   * Checks a write by position without a PARTITION clause ({@code DataFrameWriter.insertInto}),
   * whose partition columns are all dynamic.
   */
  void checkPositionalWrite(SparkSession session, String catalog, Identifier table)
      throws Exception;

  /**
   * The plan of view {@code catalog.database.name} of an hms catalog (as Spark's own catalog
   * plans a view), or null when that is not a view stored in the metastore.
   */
  LogicalPlan expandView(SparkSession session, String catalog, String database, String name)
      throws Exception;

  /** A plan to run instead of {@code command} (MSCK, SHOW PARTITIONS), or null to keep it. */
  LogicalPlan rewrite(SparkSession session, LogicalPlan command) throws Exception;
}
