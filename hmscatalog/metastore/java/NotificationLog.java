package io.hmscatalog.metastore;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import javax.jdo.PersistenceManager;
import javax.jdo.Query;
import javax.jdo.datastore.JDOConnection;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.MetaStoreEventListener;
import org.apache.hadoop.hive.metastore.RawStore;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NotificationEvent;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.events.AddPartitionEvent;
import org.apache.hadoop.hive.metastore.events.AlterPartitionEvent;
import org.apache.hadoop.hive.metastore.events.AlterTableEvent;
import org.apache.hadoop.hive.metastore.events.CreateDatabaseEvent;
import org.apache.hadoop.hive.metastore.events.CreateTableEvent;
import org.apache.hadoop.hive.metastore.events.DropDatabaseEvent;
import org.apache.hadoop.hive.metastore.events.DropPartitionEvent;
import org.apache.hadoop.hive.metastore.events.DropTableEvent;
import org.apache.hadoop.hive.metastore.events.InsertEvent;
import org.apache.hadoop.hive.metastore.events.ListenerEvent;
import org.apache.hadoop.hive.metastore.model.MNotificationNextId;

/**
 * Records every change of databases, tables and partitions in the metastore's notification log
 * (the NOTIFICATION_LOG table that {@code get_next_notification} reads), inside the change's
 * own transaction: configured as {@code hive.metastore.transactional.event.listeners}, an event
 * is in the log exactly when its change is committed, with consecutive ids.
 *
 * <p>The embedded metastore runs it on every release it supports: Hive's own listener
 * ({@code DbNotificationListener}) is not among the jars those releases publish with the
 * metastore. Each event carries the event type, database and table Hive's listener gives them
 * ({@code ADD_PARTITION}, {@code ALTER_TABLE}, ...); its message is a small JSON object of its
 * own ({@code messageFormat} {@value #FORMAT}) naming the database, the table, a renamed
 * table's new name and the partitions' values, not Hive's replication messages.
 *
 * <p>Before it takes an id, it locks the id sequence's row until its change commits (see
 * {@link #lockSequence}): concurrent changes then take consecutive ids in the order they
 * commit, on every release.
 */
public class NotificationLog extends MetaStoreEventListener {
  public static final String FORMAT = "hmscatalog-1";

  public NotificationLog(Configuration conf) {
    super(conf);
    makeSequence(conf);
  }

  /**
   * Makes the id sequence's one row where there is none (a schema DataNucleus made, as for Hive
   * 2.3; the schema tool's has it), while the server takes no calls yet: otherwise the first
   * change would make it, two first changes at once could each make one, and
   * {@link #lockSequence} would have no row to lock.
   */
  private static void makeSequence(Configuration conf) {
    RawStore store = null;
    boolean done = false;
    try {
      store = (RawStore) rawStore().invoke(null, conf);
      store.openTransaction();
      PersistenceManager manager = persistenceManager(store);
      Query rows = manager.newQuery(MNotificationNextId.class);
      if (((Collection<?>) rows.execute()).isEmpty()) {
        manager.makePersistent(new MNotificationNextId(1L));
      }
      rows.closeAll();
      done = store.commitTransaction();
    } catch (Exception e) {
      // Not fatal: the first change makes the row, as without this listener.
      System.err.println("hmscatalog's notification log could not make its id sequence: " + e);
    } finally {
      if (store != null && !done && store.isActiveTransaction()) {
        store.rollbackTransaction();
      }
    }
  }

  @Override
  public void onCreateTable(CreateTableEvent event) throws MetaException {
    record(event, "CREATE_TABLE", event.getTable(), null, null);
  }

  @Override
  public void onDropTable(DropTableEvent event) throws MetaException {
    record(event, "DROP_TABLE", event.getTable(), null, null);
  }

  @Override
  public void onAlterTable(AlterTableEvent event) throws MetaException {
    Table after = event.getNewTable();
    String renamed = "\"newDb\":" + quoted(after.getDbName()) + ",\"newTable\":"
        + quoted(after.getTableName());
    record(event, "ALTER_TABLE", event.getOldTable(), null, renamed);
  }

  @Override
  public void onAddPartition(AddPartitionEvent event) throws MetaException {
    record(event, "ADD_PARTITION", event.getTable(), event.getPartitionIterator(), null);
  }

  @Override
  public void onDropPartition(DropPartitionEvent event) throws MetaException {
    record(event, "DROP_PARTITION", event.getTable(), event.getPartitionIterator(), null);
  }

  @Override
  public void onAlterPartition(AlterPartitionEvent event) throws MetaException {
    List<Partition> both = new ArrayList<>();
    both.add(event.getOldPartition());
    both.add(event.getNewPartition());
    record(event, "ALTER_PARTITION", event.getTable(), both.iterator(), null);
  }

  @Override
  public void onInsert(InsertEvent event) throws MetaException {
    // Hive 2.3 names the table by its names, 3.0 and later by the table object.
    String database;
    String table;
    try {
      Method tableObject = event.getClass().getMethod("getTableObj");
      Table found = (Table) tableObject.invoke(event);
      database = found.getDbName();
      table = found.getTableName();
    } catch (NoSuchMethodException e) {
      database = (String) call(event, "getDb");
      table = (String) call(event, "getTable");
    } catch (ReflectiveOperationException e) {
      throw failure("INSERT", e);
    }
    add(event, "INSERT", database, table, message(database, table, null, null, null));
  }

  @Override
  public void onCreateDatabase(CreateDatabaseEvent event) throws MetaException {
    String name = event.getDatabase().getName();
    add(event, "CREATE_DATABASE", name, null, message(name, null, null, null, null));
  }

  @Override
  public void onDropDatabase(DropDatabaseEvent event) throws MetaException {
    String name = event.getDatabase().getName();
    add(event, "DROP_DATABASE", name, null, message(name, null, null, null, null));
  }

  protected void record(ListenerEvent event, String type, Table table,
                        Iterator<Partition> partitions, String extra) throws MetaException {
    add(event, type, table.getDbName(), table.getTableName(),
        message(table.getDbName(), table.getTableName(), table, partitions, extra));
  }

  private static String message(String database, String table, Table owner,
                                Iterator<Partition> partitions, String extra) {
    StringBuilder text = new StringBuilder("{\"db\":").append(quoted(database));
    if (table != null) {
      text.append(",\"table\":").append(quoted(table));
    }
    if (extra != null) {
      text.append(',').append(extra);
    }
    if (partitions != null) {
      List<FieldSchema> keys = owner.getPartitionKeys();
      text.append(",\"partitions\":[");
      boolean first = true;
      while (partitions.hasNext()) {
        List<String> values = partitions.next().getValues();
        text.append(first ? "{" : ",{");
        first = false;
        for (int i = 0; i < values.size() && i < keys.size(); i++) {
          text.append(i == 0 ? "" : ",").append(quoted(keys.get(i).getName())).append(':')
              .append(quoted(values.get(i)));
        }
        text.append('}');
      }
      text.append(']');
    }
    return text.append('}').toString();
  }

  private void add(ListenerEvent event, String type, String database, String table,
                   String message) throws MetaException {
    if (!event.getStatus()) {
      return;
    }
    NotificationEvent entry =
        new NotificationEvent(0, (int) (System.currentTimeMillis() / 1000), type, message);
    entry.setDbName(database);
    if (table != null) {
      entry.setTableName(table);
    }
    entry.setMessageFormat(FORMAT);
    try {
      Object store = rawStore().invoke(null, getConf());
      if (!LOCKS_ITSELF) {
        lockSequence(store);
      }
      store.getClass().getMethod("addNotificationEvent", NotificationEvent.class)
          .invoke(store, entry);
    } catch (java.lang.reflect.InvocationTargetException e) {
      if (e.getCause() instanceof MetaException) {
        throw (MetaException) e.getCause();
      }
      throw failure(type, e.getCause());
    } catch (ReflectiveOperationException | SQLException e) {
      throw failure(type, e);
    }
  }

  /** Hive's handler: a class of its own from 4.0 on, nested in {@code HiveMetaStore} before. */
  private static final Class<?> HANDLER = handler();

  /** Whether the release locks the id's table itself when it takes an id (4.0 on). */
  private static final boolean LOCKS_ITSELF = HANDLER.getEnclosingClass() == null;

  private static Class<?> handler() {
    try {
      return Class.forName("org.apache.hadoop.hive.metastore.HMSHandler");
    } catch (ClassNotFoundException e) {
      try {
        return Class.forName("org.apache.hadoop.hive.metastore.HiveMetaStore$HMSHandler");
      } catch (ClassNotFoundException neither) {
        throw new IllegalStateException("no Hive metastore handler class", neither);
      }
    }
  }

  /**
   * Locks the row of the next event id ({@code NOTIFICATION_SEQUENCE}) in the calling
   * transaction, until it ends, by an update that changes nothing. Hive 2.3 reads and advances
   * the id with no lock, and 3.1 with none on Derby: two changes at once could read the same
   * id, and a follower that had applied the one committed first would never read the other.
   * Locked, the second change reads the id only after the first commits. 4.0 on lock the
   * table themselves (on Derby, the whole table: a row lock taken before it would deadlock two
   * changes). Derby and PostgreSQL, the databases the embedded metastore runs on, both take
   * this statement. (A lock of the whole table made Hive 2.3's first event wait for its own
   * transaction, in DataNucleus's id generator.)
   */
  private static void lockSequence(Object store) throws ReflectiveOperationException,
      SQLException {
    JDOConnection held = persistenceManager(store).getDataStoreConnection();
    try (Statement statement = ((Connection) held.getNativeConnection()).createStatement()) {
      statement.execute(
          "UPDATE \"NOTIFICATION_SEQUENCE\" SET \"NEXT_EVENT_ID\" = \"NEXT_EVENT_ID\"");
    } finally {
      held.close();  // back to the transaction, which goes on with it
    }
  }

  /**
   * The persistence manager of the store behind the handler's proxy ({@code RawStoreProxy}
   * keeps the store as {@code base}): the store's field {@code pm}, whose transaction is the
   * change's. (Its {@code getPersistenceManager()} makes a new one, outside that transaction.)
   */
  private static PersistenceManager persistenceManager(Object store)
      throws ReflectiveOperationException {
    Object base = Proxy.isProxyClass(store.getClass())
        ? field(Proxy.getInvocationHandler(store), "base") : store;
    return (PersistenceManager) field(base, "pm");
  }

  private static Object field(Object owner, String name) throws ReflectiveOperationException {
    for (Class<?> type = owner.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field found = type.getDeclaredField(name);
        found.setAccessible(true);
        return found.get(owner);
      } catch (NoSuchFieldException e) {
        // declared further up
      }
    }
    throw new NoSuchFieldException(owner.getClass().getName() + "." + name);
  }

  /** The handler's {@code getMSForConf}: the calling thread's store, inside its transaction. */
  private static Method rawStore() throws ReflectiveOperationException {
    return HANDLER.getMethod("getMSForConf", Configuration.class);
  }

  private static Object call(Object target, String method) throws MetaException {
    try {
      return target.getClass().getMethod(method).invoke(target);
    } catch (ReflectiveOperationException e) {
      throw failure(method, e);
    }
  }

  private static MetaException failure(String what, Throwable cause) {
    MetaException error = new MetaException("hmscatalog's notification log cannot record "
        + what + ": " + cause);
    error.initCause(cause);
    return error;
  }

  static String quoted(String value) {
    if (value == null) {
      return "null";
    }
    StringBuilder text = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        text.append('\\').append(c);
      } else if (c < 0x20) {
        text.append(String.format("\\u%04x", (int) c));
      } else {
        text.append(c);
      }
    }
    return text.append('"').toString();
  }
}
