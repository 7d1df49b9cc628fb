package io.hmscatalog.spark;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.CTESubstitution$;
import org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat$;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTable$;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType$;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias$;
import org.apache.spark.sql.catalyst.plans.logical.View;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A view stored in the metastore, planned by Spark's own session catalog
 * ({@code SessionCatalog.getRelation}): the view text parsed under the view's SQL settings, a
 * {@code View} node that makes the analyzer resolve the text in the view's catalog and database,
 * and the view's columns cast to its stored schema, exactly as Spark plans its own views.
 */
public final class ViewPlans {
  // CatalogTable's leading parameters, the same in every supported Spark (more follow, with
  // defaults, and differ between releases).
  private static final int IDENTIFIER = 0;
  private static final int TABLE_TYPE = 1;
  private static final int STORAGE = 2;
  private static final int SCHEMA = 3;
  private static final int OWNER = 7;
  private static final int CREATE_TIME = 8;
  private static final int PROPERTIES = 11;
  private static final int VIEW_TEXT = 13;
  private static final int COMMENT = 14;

  private ViewPlans() {}

  /** The temporary views an analyzed plan reads (a permanent view may not name them). */
  public static String[] temporaryViews(LogicalPlan analyzed) {
    List<String> names = new ArrayList<>();
    collectTemporaryViews(analyzed, names);
    return names.toArray(new String[0]);
  }

  private static void collectTemporaryViews(LogicalPlan node, List<String> names) {
    if (node instanceof View && ((View) node).isTempView()) {
      names.add(((View) node).desc().identifier().quotedString());
    }
    for (LogicalPlan child : CollectionConverters.asJava(node.children())) {
      collectTemporaryViews(child, names);
    }
    for (LogicalPlan subquery : CollectionConverters.asJava(node.subqueries())) {
      collectTemporaryViews(subquery, names);
    }
  }

  public static LogicalPlan plan(SparkSession session, String catalog, String database,
      String name, StructType schema, String text, Map<String, String> properties, String owner,
      long createTimeMillis, String comment) throws Exception {
    CatalogTable$ companion = CatalogTable$.MODULE$;
    Method apply = null;
    for (Method m : companion.getClass().getMethods()) {
      if (m.getName().equals("apply")
          && (apply == null || m.getParameterCount() > apply.getParameterCount())) {
        apply = m;
      }
    }
    Class<?>[] types = apply.getParameterTypes();
    if (types.length <= COMMENT || types[OWNER] != String.class || types[CREATE_TIME] != long.class
        || types[VIEW_TEXT] != Option.class || types[COMMENT] != Option.class) {
      throw new IllegalStateException("hmscatalog does not know this Spark's CatalogTable: "
          + apply);
    }
    Object[] args = new Object[types.length];
    for (int i = 0; i < args.length; i++) {
      try {
        args[i] = companion.getClass().getMethod("apply$default$" + (i + 1)).invoke(companion);
      } catch (NoSuchMethodException noDefault) {
        args[i] = null;
      }
    }
    args[IDENTIFIER] = new TableIdentifier(name, Option.apply(database), Option.apply(catalog));
    args[TABLE_TYPE] = CatalogTableType$.MODULE$.VIEW();
    args[STORAGE] = CatalogStorageFormat$.MODULE$.empty();
    args[SCHEMA] = schema;
    args[OWNER] = owner == null ? "" : owner;
    args[CREATE_TIME] = createTimeMillis;
    args[PROPERTIES] = scala.collection.immutable.Map$.MODULE$.from(
        CollectionConverters.asScala(properties));
    args[VIEW_TEXT] = Option.apply(text);
    args[COMMENT] = Option.apply(comment);
    CatalogTable table = (CatalogTable) apply.invoke(companion, args);
    LogicalPlan relation = ((org.apache.spark.sql.classic.SparkSession) session).sessionState()
        .catalog().getRelation(table, CaseInsensitiveStringMap.empty());
    if (relation instanceof SubqueryAlias) {  // named as the query named it: catalog.db.view
      List<String> parts = List.of(catalog, database, name);
      relation = SubqueryAlias$.MODULE$.apply(CollectionConverters.asScala(parts).toSeq(),
          withClausesSubstituted(((SubqueryAlias) relation).child()));
    }
    return withClausesSubstituted(relation);
  }

  /**
   * A {@code View} whose text's {@code WITH} clauses are substituted, as the analyzer does
   * first to every query ({@code CTESubstitution}, before any relation is resolved): the text
   * of a view the analyzer did not make is resolved as part of the query that names it, after
   * that step, so its {@code WITH} names would otherwise be looked up as tables. The names a
   * {@code WITH} clause defines then refer to its relations wherever Spark's scoping says so
   * (a name inside its own definition is the table of that name).
   */
  private static LogicalPlan withClausesSubstituted(LogicalPlan node) {
    if (!(node instanceof View)) {
      return node;
    }
    LogicalPlan text = ((View) node).child();
    LogicalPlan substituted = CTESubstitution$.MODULE$.apply(text);
    return substituted == text ? node
        : node.withNewChildren(CollectionConverters.asScala(List.of(substituted)).toSeq());
  }
}
