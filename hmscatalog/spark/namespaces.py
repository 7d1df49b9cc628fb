"""The namespaces of the ``hms`` catalog: Spark's SupportsNamespaces over metastore databases."""

from __future__ import annotations

from typing import Any

from hmscatalog.errors import AlreadyExists, InvalidOperation, NoSuchNamespace
from hmscatalog.metastore.client import MetastoreClient
from hmscatalog.metastore.model import Database
from hmscatalog.spark.bridge.jvm import JavaProxy, Jvm, quoted


class HmsNamespaces(JavaProxy):
    """Spark's namespaces of an hms catalog: one level, the metastore's databases."""

    _jvm: Jvm
    client: MetastoreClient

    def _no_such_namespace(self, *parts: str) -> Any:
        self._jvm.analysis_error("NoSuchNamespaceException", self._jvm.strings(parts))

    def _database(self, namespace: Any) -> str:
        parts = [str(p) for p in namespace]
        if len(parts) != 1:
            self._no_such_namespace(*parts)
        return parts[0]

    def listNamespaces(self, *args: Any) -> Any:
        if args and len(args[0]):
            database = self._database(args[0])
            if not self.client.database_exists(database):
                self._no_such_namespace(database)
            return self._jvm.strings2([])
        return self._jvm.strings2([[name] for name in self.client.list_databases()])

    def namespaceExists(self, namespace: Any) -> bool:
        parts = list(namespace)
        return len(parts) == 1 and self.client.database_exists(str(parts[0]))

    def loadNamespaceMetadata(self, namespace: Any) -> Any:
        database = self._database(namespace)
        try:
            db = self.client.get_database(database)
        except NoSuchNamespace:
            self._no_such_namespace(database)
        metadata = dict(db.parameters)
        if db.description:
            metadata["comment"] = db.description
        if db.location:
            metadata["location"] = db.location
        if db.owner:
            metadata["owner"] = db.owner
        return self._jvm.hash_map(metadata)

    def createNamespace(self, namespace: Any, properties: Any) -> None:
        parts = [str(p) for p in namespace]
        if len(parts) != 1:
            self._jvm.throw(self._jvm.cls("java.lang.IllegalArgumentException")(
                f"hms namespaces are metastore databases: {quoted(*parts)} has "
                f"{len(parts)} parts, expected 1"))
        props = self._jvm.to_dict(properties)
        location = props.pop("location", None)
        comment = props.pop("comment", None)
        owner = props.pop("owner", None)
        try:
            self.client.create_database(parts[0], location=location, description=comment,
                                        parameters=props, owner=owner)
        except AlreadyExists:
            self._jvm.analysis_error("NamespaceAlreadyExistsException", self._jvm.strings(parts))

    def alterNamespace(self, namespace: Any, changes: Any) -> None:
        database = self._database(namespace)
        try:
            db = self.client.get_database(database)
        except NoSuchNamespace:
            self._no_such_namespace(database)
        params = dict(db.parameters)
        location, owner = db.location, db.owner
        for change in changes:
            key = str(change.property())
            if str(change.getClass().getSimpleName()) == "SetProperty":
                value = str(change.value())
                if key == "location":
                    location = value
                elif key == "owner":
                    owner = value
                else:
                    params[key] = value
            else:
                params.pop(key, None)
        self.client.alter_database(
            Database(db.name, location, db.description, params, owner))

    def dropNamespace(self, namespace: Any, cascade: bool) -> bool:
        database = self._database(namespace)
        try:
            self.client.drop_database(database, cascade=cascade)
        except NoSuchNamespace:
            self._no_such_namespace(database)
        except InvalidOperation:
            self._jvm.analysis_error("NonEmptyNamespaceException", self._jvm.strings([database]))
        return True
