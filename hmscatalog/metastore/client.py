"""A typed client for the Hive Metastore's Thrift API: :class:`MetastoreClient`.

Its databases and tables calls are here; partition calls are in
:mod:`hmscatalog.metastore.partition_calls`, and connections, dialects, catalogs and error
translation in :mod:`hmscatalog.metastore.calls`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from hmscatalog.errors import (
    AlreadyExists,
    HmsCatalogError,
    InvalidOperation,
    NoSuchNamespace,
    NoSuchTable,
)
from hmscatalog.metastore import convert
from hmscatalog.metastore.connection import parse_uris
from hmscatalog.metastore.model import (
    EXTERNAL_TABLE,
    MANAGED_TABLE,
    VIRTUAL_VIEW,
    Column,
    Database,
    Storage,
    StorageFormat,
    Table,
)
from hmscatalog.metastore.partition_calls import ADD_BATCH, GET_BATCH, PartitionCalls
from hmscatalog.metastore.sasl import Kerberos
from hmscatalog.metastore.tls import Tls

__all__ = ["ADD_BATCH", "GET_BATCH", "MetastoreClient", "parse_uris", "ping"]


class MetastoreClient(PartitionCalls):
    """A typed Hive Metastore client, safe to share between threads.

    Concurrent calls each use a connection of their own from a pool of up to ``pool_size``
    (opened as calls overlap); calls beyond that wait for a free connection.

    Args:
        uris: ``thrift://host:port`` addresses, tried in order (see
            :mod:`hmscatalog.metastore.connection` for failover and retries).
        timeout_s: socket timeout for each call.
        connect_timeout_s: socket timeout while connecting.
        retries: how many times a call is retried after transport errors.
        backoff_s: first delay between retries, doubled each time.
        pool_size: how many connections concurrent calls may open (a whole number >= 1).
        catalog: the metastore catalog (Hive 3.0 on) holding the databases; by default the
            server's own default (``metastore.catalog.default``, ``hive`` unless changed).
        kerberos: authenticate with Kerberos (:class:`~hmscatalog.metastore.sasl.Kerberos`),
            as a metastore with ``hive.metastore.sasl.enabled`` requires.
        tls: speak TLS (:class:`~hmscatalog.metastore.tls.Tls`), as a metastore with
            ``metastore.use.SSL`` requires.

    Raises:
        InvalidUri: at construction for malformed URIs; nothing connects until the first call.
        InvalidSetting: at construction for a ``pool_size`` that is not a whole number >= 1.
    """

    # -- databases -------------------------------------------------------------------------

    def list_databases(self, pattern: str | None = None) -> list[str]:
        """Database names, optionally matching a Hive pattern (``*`` wildcards, ``|`` choices)."""
        with self._errors():
            if pattern is None:
                if self._catalog is None:
                    return list(self._call("get_all_databases"))
                return list(self._call("get_databases", self._db("*")))
            return list(self._call("get_databases", self._db(pattern)))

    def get_database(self, name: str) -> Database:
        with self._errors(missing=lambda _: NoSuchNamespace(f"database {name!r} does not exist")):
            return convert.database_from_thrift(self._call("get_database", self._db(name)))

    def database_exists(self, name: str) -> bool:
        try:
            self.get_database(name)
        except NoSuchNamespace:
            return False
        return True

    def create_database(
        self,
        name: str,
        location: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, str] | None = None,
        owner: str | None = None,
        if_not_exists: bool = False,
    ) -> None:
        """Create a database (its location defaults to ``<warehouse>/<name>.db``).

        Raises:
            AlreadyExists: if it exists and ``if_not_exists`` is false.
        """
        db = Database(name, location, description, dict(parameters or {}), owner)
        try:
            with self._errors(exists=f"database {name!r} already exists"):
                self._call("create_database", self._in_catalog(convert.database_to_thrift(db)))
        except AlreadyExists:
            if not if_not_exists:
                raise

    def alter_database(self, database: Database) -> None:
        """Replace a database's parameters and owner (Hive 2.3 ignores description changes).

        Raises:
            NoSuchNamespace: if it does not exist (checked first: the 2.3 server accepts an
                alter of a missing database silently).
        """
        self.get_database(database.name)
        with self._errors(
            missing=lambda _: NoSuchNamespace(f"database {database.name!r} does not exist")
        ):
            self._call("alter_database", self._db(database.name),
                       self._in_catalog(convert.database_to_thrift(database)))

    def drop_database(
        self, name: str, cascade: bool = False, delete_data: bool = True, if_exists: bool = False
    ) -> None:
        """Drop a database; ``cascade`` drops its tables too.

        Raises:
            NoSuchNamespace: if it does not exist and ``if_exists`` is false.
            InvalidOperation: if it holds tables and ``cascade`` is false.
        """
        try:
            missing = lambda _: NoSuchNamespace(f"database {name!r} does not exist")  # noqa: E731
            # The metastore answers an unknown database here with a bare MetaException.
            with self._errors(missing=missing, database=name):
                self._call("drop_database", self._db(name), delete_data, cascade)
        except NoSuchNamespace:
            if not if_exists:
                raise

    # -- tables ----------------------------------------------------------------------------

    def create_table(self, table: Table, if_not_exists: bool = False) -> Table:
        """Create ``table`` and return it as the metastore stored it (location filled in).

        Raises:
            NoSuchNamespace: if its database does not exist.
            AlreadyExists: if it exists and ``if_not_exists`` is false.
            InvalidObject: if the metastore rejects the definition.
        """
        try:
            with self._errors(
                exists=f"table {table.qualified_name} already exists", database=table.database
            ):
                self._call("create_table", self._in_catalog(convert.table_to_thrift(table)))
        except AlreadyExists:
            if not if_not_exists:
                raise
        return self.get_table(table.database, table.name)

    def new_table(
        self,
        database: str,
        name: str,
        columns: Iterable[Column | tuple[str, str]],
        partition_keys: Iterable[Column | tuple[str, str]] = (),
        format: StorageFormat | str = StorageFormat.PARQUET,
        location: str | None = None,
        external: bool = False,
        parameters: Mapping[str, str] | None = None,
        if_not_exists: bool = False,
    ) -> Table:
        """Create a table from plain arguments; see :meth:`create_table`."""
        cols = tuple(c if isinstance(c, Column) else Column(*c) for c in columns)
        keys = tuple(c if isinstance(c, Column) else Column(*c) for c in partition_keys)
        params = dict(parameters or {})
        if external:
            params.setdefault("EXTERNAL", "TRUE")
        table = Table(
            database=database,
            name=name,
            columns=cols,
            partition_keys=keys,
            storage=Storage.of(StorageFormat.parse(format), location),
            table_type=EXTERNAL_TABLE if external else MANAGED_TABLE,
            parameters=params,
        )
        return self.create_table(table, if_not_exists=if_not_exists)

    def list_tables(self, database: str, pattern: str | None = None) -> list[str]:
        """Table names in ``database``, optionally matching a Hive pattern."""
        missing = lambda _: NoSuchNamespace(f"database {database!r} does not exist")  # noqa: E731
        with self._errors(missing=missing, database=database):
            names = (
                self._call("get_all_tables", self._db(database))
                if pattern is None
                else self._call("get_tables", self._db(database), pattern)
            )
        if not names:
            # The metastore answers an unknown database with an empty list.
            self.get_database(database)
        return list(names)

    def list_views(self, database: str) -> list[str]:
        """The names of the views (``VIRTUAL_VIEW``) in ``database``."""
        missing = lambda _: NoSuchNamespace(f"database {database!r} does not exist")  # noqa: E731
        with self._errors(missing=missing, database=database):
            found = self._call("get_table_meta", self._db(database), "*", [VIRTUAL_VIEW])
        if not found:
            self.get_database(database)
        return sorted(meta.tableName for meta in found or [])

    def alter_table(self, table: Table, cascade: bool = False) -> None:
        """Replace a table's definition (columns, storage, parameters; a new name renames it)."""
        with self._errors(
            missing=self._missing_table(table.database, table.name),
            database=table.database,
            invalid=InvalidOperation,
        ):
            self._call("alter_table_with_cascade", self._db(table.database), table.name,
                       self._in_catalog(convert.table_to_thrift(table)), cascade)

    def rename_table(self, database: str, name: str, new_database: str, new_name: str) -> None:
        table = self.get_table(database, name)
        thrift_table = self._in_catalog(
            convert.table_to_thrift(replace(table, database=new_database, name=new_name)))
        with self._errors(
            missing=self._missing_table(database, name),
            database=database,
            invalid=InvalidOperation,
        ):
            self._call("alter_table", self._db(database), name, thrift_table)

    def alter_table_parameters(
        self,
        database: str,
        name: str,
        set: Mapping[str, str] | None = None,
        unset: Iterable[str] = (),
    ) -> Table:
        """Set and unset table parameters; returns the table as stored afterwards."""
        table = self.get_table(database, name)
        params = dict(table.parameters)
        params.update(set or {})
        for key in unset:
            params.pop(key, None)
        self.alter_table(table.with_parameters(params))
        return self.get_table(database, name)

    def drop_table(
        self, database: str, name: str, delete_data: bool = True, if_exists: bool = False
    ) -> None:
        """Drop a table; for a managed table ``delete_data`` also deletes its files.

        Raises:
            NoSuchTable: if it does not exist and ``if_exists`` is false.
        """
        try:
            with self._errors(missing=self._missing_table(database, name), database=database):
                self._call("drop_table", self._db(database), name, delete_data)
        except NoSuchTable:
            if not if_exists:
                raise


def ping(uri: str, timeout_s: float = 5.0, kerberos: Kerberos | None = None,
         tls: Tls | None = None) -> bool:
    """Whether a metastore at ``uri`` answers ``get_all_databases`` within ``timeout_s``."""
    client = MetastoreClient(uri, timeout_s=timeout_s, connect_timeout_s=timeout_s, retries=0,
                             kerberos=kerberos, tls=tls)
    try:
        client.list_databases()
    except HmsCatalogError:
        return False
    finally:
        client.close()
    return True
