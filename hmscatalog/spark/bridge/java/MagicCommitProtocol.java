package io.hmscatalog.spark;

import java.io.IOException;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.OutputCommitter;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.PathOutputCommitter;
import org.apache.hadoop.mapreduce.lib.output.PathOutputCommitterFactory;
import org.apache.spark.internal.io.FileNameSpec;
import org.apache.spark.internal.io.HadoopMapReduceCommitProtocol;

import scala.Option;

/**
 * Spark's commit protocol over the output committer Hadoop's factory gives for the destination's
 * scheme, writing where that committer says: for S3A's magic committer (fs.s3a.committer.name
 * = magic), tasks write each file once, at its final name, as a multipart upload that is only
 * completed when the job commits. No file is visible before, none is copied or renamed.
 * Spark's own protocol writes to the destination itself when the committer is not a
 * FileOutputCommitter, which with the magic committer would make every file visible at once.
 */
public class MagicCommitProtocol extends HadoopMapReduceCommitProtocol {
  /**
   * The job setting naming a directory that every file goes into below its partition's
   * directory (an overwrite's {@code hms-v<write id>}), so that the partitions it replaces keep
   * their directories and the new files sit where a reader of the tree looks for them.
   */
  public static final String VERSION_DIRECTORY = "hmscatalog.write.version-directory";

  private final String destination;
  private transient PathOutputCommitter committer;

  public MagicCommitProtocol(String jobId, String destination, boolean dynamicOverwrite) {
    super(jobId, destination, false);
    this.destination = destination;
  }

  @Override
  public OutputCommitter setupCommitter(TaskAttemptContext context) {
    Path output = new Path(destination);
    OutputCommitter made;
    try {
      made = PathOutputCommitterFactory.getCommitterFactory(output, context.getConfiguration())
          .createOutputCommitter(output, context);
    } catch (IOException e) {
      throw new IllegalStateException("cannot set up the committer of " + destination, e);
    }
    if (!(made instanceof PathOutputCommitter)) {
      throw new IllegalStateException("the committer of " + destination + " is "
          + made.getClass().getName() + ", not a PathOutputCommitter");
    }
    committer = (PathOutputCommitter) made;
    return made;
  }

  @Override
  public String newTaskTempFile(TaskAttemptContext context, Option<String> dir,
      FileNameSpec spec) {
    Path work;
    try {
      work = committer.getWorkPath();
    } catch (IOException e) {
      throw new IllegalStateException("no work path for " + destination, e);
    }
    String name = getFilename(context, spec);
    Path parent = dir.isDefined() ? new Path(work, dir.get()) : work;
    String version = context.getConfiguration().get(VERSION_DIRECTORY);
    if (version != null && !version.isEmpty()) {
      parent = new Path(parent, version);
    }
    return new Path(parent, name).toString();
  }

  /**
   * A partition stored elsewhere under the destination: the file goes to the same relative
   * place under the task's work path, which S3A maps to {@code absoluteDir} (a magic path's
   * final key is its part after {@code __base}, under the directory that holds the magic
   * directory), so the job's commit completes it with the others.
   */
  @Override
  public String newTaskTempFileAbsPath(TaskAttemptContext context, String absoluteDir,
      FileNameSpec spec) {
    String base = new Path(destination).toUri().getPath().replaceAll("/+$", "") + "/";
    String dir = new Path(absoluteDir).toUri().getPath();
    if (!dir.startsWith(base)) {
      throw new UnsupportedOperationException("a write through S3A's magic committer cannot "
          + "place files outside " + destination + ": " + absoluteDir);
    }
    return newTaskTempFile(context, Option.apply(dir.substring(base.length())), spec);
  }
}
