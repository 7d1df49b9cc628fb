package io.hmscatalog.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/** Makes the catalog object (Python, over py4j) that serves one session under one name. */
public interface CatalogFactory {
  TableCatalog create(String name, SparkSession session);
}
