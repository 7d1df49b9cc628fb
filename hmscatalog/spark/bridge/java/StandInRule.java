package io.hmscatalog.spark;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;

/**
 * Refuses a plan that reads or writes a lakehouse table no catalog takes ({@link StandIn}), in
 * the analyzer's resolution batch: once the relation is resolved, before the checks that follow
 * the batch would fail on a column the metastore's placeholder schema lacks.
 */
final class StandInRule extends Rule<LogicalPlan> {
  // Row-level changes, whose target table is written.
  private static final Set<String> WRITES =
      Set.of("UpdateTable", "DeleteFromTable", "MergeIntoTable");

  StandInRule() {
    // Loaded now, while the class loader that loads this rule is open: the SQL server closes a
    // connection's loader with the connection (see HmsRule).
    StandIn.class.getName();
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    String name = plan.getClass().getSimpleName();
    String verb = plan instanceof V2WriteCommand || WRITES.contains(name) ? "write" : "read";
    Deque<LogicalPlan> pending = new ArrayDeque<>();
    pending.push(plan);
    while (!pending.isEmpty()) {
      LogicalPlan node = pending.pop();
      if (node instanceof DataSourceV2Relation
          && ((DataSourceV2Relation) node).table() instanceof StandIn) {
        throw ((StandIn) ((DataSourceV2Relation) node).table()).refusal(verb);
      }
      scala.collection.Iterator<LogicalPlan> children = node.children().iterator();
      while (children.hasNext()) {
        pending.push(children.next());
      }
    }
    return plan;
  }
}
