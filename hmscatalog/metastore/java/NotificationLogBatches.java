package io.hmscatalog.metastore;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.events.AlterPartitionsEvent;

/**
 * {@link NotificationLog} for releases that tell listeners of a batch of altered partitions in
 * one event (Hive 4.1 on): one {@code ALTER_PARTITIONS} entry names the table and every
 * partition's new values.
 */
public class NotificationLogBatches extends NotificationLog {
  public NotificationLogBatches(Configuration conf) {
    super(conf);
  }

  @Override
  public void onAlterPartitions(AlterPartitionsEvent event) throws MetaException {
    List<Partition> all = new ArrayList<>();
    for (Iterator<List<Partition>> batches = event.getNewPartsIterator(1000);
         batches.hasNext(); ) {
      all.addAll(batches.next());
    }
    record(event, "ALTER_PARTITIONS", event.getTable(), all.iterator(), null);
  }
}
