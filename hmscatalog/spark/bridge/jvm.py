"""Generic py4j plumbing: Java collections, schemas, exceptions, proxies.

Spark calls our catalog, table and scan objects through py4j callback proxies. A proxy does not
inherit Java default methods: every method Spark calls (``hashCode``, ``equals``, ``toString``
and interface defaults included) must exist on the Python object. :class:`JavaProxy` provides the
``java.lang.Object`` ones.

Spark classes that are not public API are used only in :mod:`hmscatalog.spark.internals`.
"""

from __future__ import annotations

import collections
import functools
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn

from py4j import protocol as proto
from py4j.java_gateway import JavaClass, JavaObject
from py4j.protocol import Py4JJavaError, get_command_part, get_return_value
from pyspark.errors.exceptions.captured import CapturedException

from hmscatalog.errors import HmsCatalogError
from hmscatalog.metastore.model import Column

CATALOG_PKG = "org.apache.spark.sql.connector.catalog"
# A Spark error condition whose message is "<message>" alone, without a "[CONDITION]" prefix.
BARE_MESSAGE_CONDITION = "_LEGACY_ERROR_TEMP_2273"


class JavaProxy:
    """Base of Python objects that implement Java interfaces for Spark.

    Every public method of a subclass is wrapped by :func:`_readable_errors`, so that whatever
    it raises reaches the user of ``spark.sql`` as one short first line naming the culprit,
    not as a Python traceback inside a Py4J error. Subclasses keep their :class:`Jvm` in
    ``self._jvm``.
    """

    _jvm: Jvm
    # No-argument methods whose answers stay the same until one of CHANGING is called, and
    # those that answer the object itself: Spark's repeated calls of them are answered in the
    # JVM once the object is handed over by :meth:`Jvm.for_spark`.
    REMEMBERED: tuple[str, ...] = ()
    CHANGING: tuple[str, ...] = ()
    ITSELF: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, member in list(vars(cls).items()):
            if callable(member) and not name.startswith("_") and not isinstance(member, type):
                setattr(cls, name, _readable_errors(member))

    def hashCode(self) -> int:
        return id(self) & 0x7FFFFFFF

    def equals(self, other: object) -> bool:
        return other is self

    def toString(self) -> str:
        return f"{type(self).__name__}@{id(self):x}"


def _readable_errors(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method``, with hmscatalog's errors (and unexpected Python ones) thrown in the JVM as
    a ``SparkRuntimeException`` whose message starts ``[HMS_<KIND>] <what was wrong>``, the way
    Spark's own errors read (see :meth:`Jvm.readable_error`). Java exceptions pass through
    unchanged."""

    @functools.wraps(method)
    def call(self: JavaProxy, *args: Any) -> Any:
        try:
            return _held(method(self, *args))
        except Py4JJavaError as exc:
            _held(exc.java_exception)
            raise
        except Exception as exc:
            where = f"{type(self).__name__}.{method.__name__}"
            self._jvm.throw(self._jvm.readable_error(exc, where))

    return call


# JVM objects that callbacks returned lately, with when. py4j answers a callback with the
# object's id alone, and when the last Python reference to a JavaObject goes, py4j's finalizer
# tells the JVM (on another connection, to another JVM thread) to forget that id: if that
# message wins the race with the answer, Spark gets null instead of the object (a table's
# columns, a plan, an exception), and analysis fails with an internal error. A callback's result
# is therefore held here for HOLD_S seconds, far longer than the answer takes to arrive.
HOLD_S = 10.0
_HOLD_MAX = 100_000
_handed: collections.deque[tuple[float, JavaObject]] = collections.deque()
_handed_lock = threading.Lock()


def _held(result: Any) -> Any:
    """``result``, held for a while first when it is a JVM object (see ``_handed``)."""
    if isinstance(result, JavaObject):
        now = time.monotonic()
        with _handed_lock:
            _handed.append((now, result))
            while _handed and (now - _handed[0][0] > HOLD_S or len(_handed) > _HOLD_MAX):
                _handed.popleft()
    return result


def error_kind(exc: BaseException) -> str:
    """``HMS_METASTORE_UNAVAILABLE`` for :class:`MetastoreUnavailable`, and so on
    (``HMS_CATALOG_ERROR`` for :class:`HmsCatalogError` itself); ``HMS_INTERNAL_ERROR`` for an
    exception that is not hmscatalog's own (a bug)."""
    if not isinstance(exc, HmsCatalogError):
        return "HMS_INTERNAL_ERROR"
    name = type(exc).__name__.removeprefix("Hms")
    return "HMS_" + re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


class Jvm:
    """Helpers over one SparkSession's py4j gateway."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.gateway = spark.sparkContext._gateway
        self.jsession = spark._jsparkSession
        self._classes: dict[str, JavaStatics] = {}
        self._made: dict[str, Any] = {}  # JVM objects made once: a pattern, methods, schemas

    def cls(self, name: str) -> Any:
        """The Java class ``name`` (fully qualified), for constructors and static members.

        py4j asks the JVM about every name it resolves (``jvm.a.b.C`` is one round trip per
        dot, ``C.m(...)`` one more before the call): classes and their members are looked up
        once per session and kept.
        """
        found = self._classes.get(name)
        if found is None:
            found = JavaStatics(JavaClass(name, self.gateway._gateway_client))
            self._classes[name] = found
        return found

    def once(self, key: str, make: Callable[[], Any]) -> Any:
        """The JVM object kept under ``key``, made by ``make()`` the first time (only for
        objects that never change: patterns, methods, schemas, constants)."""
        found = self._made.get(key)
        if found is None:
            if len(self._made) > 4096:  # many schemas seen: start over rather than grow
                self._made.clear()
            found = self._made[key] = make()
        return found

    def scala_object(self, name: str) -> Any:
        """The instance of the Scala ``object`` ``name`` (fully qualified)."""
        return getattr(self.cls(name + "$"), "MODULE$")

    def for_spark(self, proxy: JavaProxy) -> Any:
        """``proxy`` as Spark should hold it: behind ``io.hmscatalog.spark.Remembering``, which
        answers its ``REMEMBERED`` and ``ITSELF`` methods, ``equals`` and ``hashCode`` without a
        call into Python. (The Python object must not keep the wrapper: a reference from each
        side to the other is one that neither side's garbage collector can free.)"""
        return self.cls("io.hmscatalog.spark.Remembering").wrap(
            proxy, ",".join(proxy.REMEMBERED), ",".join(proxy.CHANGING), ",".join(proxy.ITSELF))

    # -- collections -----------------------------------------------------------------------

    def array(self, java_class: Any, items: Sequence[Any]) -> Any:
        arr = self.gateway.new_array(getattr(java_class, "java_class", java_class), len(items))
        for i, item in enumerate(items):
            self._element(arr, proto.ARRAY_SET_SUB_COMMAND_NAME, i, item)
        return arr

    def items(self, java_array: Any) -> list[Any]:
        """The elements of a Java array, in one py4j command each (py4j's own indexing asks for
        the array's length before every element)."""
        return [self._element(java_array, proto.ARRAY_GET_SUB_COMMAND_NAME, i)
                for i in range(len(java_array))]

    def string_items(self, java_array: Any) -> list[str]:
        """The elements of a Java ``String[]`` (no nulls), in two py4j commands."""
        count = len(java_array)
        if not count:
            return []
        joined = str(self.cls("io.hmscatalog.spark.Strings").join(java_array, "\0")).split("\0")
        if len(joined) == count:
            return joined
        return [str(item) for item in self.items(java_array)]  # an element holds a NUL

    def _element(self, java_array: Any, sub_command: str, *parts: Any) -> Any:
        pool = self.gateway.gateway_property.pool
        command = (proto.ARRAY_COMMAND_NAME + sub_command + java_array._get_object_id() + "\n"
                   + "".join(get_command_part(part, pool) for part in parts)
                   + proto.END_COMMAND_PART)
        client = java_array._gateway_client
        return get_return_value(client.send_command(command), client)

    def strings(self, items: Iterable[str]) -> Any:
        """A ``String[]``; in one py4j call when no item holds a NUL."""
        items = list(items)
        if not items or any("\0" in item for item in items):
            return self.array(self.cls("java.lang.String"), items)
        regex = self.cls("java.util.regex.Pattern")
        nul = self.once("pattern \\0", lambda: regex.compile("\0", regex.LITERAL))
        return nul.split("\0".join(items), -1)

    def strings2(self, rows: Sequence[Sequence[str]]) -> Any:
        """A ``String[][]``."""
        outer = self.gateway.new_array(self.cls("java.lang.String").java_class, len(rows), 0)
        for i, row in enumerate(rows):
            outer[i] = self.strings(row)
        return outer

    def hash_map(self, mapping: Mapping[str, Any]) -> Any:
        result = self.cls("java.util.HashMap")()
        for key, value in mapping.items():
            result.put(key, value)
        return result

    def hash_set(self, items: Iterable[Any] = ()) -> Any:
        result = self.cls("java.util.HashSet")()
        for item in items:
            result.add(item)
        return result

    def seq(self, items: Sequence[Any]) -> Any:
        """A Scala immutable ``Seq``."""
        java_list = self.cls("java.util.ArrayList")()
        for item in items:
            java_list.add(item)
        return self.cls("org.apache.spark.api.python.PythonUtils").toSeq(java_list)

    def java_list(self, seq: Any) -> Any:
        """A ``java.util.List`` view of a Scala ``Seq`` (its elements: :meth:`seq_elements`)."""
        return self.cls("scala.jdk.javaapi.CollectionConverters").asJava(seq)

    def elements(self, collection: Any) -> list[Any]:
        """The elements of a ``java.util.Collection``, in one py4j command each and two more.
        Never iterate one from Python: py4j's iterator ends on Java's NoSuchElementException,
        which PySpark's error handler takes tens of milliseconds to convert (a statement's
        analysis iterates several)."""
        return self.items(collection.toArray())

    def seq_elements(self, seq: Any) -> list[Any]:
        """The elements of a Scala ``Seq`` (see :meth:`elements`)."""
        return self.elements(self.java_list(seq))

    def java_map(self, scala_map: Any) -> Any:
        """A ``java.util.Map`` view of a Scala ``Map``."""
        return self.cls("scala.jdk.javaapi.CollectionConverters").asJava(scala_map)

    def hadoop_paths(self, locations: Sequence[str]) -> Any:
        """A Scala immutable ``Seq`` of Hadoop ``Path`` objects, in a few py4j calls."""
        paths = self.cls("org.apache.hadoop.util.StringUtils").stringToPath(
            self.strings(locations))
        return self.cls("scala.collection.immutable.ArraySeq").unsafeWrapArray(paths)

    def scala_map(self, mapping: Mapping[str, str]) -> Any:
        if not mapping:
            return self.scala_object("scala.collection.immutable.Map$EmptyMap")
        return self.cls("org.apache.spark.api.python.PythonUtils").toScalaMap(
            self.hash_map(mapping))

    def some(self, value: Any) -> Any:
        return self.cls("scala.Option").apply(value)

    def none(self) -> Any:
        return self.scala_object("scala.None")

    def to_dict(self, java_map: Any) -> dict[str, str]:
        if java_map is None:
            return {}
        return {str(k): str(java_map.get(k)) for k in self.elements(java_map.keySet())}

    def identifier(self, namespace: Sequence[str], name: str) -> Any:
        return self.cls(f"{CATALOG_PKG}.Identifier").of(self.strings(namespace), name)

    def struct_type(self, columns: Sequence[Column], comments: bool = False) -> Any:
        """A Spark ``StructType`` from metastore columns (Hive type strings), with their
        comments if ``comments`` (a table's schema, as DESCRIBE shows it; an empty comment is
        kept, as the built-in keeps it: Hive's AvroSerDe gives '' for a field without a doc)."""
        ddl = ", ".join(f"{quoted(col.name)} {col.type}"
                        + (f" COMMENT {sql_string(col.comment)}"
                           if comments and col.comment is not None else "")
                        for col in columns)
        struct = self.cls("org.apache.spark.sql.types.StructType")
        # StructType is immutable: one object per schema and session.
        return self.once(f"struct<{ddl}>", lambda: struct.fromDDL(ddl) if ddl else struct())

    @staticmethod
    def hive_type(data_type: Any) -> str:
        """The Hive type string of a Spark ``DataType``."""
        return str(data_type.catalogString())

    # -- calls and errors ------------------------------------------------------------------

    def call_default(self, obj: JavaObject, interface: str, method: str) -> Any:
        """Call an interface default method that ``obj``'s class does not override."""
        java_class = self.cls("java.lang.Class")
        found = self.once(f"{interface}#{method}", lambda: java_class.forName(interface).getMethod(
            method, self.array(java_class, [])))
        return found.invoke(obj, self.once("Object[0]", lambda: self.array(
            self.cls("java.lang.Object"), [])))

    def throw(self, exception: JavaObject) -> NoReturn:
        """Throw a Java exception from a callback (the method must declare it, or it must be
        unchecked: the JVM wraps anything else in UndeclaredThrowableException)."""
        raise Py4JJavaError(str(exception.getMessage()), _held(exception))

    def readable_error(self, exc: BaseException, where: str) -> Any:
        """An unchecked Spark exception for ``exc`` (see :func:`_readable_errors`) whose
        message is ``[HMS_<KIND>] <what was wrong>``; the Python traceback travels along as its
        cause, for logs and ``spark.sql.pyspark.jvmStacktrace.enabled``.

        Checked exceptions (``AnalysisException``) cannot leave a py4j proxy except where the
        Java method declares them, and Spark builds messages only for the error conditions it
        knows: ``SparkRuntimeException`` under a condition whose message is the bare
        ``<message>`` gives exactly our text, and PySpark raises it as its own
        ``SparkRuntimeException``. A Spark error that a call back into Spark raised keeps
        Spark's message (``[TABLE_OR_VIEW_NOT_FOUND] ...``)."""
        cause = self.cls("java.lang.RuntimeException")("".join(traceback.format_exception(exc)))
        if isinstance(exc, CapturedException):
            # Spark's own error, from a call hms made back into Spark (the query of a view
            # being created, analysed in the session): in Spark's words, condition first.
            return self.bare_error(exc.getMessage() or type(exc).__name__, cause)
        kind = error_kind(exc)
        message = str(exc).strip() or type(exc).__name__
        if kind == "HMS_INTERNAL_ERROR":
            message = f"hms failed in {where}: {type(exc).__name__}: {message}"
        return self.bare_error(f"[{kind}] {message}", cause)

    def bare_error(self, text: str, cause: Any) -> Any:
        """A ``SparkRuntimeException`` whose message is exactly ``text``."""
        try:
            return self.cls("org.apache.spark.SparkRuntimeException")(
                BARE_MESSAGE_CONDITION, self.scala_map({"message": text}), cause,
                self.array(self.cls("org.apache.spark.QueryContext"), []), "")
        except Py4JJavaError:  # a Spark without that condition: still one readable line
            return self.cls("java.lang.IllegalStateException")(text, cause)

    def unsupported(self, message: str) -> NoReturn:
        """Throw ``java.lang.UnsupportedOperationException(message)``."""
        self.throw(self.cls("java.lang.UnsupportedOperationException")(message))

    def illegal_argument(self, message: str) -> NoReturn:
        """Throw ``java.lang.IllegalArgumentException(message)``."""
        self.throw(self.cls("java.lang.IllegalArgumentException")(message))

    def analysis_error(self, name: str, *args: Any) -> NoReturn:
        """Throw ``org.apache.spark.sql.catalyst.analysis.<name>(*args)``."""
        self.throw(self.cls(f"org.apache.spark.sql.catalyst.analysis.{name}")(*args))

    def spark_error(self, kind: str, condition: str, **params: str) -> NoReturn:
        """Throw an unchecked Spark exception with an error condition, e.g.
        ``spark_error("SparkIllegalArgumentException", "SCHEMA_NOT_FOUND", schemaName="`x`")``."""
        self.throw(self.cls(f"org.apache.spark.{kind}")(condition, self.hash_map(params)))


class JavaStatics:
    """A Java class whose static members are looked up in the JVM once, then kept.

    Static fields are taken to be constants (enum values, ``MODULE$``, ``Pattern.LITERAL``).
    Calling the object calls the class's constructor.
    """

    def __init__(self, java_class: JavaClass) -> None:
        self.java_class = java_class
        self._members: dict[str, Any] = {}

    def __call__(self, *args: Any) -> Any:
        return self.java_class(*args)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        found = self._members.get(name)
        if found is None:
            found = self._members[name] = getattr(self.java_class, name)
        return found


def sql_string(text: str) -> str:
    """``text`` as a Spark SQL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def quoted(*parts: str) -> str:
    """Spark's display form of a multi-part name: ```a`.`b```."""
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


class NoMetrics(JavaProxy):
    """A scan, write or table that reports no custom metrics (Spark asks each of them)."""

    def supportedCustomMetrics(self) -> Any:
        return self._jvm.array(
            self._jvm.cls("org.apache.spark.sql.connector.metric.CustomMetric"), [])

    def reportDriverMetrics(self) -> Any:
        return self._jvm.array(
            self._jvm.cls("org.apache.spark.sql.connector.metric.CustomTaskMetric"), [])
