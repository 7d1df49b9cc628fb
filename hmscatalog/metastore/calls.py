"""The base of the metastore client: connections, the server's dialect and catalog, and the
translation of Thrift exceptions into hmscatalog's own.

Thrift stays inside this package: callers pass and receive :mod:`hmscatalog.metastore.model`
objects and catch :mod:`hmscatalog.errors` exceptions. Connection handling (failover, timeouts,
retries) lives in :mod:`hmscatalog.metastore.connection`, the pool of connections that
concurrent calls share in :mod:`hmscatalog.metastore.pool`, and what each metastore release
answers in :mod:`hmscatalog.metastore.dialect`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Self, TypeVar

from thrift.Thrift import TException

from hmscatalog.errors import (
    AlreadyExists,
    HmsCatalogError,
    InvalidObject,
    InvalidOperation,
    MetastoreError,
    NoSuchNamespace,
    NoSuchObject,
    NoSuchTable,
)
from hmscatalog.metastore import convert
from hmscatalog.metastore._thrift.hive_metastore import ttypes as t
from hmscatalog.metastore.cache import is_read, note_write
from hmscatalog.metastore.connection import (
    DEFAULT_BACKOFF_S,
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
)
from hmscatalog.metastore.dialect import Dialect
from hmscatalog.metastore.model import Event, Table
from hmscatalog.metastore.pool import DEFAULT_POOL_SIZE, MetastorePool
from hmscatalog.metastore.sasl import Kerberos
from hmscatalog.metastore.tls import Tls

_T = TypeVar("_T")

DEFAULT_CATALOG = "hive"  # metastore.catalog.default's default


class MetastoreCalls:
    """What every call of :class:`~hmscatalog.metastore.client.MetastoreClient` shares: the
    pool of connections, the server's dialect, the catalog, and the translation of errors
    (see that class for the arguments)."""

    def __init__(
        self,
        uris: str | Sequence[str],
        timeout_s: float = DEFAULT_TIMEOUT_S,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        retries: int = DEFAULT_RETRIES,
        backoff_s: float = DEFAULT_BACKOFF_S,
        pool_size: int = DEFAULT_POOL_SIZE,
        catalog: str | None = None,
        kerberos: Kerberos | None = None,
        tls: Tls | None = None,
    ) -> None:
        self._connection = MetastorePool(uris, timeout_s, connect_timeout_s, retries, backoff_s,
                                         pool_size, kerberos, tls)
        self._call = self._noted_call
        self._catalog = catalog or None
        self._catalog_checked = False

    def _noted_call(self, method: str, *args: Any) -> Any:
        """A Thrift call; one that may change metadata is noted, before it is sent and after it
        returns, so that caches of this process do not answer from before it
        (:mod:`hmscatalog.metastore.cache`)."""
        if is_read(method):
            return self._connection.call(method, *args)
        note_write(method, args)
        try:
            return self._connection.call(method, *args)
        finally:
            note_write(method, args)

    @property
    def uris(self) -> list[str]:
        return self._connection.uris

    @property
    def catalog(self) -> str | None:
        return self._catalog

    @property
    def connected_to(self) -> str | None:
        """The address of the server the client is connected to (by the connection used
        last), if any."""
        return self._connection.connected_to

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every connection (calls under way finish first; the next call reconnects)."""
        self._connection.close()

    def _dialect(self) -> Dialect:
        """What the server speaks; the first time, also that it has the catalog asked for.

        Raises:
            NoSuchObject: naming the catalog when the server does not have it, or has no
                catalogs at all (Hive 2.x).
        """
        dialect = self._connection.dialect()
        if self._catalog is not None and not self._catalog_checked:
            where = self.connected_to or self.uris[0]
            if not dialect.catalogs:
                raise NoSuchObject(
                    f"metastore catalog {self._catalog!r} was asked for, but the metastore at "
                    f"{where} is {dialect.label}, which has no catalogs"
                )
            with self._errors():
                known = list(self._call("get_catalogs").names or [])
            if self._catalog not in known:
                raise NoSuchObject(f"metastore catalog {self._catalog!r} does not exist at "
                                   f"{where} (it has: {', '.join(sorted(known))})")
            self._catalog_checked = True
        return dialect

    def dialect(self) -> Dialect:
        """What the metastore speaks (its release line), found out when a connection opens."""
        return self._dialect()

    def _catalog_field(self) -> str | None:
        """The value of request fields named ``catName`` (unset: the server's default)."""
        if self._catalog is None:
            return None
        self._dialect()
        return self._catalog

    def _db(self, name: str) -> str:
        """A database name as calls without a catalog field take it (``@catalog#name``)."""
        if self._catalog is None:
            return name
        self._dialect()
        return f"@{self._catalog}#{name}"

    def _in_catalog(self, struct: _T) -> _T:
        """``struct`` with its catalog field set to the client's catalog (if one was named)."""
        catalog = self._catalog_field()
        if catalog is not None:
            setattr(struct, "catalogName" if isinstance(struct, t.Database) else "catName",
                    catalog)
        return struct

    @contextlib.contextmanager
    def _errors(
        self,
        missing: Callable[[str], HmsCatalogError] | None = None,
        exists: str | None = None,
        database: str | None = None,
        invalid: Callable[[str], HmsCatalogError] | None = None,
    ) -> Iterator[None]:
        """Translate Thrift exceptions into hmscatalog's own, with messages naming the object."""
        try:
            yield
        except HmsCatalogError:
            raise
        except (t.NoSuchObjectException, t.UnknownTableException, t.UnknownDBException,
                t.UnknownPartitionException, t.InvalidPartitionException) as exc:
            message = convert.message_of(exc)
            if database is not None and not isinstance(exc, t.UnknownTableException):
                self._require_database(database, exc)
            if missing is not None:
                raise missing(message) from exc
            raise NoSuchObject(message) from exc
        except t.AlreadyExistsException as exc:
            raise AlreadyExists(exists or convert.message_of(exc)) from exc
        except t.InvalidObjectException as exc:
            message = convert.message_of(exc)
            if database is not None:
                self._require_database(database, exc)
            raise InvalidObject(message) from exc
        except t.InvalidOperationException as exc:
            raise InvalidOperation(convert.message_of(exc)) from exc
        except t.MetaException as exc:
            message = convert.message_of(exc)
            if database is not None:
                self._require_database(database, exc)
            if invalid is not None:
                raise invalid(message) from exc
            raise MetastoreError(message) from exc
        except TException as exc:
            raise MetastoreError(convert.message_of(exc)) from exc

    def _require_database(self, database: str, cause: Exception) -> None:
        try:
            self._call("get_database", self._db(database))
        except t.NoSuchObjectException:
            raise NoSuchNamespace(f"database {database!r} does not exist") from cause
        except Exception:
            return  # the check itself failed: the caller reports the original error

    def _missing_table(self, database: str, name: str) -> Callable[[str], HmsCatalogError]:
        return lambda _: NoSuchTable(f"table {database}.{name} does not exist")

    def get_table(self, database: str, name: str) -> Table:
        with self._errors(missing=self._missing_table(database, name), database=database):
            # Declared so that Hive 3 hands over insert-only ACID tables at all: the Spark
            # layer then refuses to read or write them, naming the table and its properties.
            capabilities = t.ClientCapabilities([t.ClientCapability.INSERT_ONLY_TABLES])
            request = t.GetTableRequest(dbName=database, tblName=name,
                                        catName=self._catalog_field(),
                                        capabilities=capabilities)
            return convert.table_from_thrift(self._call("get_table_req", request).table)

    def table_exists(self, database: str, name: str) -> bool:
        try:
            self.get_table(database, name)
        except NoSuchTable:
            return False
        return True

    # -- catalogs (Hive 3.0 on) ------------------------------------------------------------

    def list_catalogs(self) -> list[str]:
        """The metastore's catalogs (Hive 3.0 on; a 2.x metastore has none).

        Raises:
            MetastoreError: on a 2.x metastore.
        """
        self._require_catalogs("list catalogs")
        with self._errors():
            return sorted(self._call("get_catalogs").names or [])

    def create_catalog(self, name: str, location: str, description: str | None = None) -> None:
        """Create a catalog whose databases default to locations under ``location``.

        Raises:
            AlreadyExists: if it exists.
            MetastoreError: on a 2.x metastore.
        """
        self._require_catalogs(f"create catalog {name!r}")
        request = t.CreateCatalogRequest(t.Catalog(name, description, location))
        with self._errors(exists=f"metastore catalog {name!r} already exists"):
            self._call("create_catalog", request)

    def drop_catalog(self, name: str, if_exists: bool = False) -> None:
        """Drop an empty catalog.

        Raises:
            NoSuchObject: if it does not exist and ``if_exists`` is false.
            InvalidOperation: if it still holds databases.
        """
        self._require_catalogs(f"drop catalog {name!r}")
        try:
            with self._errors(missing=lambda _: NoSuchObject(
                    f"metastore catalog {name!r} does not exist")):
                self._call("drop_catalog", t.DropCatalogRequest(name))
        except NoSuchObject:
            if not if_exists:
                raise

    def _require_catalogs(self, what: str) -> None:
        dialect = self._connection.dialect()
        if not dialect.catalogs:
            raise MetastoreError(f"cannot {what}: the metastore at "
                                 f"{self.connected_to or self.uris[0]} is {dialect.label}, "
                                 "which has no catalogs")

    def get_config_value(self, name: str, default: str = "") -> str:
        """A configuration value of the metastore server."""
        with self._errors():
            return str(self._call("get_config_value", name, default))

    # -- the notification log ----------------------------------------------------------------

    def current_event_id(self) -> int:
        """The id of the newest event in the metastore's notification log (0: none yet)."""
        with self._errors():
            return int(self._call("get_current_notificationEventId").eventId)

    def next_events(self, last: int, limit: int = 1000) -> list[Event]:
        """The log's events after id ``last``, oldest first, at most ``limit`` of them."""
        with self._errors():
            found = self._call("get_next_notification",
                               t.NotificationEventRequest(last, limit)).events or []
        return [Event(e.eventId, e.eventTime, e.eventType,
                      e.dbName.lower() if e.dbName else None,
                      e.tableName.lower() if e.tableName else None,
                      e.message or "", e.messageFormat) for e in found]
