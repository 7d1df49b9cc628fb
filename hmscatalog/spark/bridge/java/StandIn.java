package io.hmscatalog.spark;

/**
 * What an hms catalog hands Spark for a lakehouse table (Iceberg, Delta, Hudi, Paimon) that no
 * catalog is configured to take: its description, and no data. A plan that reads or writes it
 * is refused by {@link HmsRule} as soon as the relation is resolved, before Spark resolves the
 * plan's columns against the metastore's (for Delta tables, a placeholder), so the first line is
 * the refusal naming the table, its format and the setting that would redirect it.
 */
public interface StandIn {
  /** The error refusing to {@code verb} ("read", "write") the table. */
  RuntimeException refusal(String verb);
}
