package io.hmscatalog.metastore;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.MetaStoreEventListener;
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
 */
public class NotificationLog extends MetaStoreEventListener {
  public static final String FORMAT = "hmscatalog-1";

  public NotificationLog(Configuration conf) {
    super(conf);
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
      store.getClass().getMethod("addNotificationEvent", NotificationEvent.class)
          .invoke(store, entry);
    } catch (java.lang.reflect.InvocationTargetException e) {
      if (e.getCause() instanceof MetaException) {
        throw (MetaException) e.getCause();
      }
      throw failure(type, e.getCause());
    } catch (ReflectiveOperationException e) {
      throw failure(type, e);
    }
  }

  /** The handler's {@code getMSForConf}: the calling thread's store, inside its transaction. */
  private static Method rawStore() throws ReflectiveOperationException {
    Class<?> handler;
    try {
      handler = Class.forName("org.apache.hadoop.hive.metastore.HMSHandler");  // 4.0 on
    } catch (ClassNotFoundException e) {
      handler = Class.forName("org.apache.hadoop.hive.metastore.HiveMetaStore$HMSHandler");
    }
    return handler.getMethod("getMSForConf", Configuration.class);
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
