package io.hmscatalog.spark;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;

/**
 * Calls on Hadoop file systems that would take many round trips from Python: a directory
 * listing comes back as one string, one line per entry ({@code d|f <tab> size <tab> name}).
 */
public final class FileSystems {
  private FileSystems() {}

  /**
   * The directories below each of {@code locations} (one per line), at any depth, skipping
   * hidden ones ({@code _x}, {@code .x}) as Hadoop's input formats do: one line
   * {@code location <tab> directory} each, the location as a Hadoop path prints it. A
   * location that is no directory has none.
   */
  public static String subdirectories(Configuration conf, String locations) throws IOException {
    StringBuilder out = new StringBuilder();
    for (String location : locations.split("\n")) {
      if (location.isEmpty()) {
        continue;
      }
      Path root = new Path(location);
      FileSystem fs = root.getFileSystem(conf);
      java.util.ArrayDeque<Path> pending = new java.util.ArrayDeque<>();
      pending.add(root);
      while (!pending.isEmpty()) {
        Path dir = pending.poll();
        FileStatus[] statuses;
        try {
          statuses = fs.listStatus(dir);
        } catch (FileNotFoundException e) {
          continue;
        }
        for (FileStatus status : statuses) {
          String name = status.getPath().getName();
          if (status.isDirectory() && !name.startsWith("_") && !name.startsWith(".")) {
            pending.add(status.getPath());
            out.append(root).append('\t').append(status.getPath()).append('\n');
          }
        }
      }
    }
    return out.toString();
  }

  /** The entries of directory {@code path}, or null when there is no directory there. */
  public static String list(FileSystem fs, String path) throws IOException {
    Path dir = new Path(path);
    FileStatus[] statuses;
    try {
      statuses = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return null;
    }
    if (statuses.length == 1 && !statuses[0].isDirectory()
        && statuses[0].getPath().toUri().getPath().equals(dir.toUri().getPath())) {
      return null; // a file, not a directory
    }
    StringBuilder out = new StringBuilder();
    for (FileStatus status : statuses) {
      out.append(status.isDirectory() ? 'd' : 'f').append('\t').append(status.getLen())
          .append('\t').append(status.getPath().getName()).append('\n');
    }
    return out.toString();
  }

  /** The UTF-8 text of a (small) file. */
  public static String readText(FileSystem fs, String path) throws IOException {
    try (FSDataInputStream in = fs.open(new Path(path))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** {@code length} bytes of the file at {@code path} from {@code offset}. */
  public static byte[] read(FileSystem fs, String path, long offset, int length)
      throws IOException {
    byte[] buffer = new byte[length];
    try (FSDataInputStream in = fs.open(new Path(path))) {
      in.readFully(offset, buffer);
    }
    return buffer;
  }

  /** Write {@code text} to a new file at {@code path}; fails if one is there. */
  public static void create(FileSystem fs, String path, String text) throws IOException {
    try (OutputStream out = fs.create(new Path(path), false)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Replace {@code target} by {@code source} in one rename (atomic on HDFS). */
  public static void replace(FileSystem fs, Configuration conf, String source, String target)
      throws IOException {
    FileContext.getFileContext(fs.getUri(), conf)
        .rename(new Path(source), new Path(target), Options.Rename.OVERWRITE);
  }
}
