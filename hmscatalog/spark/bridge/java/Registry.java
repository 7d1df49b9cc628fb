package io.hmscatalog.spark;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/** What the Python side of hmscatalog registers in the driver, for the plugin and the rule. */
public final class Registry {
  private static final Map<String, CatalogFactory> FACTORIES = new ConcurrentHashMap<>();
  private static final Map<String, Integer> GENERATIONS = new ConcurrentHashMap<>();
  private static volatile SessionHooks hooks;
  private static final AtomicLong VIEWS = new AtomicLong();
  private static final Set<Object> EXTENDED = Collections.newSetFromMap(new WeakHashMap<>());
  private static final Set<Object> RULED = Collections.newSetFromMap(new WeakHashMap<>());

  private Registry() {}

  /** Serves catalog {@code name} from {@code factory}; sessions that had it switch over. */
  public static synchronized void register(String name, CatalogFactory factory) {
    FACTORIES.put(name, factory);
    GENERATIONS.merge(name, 1, Integer::sum);
  }

  static int generation(String name) {
    return GENERATIONS.getOrDefault(name, 0);
  }

  /** Counts the views hms made or replaced in this driver (the rule forgets what it knew). */
  public static long viewMade() {
    return VIEWS.incrementAndGet();
  }

  static long viewsChanged() {
    return VIEWS.get();
  }

  public static void setHooks(SessionHooks value) {
    hooks = value;
  }

  static SessionHooks hooks() {
    return hooks;
  }

  static TableCatalog catalogFor(String name, SparkSession session) {
    CatalogFactory factory = FACTORIES.get(name);
    if (factory == null) {
      // IllegalArgumentException: PySpark raises it as its own, its message the first line.
      throw new IllegalArgumentException("[HMS_NOT_ATTACHED] catalog " + name + " is served by "
          + "hmscatalog's Python code, which this Spark driver has not started: call "
          + "hmscatalog.spark.session.attach(spark, name=\"" + name + "\") first");
    }
    return factory.create(name, session);
  }

  /** Adds hmscatalog's analyzer rule to {@code extensions} once; true if it was added now. */
  public static synchronized boolean extend(Object extensions) {
    if (!EXTENDED.add(extensions)) {
      return false;
    }
    new HmsExtensions().apply((org.apache.spark.sql.SparkSessionExtensions) extensions);
    return true;
  }

  static synchronized void ruled(SparkSession session) {
    RULED.add(session);
  }

  /** Whether {@code session}'s analyzer was built with hmscatalog's rule. */
  public static synchronized boolean covers(Object session) {
    return RULED.contains(session);
  }
}
