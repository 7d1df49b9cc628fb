"""hms table definitions from what Spark hands a catalog: the properties of CREATE TABLE (Spark
and Hive syntax), the source of CREATE TABLE LIKE, and LOCATION values, as the built-in catalog
reads them."""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from hmscatalog.errors import NoSuchNamespace, NoSuchTable
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import (
    EXTERNAL_TABLE,
    MANAGED_TABLE,
    Column,
    Storage,
    StorageClasses,
    StorageFormat,
    Table,
)
from hmscatalog.metastore.spark_schema import (
    CREATE_VERSION,
    needs_schema_properties,
    schema_properties,
    spark_names,
    with_spark_case,
    without_schema_properties,
)
from hmscatalog.partitions.types import parse_hive_type
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.internals.session import builtin_table_storage, schema_json

_HIVE = "org.apache.hadoop.hive"
_TEXT = ("org.apache.hadoop.mapred.TextInputFormat", f"{_HIVE}.ql.io.HiveIgnoreKeyTextOutputFormat")
# STORED AS names and their classes (input format, output format, default SerDe), as Hive and
# the built-in catalog's DDL store them.
_STORED_AS = {
    "parquet": StorageFormat.PARQUET.value, "orc": StorageFormat.ORC.value,
    "textfile": StorageFormat.TEXT.value, "text": StorageFormat.TEXT.value,
    "sequencefile": StorageClasses(
        "org.apache.hadoop.mapred.SequenceFileInputFormat",
        "org.apache.hadoop.mapred.SequenceFileOutputFormat",
        f"{_HIVE}.serde2.lazy.LazySimpleSerDe"),
    "rcfile": StorageClasses(
        f"{_HIVE}.ql.io.RCFileInputFormat", f"{_HIVE}.ql.io.RCFileOutputFormat",
        f"{_HIVE}.serde2.columnar.LazyBinaryColumnarSerDe"),
    "avro": StorageClasses(
        f"{_HIVE}.ql.io.avro.AvroContainerInputFormat",
        f"{_HIVE}.ql.io.avro.AvroContainerOutputFormat", f"{_HIVE}.serde2.avro.AvroSerDe"),
}
# The SerDe properties ROW FORMAT DELIMITED sets (LazySimpleSerDe's; "colelction" is Hive's).
_ROW_FORMAT_DELIMITED = frozenset({"field.delim", "serialization.format", "escape.delim",
                                   "colelction.delim", "collection.delim", "mapkey.delim",
                                   "line.delim", "serialization.null.format"})
# Properties Spark passes to createTable that are not table parameters.
_RESERVED = frozenset({"provider", "location", "comment", "owner", "external",
                       "hive.stored-as", "is_managed_location"})


class TableDefinitions:
    """Builds the metastore :class:`Table` a CREATE statement asks for; refuses (with an
    ``IllegalArgumentException`` naming the table) what hms cannot create."""

    def __init__(self, jvm: Jvm, client: MetastoreClient) -> None:
        self._jvm = jvm
        self.client = client

    def _illegal(self, message: str) -> Any:
        self._jvm.illegal_argument(message)

    def table(
        self, database: str, name: str, struct: Any, transforms: Any, props: dict[str, str]
    ) -> Table:
        qualified = f"{database}.{name}"
        partition_names: list[str] = []
        for transform in transforms:
            refs = list(transform.references())
            if str(transform.name()) != "identity" or len(refs) != 1:
                self._illegal(f"hms table {qualified} can be partitioned by columns only, "
                              f"not by {transform.describe()}")
            partition_names.append(".".join(str(p) for p in refs[0].fieldNames()).lower())
        columns: dict[str, Column] = {}
        cased: dict[str, str] = {}  # each name as written (Id), by the metastore's (id)
        for field in struct.fields():
            comment = field.getComment()
            given = str(field.name())
            if given.lower() in cased:
                self._illegal(f"hms table {qualified} cannot have both columns "
                              f"{cased[given.lower()]!r} and {given!r}: the metastore keeps "
                              "column names in lower case")
            cased[given.lower()] = given
            columns[given.lower()] = Column(
                given.lower(), self._jvm.hive_type(field.dataType()),
                str(comment.get()) if comment.isDefined() else None)
        for part in partition_names:
            if part not in columns:
                self._illegal(f"partition column {part!r} of {qualified} is not a column")
            if not parse_hive_type(columns[part].type).can_partition:
                self._illegal(f"partition column {part!r} of {qualified} has type "
                              f"{columns[part].type}, which cannot name a partition directory")
        classes = self._classes(qualified, props)
        serde_options = {k[len("option."):]: v for k, v in props.items() if k.startswith("option.")}
        parameters = {
            k: v for k, v in props.items()
            if k not in _RESERVED and not k.startswith(("option.", "hive.")) and
            serde_options.get(k) != v
        }
        if "comment" in props:
            parameters["comment"] = props["comment"]
        data_names = [n for n in columns if n not in partition_names]
        if needs_schema_properties(list(cased.values())):
            # Names the metastore lower-cases (Id, Dt): kept as the built-in keeps them.
            parameters.update(self._schema_properties(
                [replace(columns[n], name=cased[n]) for n in data_names],
                [replace(columns[n], name=cased[n]) for n in partition_names],
                str(self._jvm.spark.version)))
        location = self.qualified_location(database, props.get("location"))
        external = props.get("external", "").lower() == "true" or location is not None
        if external:
            parameters["EXTERNAL"] = "TRUE"
        storage = Storage(location, classes.input_format, classes.output_format, classes.serde,
                          {**classes.serde_parameters, **serde_options})
        return Table(
            database=database,
            name=name,
            columns=tuple(columns[n] for n in data_names),
            partition_keys=tuple(columns[p] for p in partition_names),
            storage=storage,
            table_type=EXTERNAL_TABLE if external else MANAGED_TABLE,
            parameters=parameters,
            owner=props.get("owner"),
        )

    def _schema_properties(self, columns: list[Column], partition_keys: list[Column],
                           version: str) -> dict[str, str]:
        """The properties the built-in catalog keeps a table's Spark schema in (columns and
        partition columns named in Spark's case)."""
        struct = self._jvm.struct_type([*columns, *partition_keys], comments=True)
        return schema_properties(schema_json(self._jvm, struct),
                                 [c.name for c in partition_keys], version)

    def with_added_columns(self, table: Table, params: dict[str, str],
                           added: list[Column]) -> dict[str, str]:
        """``params`` (the new properties of ``table``) once ALTER TABLE adds the columns
        ``added`` (named as given): where Spark keeps the table's schema, or a name is not lower
        case, with the schema that has them, as the built-in catalog keeps it in agreement with
        the metastore's columns."""
        if not added or (spark_names(table) is None
                         and not needs_schema_properties([c.name for c in added])):
            return params
        cased = with_spark_case(table)
        version = table.parameters.get(CREATE_VERSION, str(self._jvm.spark.version))
        return {**without_schema_properties(params), **self._schema_properties(
            [*cased.columns, *added], list(cased.partition_keys), version)}

    def _classes(self, qualified: str, props: dict[str, str]) -> StorageClasses:
        """The storage classes of ``STORED AS``, ``ROW FORMAT SERDE`` and ``STORED AS
        INPUTFORMAT ... OUTPUTFORMAT``, or of the provider (``USING``); Parquet by default."""
        stored_as = props.get("hive.stored-as")
        provider = props.get("provider")
        serde = props.get("hive.serde")
        explicit = (props.get("hive.input-format"), props.get("hive.output-format"))
        hive_syntax = provider in (None, "hive")
        if stored_as is None and hive_syntax and (serde or any(
                key[len("option."):] in _ROW_FORMAT_DELIMITED for key in props
                if key.startswith("option."))):
            stored_as = "textfile"  # a ROW FORMAT alone: Hive's default format
        if explicit[0] and explicit[1]:
            classes = StorageClasses(explicit[0], explicit[1],
                                     f"{_HIVE}.serde2.lazy.LazySimpleSerDe")
        else:
            chosen = (stored_as or ("parquet" if hive_syntax else provider or "")).lower()
            if chosen not in _STORED_AS:
                self._illegal(f"hms table {qualified}: format {chosen!r} is not supported; "
                              f"use one of {', '.join(sorted(set(_STORED_AS) - {'text'}))}")
            classes = _STORED_AS[chosen]
        if serde:
            classes = replace(classes, serde=serde)
        return replace(classes, serde_parameters={"serialization.format": "1"})

    def format_of(self, source: Any) -> dict[str, str]:
        """``provider`` and ``option.*`` SerDe properties that recreate ``source``'s storage."""
        fmt: StorageFormat | None = None
        options: dict[str, str] = {}
        builtin = builtin_table_storage(self._jvm, source)
        if builtin is not None:  # a table of the built-in catalog
            input_format, serde, options = builtin
            fmt = StorageFormat.detect(input_format, serde)
            if fmt is None:
                self._illegal(f"hms cannot create a table like {source.name()}: it is stored "
                              f"with SerDe {serde}; hms creates parquet, orc and textfile tables")
        else:
            try:
                found = self.client.get_table(*str(source.name()).split(".", 1))
                fmt, options = found.format, dict(found.storage.serde_parameters)
            except (NoSuchTable, NoSuchNamespace, TypeError):
                pass
        if fmt is None:
            return {"provider": self._jvm.to_dict(source.properties()).get("provider", "")}
        return {"provider": fmt.name.lower(), **{f"option.{k}": v for k, v in options.items()}}

    def qualified_location(self, database: str, location: str | None) -> str | None:
        """``location`` as the built-in catalog stores it: a path without a scheme is a local
        path, and a relative one lies under the database's location."""
        if location is None:
            return None
        parsed = urlsplit(location)
        if parsed.scheme not in ("", "file") or (parsed.scheme == "file" and parsed.netloc):
            return location
        if posixpath.isabs(parsed.path):
            return "file:" + posixpath.normpath(parsed.path)
        try:
            base = self.client.get_database(database).location or ""
        except NoSuchNamespace:
            self._jvm.analysis_error("NoSuchNamespaceException", self._jvm.strings([database]))
        return base.rstrip("/") + "/" + posixpath.normpath(parsed.path)
