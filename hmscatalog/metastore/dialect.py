"""Which Thrift calls a metastore release answers, found out once per connection.

Hive 4.0.1 removed the bare ``get_table`` (HIVE-26537) and answers partition lookups through
request objects; Hive 3.0 added catalogs; Hive 2.3 knows neither. A connection asks the server
right after it opens: ``getVersion`` names releases from 4.0 on exactly but answers ``3.0`` on
both 2.3 and 3.x, which ``get_catalogs`` (3.0 on) then tells apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from thrift.Thrift import TApplicationException

# The calls of thrift_idl/ each release line does not answer (checked against the real servers
# by tests/integration/test_idl_matches_server.py).
LACKS: dict[int, frozenset[str]] = {
    2: frozenset({"get_catalogs", "create_catalog", "drop_catalog",
                  "get_partitions_by_filter_req", "get_partitions_by_names_req",
                  "create_table_req"}),
    3: frozenset({"get_partitions_by_filter_req", "get_partitions_by_names_req",
                  "create_table_req"}),
    4: frozenset(),
}


@dataclass(frozen=True)
class Dialect:
    """What one metastore server speaks.

    Attributes:
        major: the release line: 2, 3 or 4 (later releases count as 4).
        version: the server's ``getVersion`` answer (``3.0`` for every 2.x and 3.x release).
    """

    major: int
    version: str

    @property
    def catalogs(self) -> bool:
        """Whether the server has catalogs (``@catalog#database`` names, ``catName`` fields)."""
        return self.answers("get_catalogs")

    @property
    def requests(self) -> bool:
        """Whether partitions are read through request objects
        (``get_partitions_by_filter_req``, ``get_partitions_by_names_req``)."""
        return self.answers("get_partitions_by_filter_req")

    def answers(self, method: str) -> bool:
        """Whether the server has ``method`` (by :data:`LACKS`, which tests check against every
        release's own classes)."""
        return method not in LACKS[min(self.major, max(LACKS))]

    @property
    def label(self) -> str:
        return f"Hive {self.version}" if self.major >= 4 else f"Hive {self.major}.x"


def _major(version: str) -> int | None:
    head = version.strip().split(".", 1)[0]
    return int(head) if head.isdigit() else None


def detect(client: Any) -> Dialect:
    """Ask a just-opened Thrift client which release it talks to (one or two calls)."""
    version = str(client.getVersion())
    major = _major(version)
    if major is not None and major >= 4:
        return Dialect(major, version)
    try:
        client.get_catalogs()
    except TApplicationException as exc:
        if exc.type == TApplicationException.UNKNOWN_METHOD:
            return Dialect(2, version)
        raise
    return Dialect(3, version)
