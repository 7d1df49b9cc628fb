package io.hmscatalog.spark;

/** Java arrays of strings read from Python in one py4j call rather than one per element. */
public final class Strings {
  private Strings() {}

  /** {@code items} joined by {@code separator}; null elements as {@code "null"}. */
  public static String join(String[] items, String separator) {
    return String.join(separator, items);
  }
}
