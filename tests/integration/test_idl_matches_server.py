"""The IDL in thrift_idl/ against the metastore servers' own generated classes, release by release.

Every struct, exception, method argument list and method result in our bindings is compared,
field by field (id, name, wire type), with the Java classes in the jars each embedded release
runs (2.3 from the pyspark wheel; 3.1, 4.0 and 4.x from Maven Central, fetched on first use),
read by a small Java program (``thrift_shape/ThriftShape.java``) run on that class path.

Newer releases add fields; a field we declare that an older release lacks is skipped by that
server. So for each release: every field both sides have agrees, and the newest release has every
field we declare. The calls a release does not answer are exactly those
:data:`hmscatalog.metastore.dialect.LACKS` says, which is what the client relies on.
"""

from __future__ import annotations

import inspect
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hmscatalog import jars
from hmscatalog.metastore._thrift.fb303 import FacebookService
from hmscatalog.metastore._thrift.hive_metastore import ThriftHiveMetastore, ttypes
from hmscatalog.metastore.dialect import LACKS
from hmscatalog.metastore.releases import RELEASES
from hmscatalog.metastore.server import find_java, find_spark_jars

pytestmark = pytest.mark.integration

API = "org.apache.hadoop.hive.metastore.api"
SERVICE = f"{API}.ThriftHiveMetastore"
FB303 = "com.facebook.fb303.FacebookService"
TOOL = Path(__file__).parent / "thrift_shape" / "ThriftShape.java"
NEWEST = "4.x"
MAJOR = {"2.3": 2, "3.1": 3, "4.0": 4, "4.x": 4}
# Structs only the calls a release may lack use.
STRUCTS_OF = {
    "get_catalogs": {"GetCatalogsResponse"},
    "create_catalog": {"Catalog", "CreateCatalogRequest"},
    "drop_catalog": {"DropCatalogRequest"},
    "get_partitions_by_filter_req": {"GetPartitionsByFilterRequest"},
    "get_partitions_by_names_req": {"GetPartitionsByNamesRequest", "GetPartitionsByNamesResult"},
    "create_table_req": {"CreateTableRequest"},
}

# Where releases disagree, the IDL follows 3.1 and later (see thrift_idl/hive_metastore.thrift):
# on 2.3, these result fields carry an exception of the same wire shape under another name.
READ_DIFFERENTLY = {("2.3", "get_partition_names_result"): {1}}

Fields = dict[int, tuple[str, int]]


def _python_fields(cls: type) -> Fields:
    spec = cls.thrift_spec  # type: ignore[attr-defined]
    return {entry[0]: (entry[2], entry[1]) for entry in spec if entry is not None}


def _structs() -> list[type]:
    return [
        obj for _, obj in inspect.getmembers(ttypes, inspect.isclass)
        if obj.__module__ == ttypes.__name__ and hasattr(obj, "thrift_spec")
    ]


def _methods(service: Any) -> list[str]:
    """Methods the service itself declares (not those inherited from fb303)."""
    return [name for name, obj in vars(service.Iface).items() if inspect.isfunction(obj)]


def _wanted() -> list[str]:
    names = [f"{API}.{cls.__name__}" for cls in _structs()]
    names += [f"{API}.PrincipalType", f"{API}.ClientCapability"]
    for service, java in ((ThriftHiveMetastore, SERVICE), (FacebookService, FB303)):
        for method in _methods(service):
            names += [f"{java}${method}_args", f"{java}${method}_result"]
    return names


def _shapes(line: str) -> dict[str, Fields | None]:
    hive = RELEASES[line]
    classpath = (str(find_spark_jars() / "*") if hive.jars is None
                 else ":".join(jars.classpath(hive.jars)))
    done = subprocess.run([find_java(), "-cp", classpath, str(TOOL), *_wanted()],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    shapes: dict[str, Fields | None] = {}
    for line_ in done.stdout.splitlines():
        name, rest = line_.split(" ", 1)
        if rest == "MISSING":
            shapes[name] = None
        elif rest in ("STRUCT", "ENUM"):
            shapes[name] = {}
        else:
            fid, fname, ftype = rest.split(" ")[:3]
            shapes[name][int(fid)] = (fname, int(ftype))  # type: ignore[index]
    return shapes


@pytest.fixture(scope="module", params=list(RELEASES))
def server(request: pytest.FixtureRequest) -> tuple[str, dict[str, Fields | None]]:
    return request.param, _shapes(request.param)


def _agree(ours: Fields, theirs: Fields, line: str, what: str) -> None:
    common = ours.keys() & theirs.keys()
    assert {i: ours[i] for i in common} == {i: theirs[i] for i in common}, (line, what)
    if line == NEWEST:
        assert ours.keys() <= theirs.keys(), (line, what, sorted(ours.keys() - theirs.keys()))


@pytest.mark.cases(1)
def test_structs_match(server: tuple[str, dict[str, Fields | None]]) -> None:
    line, shapes = server
    lacks = LACKS[MAJOR[line]]
    may_lack = set().union(*(STRUCTS_OF[m] for m in lacks if m in STRUCTS_OF))
    structs = _structs()
    assert len(structs) >= 30
    for cls in structs:
        theirs = shapes[f"{API}.{cls.__name__}"]
        if theirs is None:
            assert cls.__name__ in may_lack, (line, cls.__name__)
            continue
        _agree(_python_fields(cls), theirs, line, cls.__name__)


@pytest.mark.parametrize("enum", ["PrincipalType", "ClientCapability"])
def test_enum_values_match(server: tuple[str, dict[str, Fields | None]], enum: str) -> None:
    line, shapes = server
    theirs = shapes[f"{API}.{enum}"]
    assert theirs is not None, line
    _agree({value: (name, 8) for name, value in getattr(ttypes, enum)._NAMES_TO_VALUES.items()},
           theirs, line, enum)


@pytest.mark.parametrize(("service", "java_service"),
                         [(ThriftHiveMetastore, SERVICE), (FacebookService, FB303)])
def test_method_arguments_and_results_match(
    server: tuple[str, dict[str, Fields | None]], service: Any, java_service: str
) -> None:
    line, shapes = server
    lacks = LACKS[MAJOR[line]]
    methods = _methods(service)
    assert methods
    missing = set()
    differ = []
    for method in methods:
        args = shapes[f"{java_service}${method}_args"]
        if args is None:
            missing.add(method)
            continue
        for suffix in ("_args", "_result"):
            theirs = shapes[f"{java_service}${method}{suffix}"]
            if not hasattr(service, method + suffix):  # oneway: no result on either side
                assert theirs is None, (line, method)
                continue
            assert theirs is not None, (line, method + suffix)
            ours = _python_fields(getattr(service, method + suffix))
            common = ours.keys() & theirs.keys()
            if (line, method + suffix) in READ_DIFFERENTLY:
                common -= READ_DIFFERENTLY[line, method + suffix]
            if ({i: ours[i] for i in common} != {i: theirs[i] for i in common}
                    or (line == NEWEST and ours != theirs)):
                differ.append((method + suffix, ours, theirs))
    assert not differ, (line, differ)
    if service is ThriftHiveMetastore:
        assert missing == lacks, line
    else:
        assert not missing, line
