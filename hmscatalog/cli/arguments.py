"""Arguments shared by subcommands: the table acted on, ``--conf KEY=VALUE`` settings."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from hmscatalog.errors import HmsCatalogError


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """The metastore URI and the table, as ``HMS_URI DB.TABLE``."""
    parser.add_argument("uri", metavar="HMS_URI",
                        help="thrift://host:port (comma-separated for failover)")
    parser.add_argument("table", metavar="DB.TABLE", help="the table, as database.table")


def settings(pairs: Sequence[str]) -> dict[str, str]:
    """``--conf KEY=VALUE`` arguments as a dict.

    Raises:
        HmsCatalogError: naming an argument that is not KEY=VALUE.
    """
    found = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            raise HmsCatalogError(f"--conf {pair!r} is not KEY=VALUE")
        found[key.strip()] = value
    return found
