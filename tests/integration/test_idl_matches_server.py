"""The IDL in thrift_idl/ against the metastore server's own generated classes.

Every struct, exception, method argument list and method result in our bindings is compared,
field by field (id, name, wire type), with the Java classes in the metastore jar the embedded
server runs, read through the JVM of the test SparkSession.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from hmscatalog.metastore._thrift.fb303 import FacebookService
from hmscatalog.metastore._thrift.hive_metastore import ThriftHiveMetastore, ttypes

pytestmark = [pytest.mark.integration, pytest.mark.spark]

API = "org.apache.hadoop.hive.metastore.api"


def _python_fields(cls: type) -> dict[int, tuple[str, int]]:
    spec = cls.thrift_spec  # type: ignore[attr-defined]
    return {entry[0]: (entry[2], entry[1]) for entry in spec if entry is not None}


def _java_fields(jvm: Any, class_name: str) -> dict[int, tuple[str, int]]:
    from py4j.java_gateway import get_field

    cls = jvm.java.lang.Class.forName(class_name)
    meta = jvm.org.apache.thrift.meta_data.FieldMetaData.getStructMetaDataMap(cls)
    fields = {}
    for entry in meta.entrySet():
        key, value = entry.getKey(), entry.getValue()
        ttype = get_field(get_field(value, "valueMetaData"), "type")
        # Java describes enum fields as ENUM (16); on the wire they are I32 (8).
        wire_type = 8 if ttype == 16 else int(ttype)
        fields[int(key.getThriftFieldId())] = (str(key.getFieldName()), wire_type)
    return fields


def _structs() -> list[type]:
    return [
        obj for _, obj in inspect.getmembers(ttypes, inspect.isclass)
        if obj.__module__ == ttypes.__name__ and hasattr(obj, "thrift_spec")
    ]


def _methods(service: Any) -> list[str]:
    """Methods the service itself declares (not those inherited from fb303)."""
    return [name for name, obj in vars(service.Iface).items() if inspect.isfunction(obj)]


def test_structs_match(spark: Any) -> None:
    structs = _structs()
    assert len(structs) >= 25
    for cls in structs:
        assert _python_fields(cls) == _java_fields(spark._jvm, f"{API}.{cls.__name__}"), (
            cls.__name__
        )


def test_enum_values_match(spark: Any) -> None:
    java = spark._jvm.java.lang.Class.forName(f"{API}.PrincipalType").getEnumConstants()
    assert {str(v.name()): int(v.getValue()) for v in java} == ttypes.PrincipalType._NAMES_TO_VALUES


@pytest.mark.parametrize(
    ("service", "java_service"),
    [(ThriftHiveMetastore, f"{API}.ThriftHiveMetastore"),
     (FacebookService, "com.facebook.fb303.FacebookService")],
)
def test_method_arguments_and_results_match(spark: Any, service: Any, java_service: str) -> None:
    methods = _methods(service)
    assert methods
    for method in methods:
        for suffix in ("_args", "_result"):
            java_name = f"{java_service}${method}{suffix}"
            if not hasattr(service, method + suffix):  # oneway: no result on either side
                with pytest.raises(Exception, match="ClassNotFoundException"):
                    spark._jvm.java.lang.Class.forName(java_name)
                continue
            ours = _python_fields(getattr(service, method + suffix))
            assert ours == _java_fields(spark._jvm, java_name), method + suffix
