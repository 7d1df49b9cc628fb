"""Catalyst, Spark's internal expression and row layer (``org.apache.spark.sql.catalyst``):
expressions the file writer evaluates per row, and partition values as ``InternalRow``.

Expressions are built by their case classes' primary constructors, which Spark changes between
releases more readily than anything public. Checked in Spark 4.0 to 4.3 (same signatures in all
four).
"""

from __future__ import annotations

import decimal
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hmscatalog.spark.bridge.jvm import Jvm

EXPRESSIONS = "org.apache.spark.sql.catalyst.expressions"


class Expressions:
    """Constructors of Catalyst expressions, named after their classes in
    ``org.apache.spark.sql.catalyst.expressions``; arguments are expressions unless said
    otherwise."""

    def __init__(self, jvm: Jvm) -> None:
        self.jvm = jvm
        self._literal = jvm.scala_object(f"{EXPRESSIONS}.Literal")

    def _new(self, name: str, *args: Any) -> Any:
        return self.jvm.cls(f"{EXPRESSIONS}.{name}")(*args)

    def literal(self, value: Any) -> Any:
        """``Literal(value)`` of a Python ``int`` or ``str`` (``Literal.apply``)."""
        return self._literal.apply(value)

    def if_(self, condition: Any, then: Any, otherwise: Any) -> Any:
        return self._new("If", condition, then, otherwise)

    def equal_to(self, left: Any, right: Any) -> Any:
        return self._new("EqualTo", left, right)

    def less_than_or_equal(self, left: Any, right: Any) -> Any:
        return self._new("LessThanOrEqual", left, right)

    def and_(self, left: Any, right: Any) -> Any:
        return self._new("And", left, right)

    def or_(self, left: Any, right: Any) -> Any:
        return self._new("Or", left, right)

    def not_(self, child: Any) -> Any:
        return self._new("Not", child)

    def is_null(self, child: Any) -> Any:
        return self._new("IsNull", child)

    def bitwise_or(self, left: Any, right: Any) -> Any:
        return self._new("BitwiseOr", left, right)

    def contains(self, left: Any, right: Any) -> Any:
        return self._new("Contains", left, right)

    def octet_length(self, child: Any) -> Any:
        return self._new("OctetLength", child)

    def regexp_replace(self, subject: Any, regexp: Any, replacement: Any) -> Any:
        return self._new("RegExpReplace", subject, regexp, replacement)

    def string_replace(self, source: Any, search: Any, replacement: Any) -> Any:
        return self._new("StringReplace", source, search, replacement)

    def substring(self, source: Any, position: Any, length: Any) -> Any:
        return self._new("Substring", source, position, length)

    def concat(self, children: Sequence[Any]) -> Any:
        return self._new("Concat", self.jvm.seq(list(children)))

    def string_map(self, children: Sequence[Any]) -> Any:
        """``CreateMap`` of alternating keys and values (``useStringTypeWhenEmpty`` off)."""
        return self._new("CreateMap", self.jvm.seq(list(children)), False)

    def raise_int_error(self, error_class: Any, parameters: Any) -> Any:
        """``RaiseError`` of an error condition and a map of its parameters, typed INT
        (``RaiseError.apply(errorClass, errorParms, dataType)``)."""
        integer = self.jvm.scala_object("org.apache.spark.sql.types.IntegerType")
        return self.jvm.scala_object(f"{EXPRESSIONS}.RaiseError").apply(
            error_class, parameters, integer)


def writer_bucket_spec(jvm: Jvm, bucket_id: Any) -> Any:
    """``Some(WriterBucketSpec(bucket_id, _ => ""))``: the per-row "bucket id" expression
    Spark's ``FileFormatDataWriter`` evaluates before it opens a row's file, with no bucket
    prefix in file names (``org.apache.spark.sql.execution.datasources.WriterBucketSpec``)."""
    no_prefix = jvm.scala_map({}).withDefaultValue("")  # a Scala Int => String giving ""
    spec = jvm.scala_object("org.apache.spark.sql.execution.datasources.WriterBucketSpec")
    return jvm.some(spec.apply(bucket_id, no_prefix))


_CASTING = threading.Lock()  # see cast_strings


def cast_strings(jvm: Jvm, values: Sequence[str | None], types: Sequence[str],
                 time_zone: str, ansi: bool = False) -> Any:
    """An ``InternalRow`` of ``values`` (``None`` is NULL) cast from strings to the Spark
    types ``types`` (DDL names; ``"string"`` keeps the value) by Spark's ``Cast`` in
    ``time_zone``: non-ANSI (a malformed value is NULL), or with ``ansi`` ANSI (a malformed
    value raises Spark's ``CAST_INVALID_INPUT``).

    The row starts as a ``GenericInternalRow`` of ``UTF8String``; the cast projection is made
    once per session and type list. It is interpreted, not generated: every generated
    projection class has the same name, and py4j, which looks methods up by class name, would
    call the first one's ``apply`` on the next (``object is not an instance of declaring
    class``) once two type lists were used.
    """
    utf8 = jvm.cls("org.apache.spark.unsafe.types.UTF8String")
    strings = [None if value is None else utf8.fromString(value) for value in values]
    row = jvm.cls(f"{EXPRESSIONS}.GenericInternalRow")(
        jvm.array(jvm.cls("java.lang.Object"), strings))

    def make() -> Any:
        string = jvm.scala_object("org.apache.spark.sql.types.StringType")
        data_type = jvm.scala_object("org.apache.spark.sql.types.DataType")
        modes = jvm.scala_object(f"{EXPRESSIONS}.EvalMode")
        mode = modes.ANSI() if ansi else modes.LEGACY()
        casts = [jvm.cls(f"{EXPRESSIONS}.Cast")(
            jvm.cls(f"{EXPRESSIONS}.BoundReference")(i, string, True),
            data_type.fromDDL(kind), jvm.some(time_zone), mode)
            for i, kind in enumerate(types)]
        return jvm.scala_object(f"{EXPRESSIONS}.UnsafeProjection").createInterpretedObject(
            jvm.seq(casts))

    caster = jvm.once(
        f"partition-caster<{','.join(types)}>@{time_zone}{'/ansi' if ansi else ''}", make)
    # The projection writes every row into one row of its own, which the copy then takes:
    # between the two calls another thread's apply would put its values there.
    with _CASTING:
        return caster.apply(row).copy()


def decimal_value(value: Any) -> decimal.Decimal:
    """A Catalyst ``Decimal`` (``org.apache.spark.sql.types.Decimal``: a row's DECIMAL value, a
    V2 literal's ``value()``) as a Python ``Decimal`` of the same digits and scale.

    ``toJavaBigDecimal`` returns a ``java.math.BigDecimal``, which py4j hands to Python already
    converted to a ``decimal.Decimal``; a Java object (a gateway that converts nothing) is read
    from its plain string."""
    big = value.toJavaBigDecimal()
    if isinstance(big, decimal.Decimal):
        return big
    return decimal.Decimal(str(big.toPlainString()))
