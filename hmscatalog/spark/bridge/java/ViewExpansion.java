package io.hmscatalog.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.UnresolvedWith;
import org.apache.spark.sql.catalyst.plans.logical.View;
import org.apache.spark.sql.connector.catalog.CatalogManager;

import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractPartialFunction;

/**
 * Replaces each not yet resolved relation that names a view stored in an hms catalog's
 * metastore by the view's plan, which the Python side builds as Spark builds its own views'
 * (a {@code View} over the parsed view text, in the view's catalog and database). Names are
 * read as Spark's analyzer reads them: in a view's text relative to that view's catalog and
 * database, elsewhere relative to the session's current ones; temporary views and the names a
 * {@code WITH} clause defines are left alone. Subqueries in expressions are searched too.
 *
 * <p>The analyzer resolves a {@code View} node's text in the view's catalog and database only
 * when it made the node itself, so the names in the text of a view expanded here are qualified
 * here, as the analyzer would qualify them.
 */
final class ViewExpansion {
  private static final int REMEMBERED = 4096;
  private static final int MAX_DEPTH = 100;
  // Names the Python side said are not hms views, for a moment: the analyzer runs this rule
  // more than once for one statement. A table replaced by a view meanwhile is refused by name
  // (loadTable), never read as something else.
  private static final long NOT_A_VIEW_FOR_NANOS = 1_000_000_000L;
  private final Map<List<String>, Long> notViews = new HashMap<>();
  private long viewsSeen = Registry.viewsChanged();
  private final SparkSession session;
  private final org.apache.spark.sql.classic.SparkSession classic;

  ViewExpansion(SparkSession session) {
    this.session = session;
    this.classic = (org.apache.spark.sql.classic.SparkSession) session;
  }

  LogicalPlan apply(LogicalPlan plan, SessionHooks hooks) throws Exception {
    synchronized (notViews) {
      long changed = Registry.viewsChanged();
      if (notViews.size() > REMEMBERED || changed != viewsSeen) {
        notViews.clear();
        viewsSeen = changed;
      }
    }
    return expand(plan, null, withNames(plan), hooks, 0);
  }

  private static Set<String> withNames(LogicalPlan plan) {
    Set<String> names = new HashSet<>();
    collectWithNames(plan, names);
    return names;
  }

  private static void collectWithNames(LogicalPlan node, Set<String> names) {
    if (node instanceof UnresolvedWith) {
      // (name, plan) pairs, or triples in later Spark releases: the name comes first.
      for (Object cte : CollectionConverters.asJava(((UnresolvedWith) node).cteRelations())) {
        names.add(lower((String) ((scala.Product) cte).productElement(0)));
      }
    }
    for (LogicalPlan child : CollectionConverters.asJava(node.children())) {
      collectWithNames(child, names);
    }
  }

  /**
   * {@code node} with hms views expanded. {@code context}: the catalog and database of the view
   * whose text this is, null outside views; {@code depth}: how many views enclose it.
   */
  private LogicalPlan expand(LogicalPlan node, List<String> context, Set<String> withNames,
      SessionHooks hooks, int depth) throws Exception {
    if (node instanceof UnresolvedRelation) {
      return relation((UnresolvedRelation) node, context, withNames, hooks, depth);
    }
    List<String> innerContext = context;
    Set<String> innerNames = withNames;
    int innerDepth = depth;
    if (node instanceof View) {
      List<String> declared =
          CollectionConverters.asJava(((View) node).desc().viewCatalogAndNamespace());
      if (!declared.isEmpty()) {
        innerContext = declared;
        innerNames = withNames(((View) node).child());
        innerDepth = depth + 1;
      }
    }
    final List<String> c = innerContext;
    final Set<String> n = innerNames;
    final int d = innerDepth;
    LogicalPlan withChildren = (LogicalPlan) node.mapChildren(
        new AbstractFunction1<LogicalPlan, LogicalPlan>() {
          @Override
          public LogicalPlan apply(LogicalPlan child) {
            return unchecked(() -> expand(child, c, n, hooks, d));
          }
        });
    return (LogicalPlan) withChildren.transformExpressionsDown(
        new AbstractPartialFunction<Expression, Expression>() {
          @Override
          public boolean isDefinedAt(Expression e) {
            return e instanceof SubqueryExpression;
          }

          @Override
          public Expression apply(Expression e) {
            SubqueryExpression subquery = (SubqueryExpression) e;
            LogicalPlan expanded = unchecked(() -> expand(subquery.plan(), c, n, hooks, d));
            return expanded == subquery.plan() ? e : subquery.withNewPlan(expanded);
          }
        });
  }

  /**
   * The plan of the hms view {@code relation} names, expanded in turn; else the relation, its
   * name qualified with the enclosing view's catalog and database when it is in a view's text
   * (the analyzer resolves the text of views that hms expands in the session's context).
   */
  private LogicalPlan relation(UnresolvedRelation relation, List<String> context,
      Set<String> withNames, SessionHooks hooks, int depth) throws Exception {
    List<String> name = fullName(CollectionConverters.asJava(relation.multipartIdentifier()),
        context, withNames);
    if (name == null) {
      return relation;
    }
    if (name.size() == 3 && Registry.generation(name.get(0)) > 0 && !knownNotView(name)) {
      LogicalPlan view = hooks.expandView(session, name.get(0), name.get(1), name.get(2));
      if (view != null) {
        if (depth >= MAX_DEPTH) {
          throw new IllegalStateException("view " + String.join(".", name) + " is nested in "
              + MAX_DEPTH + " views: a view that names itself?");
        }
        return expand(view, context, withNames, hooks, depth);
      }
      synchronized (notViews) {
        notViews.put(name, System.nanoTime() + NOT_A_VIEW_FOR_NANOS);
      }
    }
    return context == null ? relation
        : relation.copy(CollectionConverters.asScala(name).toList(), relation.options(),
            relation.isStreaming());
  }

  private boolean knownNotView(List<String> name) {
    synchronized (notViews) {
      Long until = notViews.get(name);
      return until != null && until - System.nanoTime() > 0;
    }
  }

  /**
   * The whole name of a relation, as the analyzer reads {@code parts} in a view's text
   * ({@code context}) or in the session's current catalog and namespace; null for temporary
   * views and WITH names.
   */
  private List<String> fullName(List<String> parts, List<String> context,
      Set<String> withNames) {
    CatalogManager catalogs = classic.sessionState().catalogManager();
    if (parts.size() == 1 && withNames.contains(lower(parts.get(0)))) {
      return null;
    }
    if (context == null && parts.size() <= 2
        && classic.sessionState().catalog().isTempView(relationName(parts))) {
      return null;  // a temporary view, or global_temp.name
    }
    List<String> where = context;
    if (where == null) {
      where = new ArrayList<>();
      where.add(catalogs.currentCatalog().name());
      where.addAll(Arrays.asList(catalogs.currentNamespace()));
    }
    List<String> full = new ArrayList<>();
    if (parts.size() == 1) {
      full.addAll(where);
    } else if (!catalogs.isCatalogRegistered(parts.get(0))) {
      full.add(where.get(0));
    }
    full.addAll(parts);
    return full;
  }

  private static String lower(String text) {
    return text.toLowerCase(java.util.Locale.ROOT);
  }

  private static scala.collection.immutable.Seq<String> relationName(List<String> parts) {
    return CollectionConverters.asScala(parts).toSeq();
  }

  private interface Step<T> {
    T run() throws Exception;
  }

  private static <T> T unchecked(Step<T> step) {
    try {
      return step.run();
    } catch (Exception e) {
      throw ViewExpansion.<RuntimeException>rethrow(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> E rethrow(Exception e) throws E {
    throw (E) e;
  }
}
