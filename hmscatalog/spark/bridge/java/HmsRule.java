package io.hmscatalog.spark;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;

import scala.runtime.AbstractPartialFunction;

/**
 * Hands the Python side every INSERT of a plan (to check its PARTITION clause), writes by
 * position that come without one ({@code DataFrameWriter.insertInto}), and the
 * commands it runs itself (MSCK REPAIR TABLE, ALTER TABLE RECOVER PARTITIONS, SHOW PARTITIONS,
 * ANALYZE TABLE, DESCRIBE TABLE ... PARTITION) or completes (CREATE TABLE, ALTER TABLE ... DROP
 * PARTITION of a partial spec, which Spark's analyzer would refuse), and expands views
 * stored in an hms catalog's metastore ({@link ViewExpansion}). A CREATE ... AS SELECT's own
 * write into the table it created ({@link CreatedTable}) is not checked.
 * Commands are told apart by class name only, so this compiles against every supported Spark.
 */
final class HmsRule extends Rule<LogicalPlan> {
  private static final Set<String> COMMANDS =
      Set.of("RepairTable", "RecoverPartitions", "ShowPartitions", "AnalyzeTable",
          "AnalyzeColumn", "AnalyzeTables", "DescribeRelation", "CreateView", "AlterViewAs",
          "DropView", "ShowViews", "DropTable", "SetTableLocation",
          "SetTableSerDeProperties", "ShowCreateTable", "DropPartitions");
  // CREATE / REPLACE TABLE [AS SELECT]: the Python side may complete the table's definition
  // (ROW FORMAT DELIMITED ... NULL DEFINED AS, which Spark's parser drops); the query of an
  // AS SELECT is then handled as any other plan (views).
  private static final Set<String> CREATES =
      Set.of("CreateTable", "CreateTableAsSelect", "ReplaceTable", "ReplaceTableAsSelect");
  private final SparkSession session;
  private final ViewExpansion views;

  HmsRule(SparkSession session) {
    this.session = session;
    this.views = new ViewExpansion(session);
    // Loaded now, while the class loader that loads this rule is open: the SQL server closes
    // a connection's loader with the connection, and a class first needed by a later one
    // would no longer be found (NoClassDefFoundError).
    InsertCheck.class.getName();
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    SessionHooks hooks = Registry.hooks();
    if (hooks == null) {
      return plan;
    }
    try {
      return applyHooks(plan, hooks);
    } catch (Exception e) {
      throw HmsRule.<RuntimeException>rethrow(e);  // Spark's own errors (AnalysisException)
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> E rethrow(Exception e) throws E {
    throw (E) e;
  }

  private LogicalPlan applyHooks(LogicalPlan plan, SessionHooks hooks) throws Exception {
    if (COMMANDS.contains(plan.getClass().getSimpleName())) {
      LogicalPlan instead = hooks.rewrite(session, plan);
      return instead == null ? plan : instead;
    }
    if (CREATES.contains(plan.getClass().getSimpleName())) {
      LogicalPlan instead = hooks.rewrite(session, plan);
      plan = instead == null ? plan : instead;
    }
    if (plan instanceof V2WriteCommand && !((V2WriteCommand) plan).isByName()
        && ((V2WriteCommand) plan).table() instanceof DataSourceV2Relation) {
      DataSourceV2Relation target = (DataSourceV2Relation) ((V2WriteCommand) plan).table();
      if (target.table() instanceof CreatedTable) {
        return plan;  // a CREATE ... AS SELECT's own write into the table it created
      }
      if (target.catalog().isDefined() && target.catalog().get() instanceof HmsCatalogPlugin
          && target.identifier().isDefined()) {
        hooks.checkPositionalWrite(session, target.catalog().get().name(),
            target.identifier().get());
      }
      return plan;
    }
    return views.apply(checkInserts(plan, hooks), hooks);
  }

  /** The plan with each of its INSERTs checked, and replaced where the Python side says. */
  private LogicalPlan checkInserts(LogicalPlan plan, SessionHooks hooks) {
    if (!hasInsert(plan)) {
      return plan;
    }
    return plan.resolveOperatorsDown(new InsertCheck(session, hooks));
  }

  /** Each INSERT of a plan, handed to the Python side; replaced where it says. */
  private static final class InsertCheck
      extends AbstractPartialFunction<LogicalPlan, LogicalPlan> {
    private final SparkSession session;
    private final SessionHooks hooks;

    InsertCheck(SparkSession session, SessionHooks hooks) {
      this.session = session;
      this.hooks = hooks;
    }

    @Override
    public boolean isDefinedAt(LogicalPlan node) {
      return node.getClass().getSimpleName().equals("InsertIntoStatement");
    }

    @Override
    public <A1 extends LogicalPlan, B1> B1 applyOrElse(A1 node,
        scala.Function1<A1, B1> otherwise) {
      if (!isDefinedAt(node)) {
        return otherwise.apply(node);
      }
      try {
        LogicalPlan instead = hooks.checkInsert(session, node);
        @SuppressWarnings("unchecked")
        B1 result = (B1) (instead == null ? node : instead);
        return result;
      } catch (Exception e) {
        throw HmsRule.<RuntimeException>rethrow(e);
      }
    }
  }

  private static boolean hasInsert(LogicalPlan plan) {
    Deque<LogicalPlan> pending = new ArrayDeque<>();
    pending.push(plan);
    while (!pending.isEmpty()) {
      LogicalPlan node = pending.pop();
      if (node.getClass().getSimpleName().equals("InsertIntoStatement")) {
        return true;
      }
      scala.collection.Iterator<LogicalPlan> children = node.children().iterator();
      while (children.hasNext()) {
        pending.push(children.next());
      }
    }
    return false;
  }
}
