"""``ALTER TABLE ... PARTITION (...) SET LOCATION`` and ``ALTER TABLE ... [PARTITION (...)] SET
SERDE | SET SERDEPROPERTIES`` on hms tables, which Spark refuses for catalogs other than its own;
answered from the analyzer rule (:mod:`hmscatalog.spark.session.hooks`) as the built-in catalog does
them: the metastore's definition changes, no file moves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Storage, Table
from hmscatalog.spark.bridge.jvm import Jvm
from hmscatalog.spark.statements.partitions import named_partition


def set_partition_location(jvm: Jvm, client: MetastoreClient, catalog: str, table: Table,
                           given: Mapping[str, str], location: str, time_zone: str) -> None:
    """Point one partition at ``location`` (already qualified)."""
    part = named_partition(jvm, client, catalog, table, given, time_zone)
    client.alter_partitions(table.database, table.name, [
        replace(part, storage=replace(part.storage, location=location))])


def set_serde(jvm: Jvm, client: MetastoreClient, catalog: str, table: Table,
              serde: str | None, properties: Mapping[str, str],
              given: Mapping[str, str] | None, time_zone: str) -> None:
    """Give the table (or the partition ``given`` names) another SerDe class and/or more SerDe
    properties, kept with those it has."""
    def changed(storage: Storage) -> Storage:
        return replace(storage, serde=serde or storage.serde,
                       serde_parameters={**storage.serde_parameters, **properties})

    if given is None:
        client.alter_table(replace(table, storage=changed(table.storage)))
        return
    part = named_partition(jvm, client, catalog, table, given, time_zone)
    client.alter_partitions(table.database, table.name,
                            [replace(part, storage=changed(part.storage))])
