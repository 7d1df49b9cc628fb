# hive_metastore.thrift -- subset of the Hive Metastore Thrift API.
#
# Hand-written for hmscatalog (2026-11). This is NOT the upstream file: it
# declares only the types and calls hmscatalog uses. It was written to match
# Hive 2.3.10's metastore/if/hive_metastore.thrift (the server classes in
# hive-metastore-2.3.10.jar): every struct, field, method, argument and
# exception keeps the upstream name, id, type and requiredness so the
# generated client is wire compatible. Defaults that change what goes on
# the wire (needResult, ifExists, max_parts, temporary) are kept as well.
#
# Fields that exist upstream in 2.3.10 but are only optional (e.g. the
# catalog name fields) are included too, so that round-tripping an object
# read from the server does not silently drop them.
#
# Regenerate the Python package with: bash thrift_idl/generate.sh

include "fb303.thrift"

namespace py hmscatalog.metastore._thrift.hive_metastore

# ---------------------------------------------------------------- enums

# Kind of principal that owns an object or holds a grant.
enum PrincipalType {
  USER = 1,
  ROLE = 2,
  GROUP = 3,
}

# ---------------------------------------------------------------- structs

# One column: name, Hive type string, free-text comment.
struct FieldSchema {
  1: string name,
  2: string type,
  3: string comment
}

# A single granted privilege and who granted it.
struct PrivilegeGrantInfo {
  1: string privilege,
  2: i32 createTime,
  3: string grantor,
  4: PrincipalType grantorType,
  5: bool grantOption,
}

# Privileges keyed by principal name, split by principal kind.
struct PrincipalPrivilegeSet {
  1: map<string, list<PrivilegeGrantInfo>> userPrivileges,
  2: map<string, list<PrivilegeGrantInfo>> groupPrivileges,
  3: map<string, list<PrivilegeGrantInfo>> rolePrivileges,
}

# A database (namespace of tables).
struct Database {
  1: string name,
  2: string description,
  3: string locationUri,
  4: map<string, string> parameters,
  5: optional PrincipalPrivilegeSet privileges,
  6: optional string ownerName,
  7: optional PrincipalType ownerType,
  8: optional string catalogName
}

# Serializer/deserializer class plus its properties.
struct SerDeInfo {
  1: string name,
  2: string serializationLib,
  3: map<string, string> parameters
}

# Sort column; order is 1 for ascending, 0 for descending.
struct Order {
  1: string col,
  2: i32    order
}

# Skew description: skewed columns, their skewed value tuples and the
# directory each value tuple is stored in (map keyed by the value tuple).
# The map key is a list; the python.immutable annotation makes the Python
# reader build it as a tuple (a list cannot be a dict key). Annotations are
# language hints only and do not change the wire format.
struct SkewedInfo {
  1: list<string> skewedColNames,
  2: list<list<string>> skewedColValues,
  3: map<list<string> (python.immutable = ""), string> skewedColValueLocationMaps,
}

# Physical layout: columns, location, formats, serde, bucketing, sorting.
struct StorageDescriptor {
  1: list<FieldSchema> cols,
  2: string location,
  3: string inputFormat,
  4: string outputFormat,
  5: bool   compressed,
  6: i32    numBuckets,
  7: SerDeInfo    serdeInfo,
  8: list<string> bucketCols,
  9: list<Order>  sortCols,
  10: map<string, string> parameters,
  11: optional SkewedInfo skewedInfo,
  12: optional bool   storedAsSubDirectories
}

# A table or view. tableType holds e.g. MANAGED_TABLE / EXTERNAL_TABLE.
struct Table {
  1: string tableName,
  2: string dbName,
  3: string owner,
  4: i32    createTime,
  5: i32    lastAccessTime,
  6: i32    retention,
  7: StorageDescriptor sd,
  8: list<FieldSchema> partitionKeys,
  9: map<string, string> parameters,
  10: string viewOriginalText,
  11: string viewExpandedText,
  12: string tableType,
  13: optional PrincipalPrivilegeSet privileges,
  14: optional bool temporary=false,
  15: optional bool rewriteEnabled,
  # Field 16 is creationMetadata from Hive 3.0 on (catName in pyspark's 2.3.10 build): left out.
  17: optional string catName
}

# A table's or view's name and type, as get_table_meta lists them (catName from Hive 3.0 on).
struct TableMeta {
  1: required string dbName,
  2: required string tableName,
  3: required string tableType,
  4: optional string comments,
  5: optional string catName
}

# One partition; values are given in partition-key order, as strings.
struct Partition {
  1: list<string> values,
  2: string       dbName,
  3: string       tableName,
  4: i32          createTime,
  5: i32          lastAccessTime,
  6: StorageDescriptor   sd,
  7: map<string, string> parameters,
  8: optional PrincipalPrivilegeSet privileges,
  9: optional string catName
}

# What a client declares it can handle (Hive 2.3 on). Hive 3 serves insert-only ACID tables
# only to clients declaring INSERT_ONLY_TABLES.
enum ClientCapability {
  TEST_CAPABILITY = 1,
  INSERT_ONLY_TABLES = 2
}

struct ClientCapabilities {
  1: required list<ClientCapability> values
}

# Argument of get_table_req (Hive 2.3 on). catName from 3.0; processor fields from 4.0.
struct GetTableRequest {
  1: required string dbName,
  2: required string tblName,
  3: optional ClientCapabilities capabilities,
  4: optional string catName,
  8: optional list<string> processorCapabilities,
  9: optional string processorIdentifier
}

# Reply of get_table_req.
struct GetTableResult {
  1: required Table table,
  2: optional bool isStatsCompliant
}

# A catalog above databases (Hive 3.0 on).
struct Catalog {
  1: string name,
  2: optional string description,
  3: string locationUri
}

# Arguments of create_catalog and drop_catalog.
struct CreateCatalogRequest {
  1: Catalog catalog
}

struct DropCatalogRequest {
  1: string name,
  2: optional bool ifExists
}

# Reply of get_catalogs.
struct GetCatalogsResponse {
  1: list<string> names
}

# Argument of get_partitions_by_names_req (Hive 4.0 on).
struct GetPartitionsByNamesRequest {
  1: required string db_name,
  2: required string tbl_name,
  3: optional list<string> names,
  5: optional list<string> processorCapabilities,
  6: optional string processorIdentifier
}

# Reply of get_partitions_by_names_req.
struct GetPartitionsByNamesResult {
  1: required list<Partition> partitions
}

# Argument of get_partitions_by_filter_req (Hive 4.0 on).
struct GetPartitionsByFilterRequest {
  1: optional string catName,
  2: string dbName,
  3: string tblName,
  4: string filter,
  5: optional i16 maxParts = -1
}

# Argument of create_table_req (Hive 4.0 on).
struct CreateTableRequest {
  1: required Table table,
  2: optional EnvironmentContext envContext,
  9: optional list<string> processorCapabilities,
  10: optional string processorIdentifier
}

# Free-form key/value properties handed to server-side hooks.
struct EnvironmentContext {
  1: map<string, string> properties
}

# Reply of add_partitions_req (filled only when needResult was set).
struct AddPartitionsResult {
  1: optional list<Partition> partitions,
}

# Argument of add_partitions_req.
struct AddPartitionsRequest {
  1: required string dbName,
  2: required string tblName,
  3: required list<Partition> parts,
  4: required bool ifNotExists,
  5: optional bool needResult=true,
  6: optional string catName
}

# Reply of drop_partitions_req (filled only when needResult was set).
struct DropPartitionsResult {
  1: optional list<Partition> partitions,
}

# A serialized partition-filter expression for drop_partitions_req.
struct DropPartitionsExpr {
  1: required binary expr;
  2: optional i32 partArchiveLevel;
}

# Which partitions to drop: either by name or by expressions.
union RequestPartsSpec {
  1: list<string> names;
  2: list<DropPartitionsExpr> exprs;
}

# Argument of drop_partitions_req.
struct DropPartitionsRequest {
  1: required string dbName,
  2: required string tblName,
  3: required RequestPartsSpec parts,
  4: optional bool deleteData,
  5: optional bool ifExists=true,
  6: optional bool ignoreProtection,
  7: optional EnvironmentContext environmentContext,
  8: optional bool needResult=true,
  9: optional string catName
}

# ---------------------------------------------------------------- notification log

# What get_next_notification returns after lastEvent; fields 3-6 (filters) are Hive 4's and
# left out.
struct NotificationEventRequest {
  1: required i64 lastEvent,
  2: optional i32 maxEvents
}

struct NotificationEvent {
  1: required i64 eventId,
  2: required i32 eventTime,
  3: required string eventType,
  4: optional string dbName,
  5: optional string tableName,
  6: required string message,
  7: optional string messageFormat,
  8: optional string catName
}

struct NotificationEventResponse {
  1: required list<NotificationEvent> events
}

struct CurrentNotificationEventId {
  1: required i64 eventId
}

# ---------------------------------------------------------------- exceptions

exception MetaException {
  1: string message
}

exception UnknownTableException {
  1: string message
}

exception UnknownDBException {
  1: string message
}

exception AlreadyExistsException {
  1: string message
}

exception InvalidPartitionException {
  1: string message
}

exception UnknownPartitionException {
  1: string message
}

exception InvalidObjectException {
  1: string message
}

exception NoSuchObjectException {
  1: string message
}

exception InvalidOperationException {
  1: string message
}

exception ConfigValSecurityException {
  1: string message
}

# ---------------------------------------------------------------- service

service ThriftHiveMetastore extends fb303.FacebookService
{
  # Server-side configuration lookup.
  string getMetaConf(1:string key) throws(1:MetaException o1)

  # Databases.
  void create_database(1:Database database)
      throws(1:AlreadyExistsException o1, 2:InvalidObjectException o2, 3:MetaException o3)
  Database get_database(1:string name)
      throws(1:NoSuchObjectException o1, 2:MetaException o2)
  void drop_database(1:string name, 2:bool deleteData, 3:bool cascade)
      throws(1:NoSuchObjectException o1, 2:InvalidOperationException o2, 3:MetaException o3)
  list<string> get_databases(1:string pattern) throws(1:MetaException o1)
  list<string> get_all_databases() throws(1:MetaException o1)
  void alter_database(1:string dbname, 2:Database db)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)

  # Column lists: data columns only (get_fields) or data + partition
  # columns (get_schema).
  list<FieldSchema> get_fields(1:string db_name, 2:string table_name)
      throws(1:MetaException o1, 2:UnknownTableException o2, 3:UnknownDBException o3)
  list<FieldSchema> get_schema(1:string db_name, 2:string table_name)
      throws(1:MetaException o1, 2:UnknownTableException o2, 3:UnknownDBException o3)

  # Tables.
  void create_table(1:Table tbl)
      throws(1:AlreadyExistsException o1, 2:InvalidObjectException o2,
             3:MetaException o3, 4:NoSuchObjectException o4)
  void create_table_with_environment_context(1:Table tbl,
      2:EnvironmentContext environment_context)
      throws(1:AlreadyExistsException o1, 2:InvalidObjectException o2,
             3:MetaException o3, 4:NoSuchObjectException o4)
  void drop_table(1:string dbname, 2:string name, 3:bool deleteData)
      throws(1:NoSuchObjectException o1, 2:MetaException o3)
  void drop_table_with_environment_context(1:string dbname, 2:string name,
      3:bool deleteData, 4:EnvironmentContext environment_context)
      throws(1:NoSuchObjectException o1, 2:MetaException o3)
  list<string> get_tables(1:string db_name, 2:string pattern) throws(1:MetaException o1)
  list<string> get_all_tables(1:string db_name) throws(1:MetaException o1)
  list<TableMeta> get_table_meta(1:string db_patterns, 2:string tbl_patterns,
      3:list<string> tbl_types) throws(1:MetaException o1)
  # get_table and get_table_objects_by_name are left out: Hive 4.0.1 removed them, and
  # get_table_req serves every release from 2.3 on.
  GetTableResult get_table_req(1:GetTableRequest req)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)
  # Hive 4.0 on.
  void create_table_req(1:CreateTableRequest request)
      throws(1:AlreadyExistsException o1, 2:InvalidObjectException o2,
             3:MetaException o3, 4:NoSuchObjectException o4)
  void alter_table(1:string dbname, 2:string tbl_name, 3:Table new_tbl)
      throws(1:InvalidOperationException o1, 2:MetaException o2)
  void alter_table_with_environment_context(1:string dbname, 2:string tbl_name,
      3:Table new_tbl, 4:EnvironmentContext environment_context)
      throws(1:InvalidOperationException o1, 2:MetaException o2)
  void alter_table_with_cascade(1:string dbname, 2:string tbl_name, 3:Table new_tbl,
      4:bool cascade)
      throws(1:InvalidOperationException o1, 2:MetaException o2)

  # Adding partitions.
  Partition add_partition(1:Partition new_part)
      throws(1:InvalidObjectException o1, 2:AlreadyExistsException o2, 3:MetaException o3)
  i32 add_partitions(1:list<Partition> new_parts)
      throws(1:InvalidObjectException o1, 2:AlreadyExistsException o2, 3:MetaException o3)
  AddPartitionsResult add_partitions_req(1:AddPartitionsRequest request)
      throws(1:InvalidObjectException o1, 2:AlreadyExistsException o2, 3:MetaException o3)

  # Dropping partitions.
  bool drop_partition(1:string db_name, 2:string tbl_name, 3:list<string> part_vals,
      4:bool deleteData)
      throws(1:NoSuchObjectException o1, 2:MetaException o2)
  bool drop_partition_by_name(1:string db_name, 2:string tbl_name, 3:string part_name,
      4:bool deleteData)
      throws(1:NoSuchObjectException o1, 2:MetaException o2)
  DropPartitionsResult drop_partitions_req(1:DropPartitionsRequest req)
      throws(1:NoSuchObjectException o1, 2:MetaException o2)

  # Reading partitions. A max_parts of -1 means "no limit".
  Partition get_partition(1:string db_name, 2:string tbl_name, 3:list<string> part_vals)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)
  Partition get_partition_by_name(1:string db_name, 2:string tbl_name, 3:string part_name)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)
  list<Partition> get_partitions(1:string db_name, 2:string tbl_name, 3:i16 max_parts=-1)
      throws(1:NoSuchObjectException o1, 2:MetaException o2)
  # Hive 2.3 declares only (1:MetaException o2): its MetaException arrives as field 1 and reads
  # here as a NoSuchObjectException carrying the same message.
  list<string> get_partition_names(1:string db_name, 2:string tbl_name,
      3:i16 max_parts=-1)
      throws(1:NoSuchObjectException o1, 2:MetaException o2)
  # The *_ps calls take a partial value list; "" matches any value.
  list<Partition> get_partitions_ps(1:string db_name, 2:string tbl_name,
      3:list<string> part_vals, 4:i16 max_parts=-1)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)
  list<string> get_partition_names_ps(1:string db_name, 2:string tbl_name,
      3:list<string> part_vals, 4:i16 max_parts=-1)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)
  list<Partition> get_partitions_by_filter(1:string db_name, 2:string tbl_name,
      3:string filter, 4:i16 max_parts=-1)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)
  i32 get_num_partitions_by_filter(1:string db_name, 2:string tbl_name, 3:string filter)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)
  list<Partition> get_partitions_by_names(1:string db_name, 2:string tbl_name,
      3:list<string> names)
      throws(1:MetaException o1, 2:NoSuchObjectException o2, 3:InvalidObjectException o3)
  # Hive 4.0 on.
  list<Partition> get_partitions_by_filter_req(1:GetPartitionsByFilterRequest req)
      throws(1:MetaException o1, 2:NoSuchObjectException o2)
  GetPartitionsByNamesResult get_partitions_by_names_req(1:GetPartitionsByNamesRequest req)
      throws(1:MetaException o1, 2:NoSuchObjectException o2, 3:InvalidObjectException o3)

  # Altering partitions.
  void alter_partition(1:string db_name, 2:string tbl_name, 3:Partition new_part)
      throws(1:InvalidOperationException o1, 2:MetaException o2)
  void alter_partitions(1:string db_name, 2:string tbl_name, 3:list<Partition> new_parts)
      throws(1:InvalidOperationException o1, 2:MetaException o2)
  void alter_partitions_with_environment_context(1:string db_name, 2:string tbl_name,
      3:list<Partition> new_parts, 4:EnvironmentContext environment_context)
      throws(1:InvalidOperationException o1, 2:MetaException o2)
  void rename_partition(1:string db_name, 2:string tbl_name, 3:list<string> part_vals,
      4:Partition new_part)
      throws(1:InvalidOperationException o1, 2:MetaException o2)

  # Catalogs (Hive 3.0 on).
  void create_catalog(1:CreateCatalogRequest catalog)
      throws(1:AlreadyExistsException o1, 2:InvalidObjectException o2, 3:MetaException o3)
  GetCatalogsResponse get_catalogs() throws(1:MetaException o1)
  void drop_catalog(1:DropCatalogRequest catName)
      throws(1:NoSuchObjectException o1, 2:InvalidOperationException o2, 3:MetaException o3)

  # Server configuration value (only hive.*, mapred.*, hdfs.* style keys).
  string get_config_value(1:string name, 2:string defaultValue)
      throws(1:ConfigValSecurityException o1)

  # Partition-name helpers: "a=1/b=2" -> ["1", "2"] / {"a": "1", "b": "2"}.
  list<string> partition_name_to_vals(1:string part_name) throws(1:MetaException o1)
  map<string, string> partition_name_to_spec(1:string part_name) throws(1:MetaException o1)

  # The notification log (filled by a listener such as DbNotificationListener).
  NotificationEventResponse get_next_notification(1:NotificationEventRequest rqst)
  CurrentNotificationEventId get_current_notificationEventId()
}
