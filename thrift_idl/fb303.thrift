# fb303.thrift -- minimal re-statement of the fb303 base service.
#
# Hand-written for hmscatalog (2026-11). The Hive metastore service extends
# FacebookService, so its methods must be known to a client; the names,
# argument ids and types below follow Apache Thrift's contrib/fb303 IDL
# (the version shipped as libfb303-0.9.3, which Hive 2.3.10 links against).
# The two fire-and-forget calls are declared `oneway` (the old IDL spelled
# this `async`); the wire behaviour is the same.

namespace py hmscatalog.metastore._thrift.fb303

# Coarse health states reported by getStatus().
enum fb_status {
  DEAD = 0,
  STARTING = 1,
  ALIVE = 2,
  STOPPING = 3,
  STOPPED = 4,
  WARNING = 5,
}

service FacebookService {
  # Service name, version and health.
  string getName(),
  string getVersion(),
  fb_status getStatus(),
  string getStatusDetails(),

  # Counters exported by the server.
  map<string, i64> getCounters(),
  i64 getCounter(1: string key),

  # Runtime options.
  void setOption(1: string key, 2: string value),
  string getOption(1: string key),
  map<string, string> getOptions(),

  # Profiling and lifecycle.
  string getCpuProfile(1: i32 profileDurationInSec),
  i64 aliveSince(),
  oneway void reinitialize(),
  oneway void shutdown(),
}
