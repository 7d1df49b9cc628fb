package io.hmscatalog.spark;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import org.apache.spark.sql.catalyst.catalog.CatalogColumnStat;
import org.apache.spark.sql.catalyst.catalog.CatalogColumnStat$;
import org.apache.spark.sql.catalyst.plans.logical.ColumnStat;
import org.apache.spark.sql.connector.expressions.FieldReference$;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics;
import org.apache.spark.sql.connector.read.colstats.Histogram;
import org.apache.spark.sql.connector.read.colstats.HistogramBin;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A column's statistics for the optimizer ({@code Statistics.columnStats} of a scan), read from
 * the table properties Spark's built-in catalog stores them in
 * ({@code spark.sql.statistics.colStats.<column>.<statistic>}, written by {@code ANALYZE TABLE
 * ... FOR COLUMNS} through either catalog) with Spark's own code: {@code
 * CatalogColumnStat.fromMap} parses them as the built-in catalog does, {@code toPlanStat} turns
 * min and max into Catalyst values of the column's type, as {@code HiveTableRelation} and
 * {@code LogicalRelation} do for the built-in's tables.
 *
 * <p>Everything is read once, in the JVM: Spark asks for these while it optimizes a query,
 * several times per relation, and no call goes back to Python then.
 */
public final class ColumnStats implements ColumnStatistics {
  private static final String VERSION_SUFFIX = ".version";

  private final OptionalLong distinctCount;
  private final Optional<Object> min;
  private final Optional<Object> max;
  private final OptionalLong nullCount;
  private final OptionalLong avgLen;
  private final OptionalLong maxLen;
  private final Optional<Histogram> histogram;

  private ColumnStats(ColumnStat stat) {
    distinctCount = count(stat.distinctCount());
    min = Optional.ofNullable(stat.min().isDefined() ? stat.min().get() : null);
    max = Optional.ofNullable(stat.max().isDefined() ? stat.max().get() : null);
    nullCount = count(stat.nullCount());
    avgLen = length(stat.avgLen());
    maxLen = length(stat.maxLen());
    histogram = stat.histogram().isDefined()
        ? Optional.of(new Bins(stat.histogram().get())) : Optional.empty();
  }

  /**
   * The statistics of each column of {@code schema} that the properties {@code keys} = {@code
   * values} (the table's {@code spark.sql.statistics.colStats.*}, without that prefix) hold,
   * keyed by the column's name as {@code DataSourceV2Relation.transformV2Stats} matches them to
   * the scan's output. A column is found by its exact name, else by its name in any case (the metastore
   * keeps names in lower case). Statistics Spark cannot parse are left out (Spark logs why).
   *
   * <p>{@code tableRows} is the row count the statistics describe and {@code scanRows} the rows
   * the scan reports (each negative when unknown): when the scan reads fewer (some partitions),
   * distinct and null counts shrink as Spark's {@code FilterEstimation} shrinks them after a
   * filter ({@code ColumnStat.updateCountStats}).
   */
  public static Map<NamedReference, ColumnStatistics> of(String table, String[] keys,
      String[] values, StructType schema, long tableRows, long scanRows) {
    Map<String, String> properties = new HashMap<>();
    for (int i = 0; i < keys.length; i++) {
      properties.put(keys[i], values[i]);
    }
    Map<String, String> analyzed = new HashMap<>();  // lower-case name -> name as stored
    for (String key : properties.keySet()) {
      if (key.endsWith(VERSION_SUFFIX)) {
        String name = key.substring(0, key.length() - VERSION_SUFFIX.length());
        analyzed.putIfAbsent(name.toLowerCase(java.util.Locale.ROOT), name);
      }
    }
    Map<NamedReference, ColumnStatistics> result = new HashMap<>();
    if (analyzed.isEmpty()) {
      return result;
    }
    scala.collection.immutable.Map<String, String> map =
        scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(properties));
    for (StructField field : schema.fields()) {
      String name = field.name();
      String stored = properties.containsKey(name + VERSION_SUFFIX)
          ? name : analyzed.get(name.toLowerCase(java.util.Locale.ROOT));
      if (stored == null) {
        continue;
      }
      Option<CatalogColumnStat> parsed = CatalogColumnStat$.MODULE$.fromMap(table, stored, map);
      if (parsed.isEmpty()) {
        continue;
      }
      ColumnStat stat;
      try {
        stat = parsed.get().toPlanStat(stored, field.dataType());
      } catch (RuntimeException e) {
        continue;  // a min or max that does not read as the column's type
      }
      if (tableRows >= 0 && scanRows >= 0 && scanRows < tableRows) {
        scala.math.BigInt before = scala.math.BigInt$.MODULE$.apply(tableRows);
        scala.math.BigInt after = scala.math.BigInt$.MODULE$.apply(scanRows);
        stat = stat.updateCountStats(before, after, Option.empty());
      }
      result.put(FieldReference$.MODULE$.column(name), new ColumnStats(stat));
    }
    return result;
  }

  private static OptionalLong count(Option<scala.math.BigInt> value) {
    return value.isDefined() ? OptionalLong.of(value.get().longValue()) : OptionalLong.empty();
  }

  private static OptionalLong length(Option<Object> value) {
    return value.isDefined() ? OptionalLong.of(((Number) value.get()).longValue())
                             : OptionalLong.empty();
  }

  @Override
  public OptionalLong distinctCount() {
    return distinctCount;
  }

  @Override
  public Optional<Object> min() {
    return min;
  }

  @Override
  public Optional<Object> max() {
    return max;
  }

  @Override
  public OptionalLong nullCount() {
    return nullCount;
  }

  @Override
  public OptionalLong avgLen() {
    return avgLen;
  }

  @Override
  public OptionalLong maxLen() {
    return maxLen;
  }

  @Override
  public Optional<Histogram> histogram() {
    return histogram;
  }

  @Override
  public String toString() {
    return "ColumnStats(distinctCount=" + distinctCount + ", min=" + min + ", max=" + max
        + ", nullCount=" + nullCount + ", avgLen=" + avgLen + ", maxLen=" + maxLen
        + ", histogram=" + histogram.isPresent() + ")";
  }

  /** Spark's equi-height histogram, as the connector's. */
  private static final class Bins implements Histogram {
    private final double height;
    private final HistogramBin[] bins;

    Bins(org.apache.spark.sql.catalyst.plans.logical.Histogram histogram) {
      height = histogram.height();
      org.apache.spark.sql.catalyst.plans.logical.HistogramBin[] from = histogram.bins();
      bins = new HistogramBin[from.length];
      for (int i = 0; i < from.length; i++) {
        bins[i] = new Bin(from[i].lo(), from[i].hi(), from[i].ndv());
      }
    }

    @Override
    public double height() {
      return height;
    }

    @Override
    public HistogramBin[] bins() {
      return bins;
    }
  }

  private static final class Bin implements HistogramBin {
    private final double lo;
    private final double hi;
    private final long ndv;

    Bin(double lo, double hi, long ndv) {
      this.lo = lo;
      this.hi = hi;
      this.ndv = ndv;
    }

    @Override
    public double lo() {
      return lo;
    }

    @Override
    public double hi() {
      return hi;
    }

    @Override
    public long ndv() {
      return ndv;
    }
  }
}
