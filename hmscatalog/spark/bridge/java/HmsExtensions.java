package io.hmscatalog.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;

import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * {@code spark.sql.extensions=io.hmscatalog.spark.HmsExtensions}: adds {@link HmsRule} to the
 * analyzer's hint batch, which runs before relations are resolved, so that an INSERT still
 * carries its PARTITION clause (Spark folds it into the query when it resolves the insert),
 * and {@link StandInRule} to the resolution batch.
 */
public final class HmsExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectHintResolutionRule(new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
      @Override
      public Rule<LogicalPlan> apply(SparkSession session) {
        Registry.ruled(session);
        return new HmsRule(session);
      }
    });
    extensions.injectResolutionRule(new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
      @Override
      public Rule<LogicalPlan> apply(SparkSession session) {
        return new StandInRule();
      }
    });
    return BoxedUnit.UNIT;
  }
}
