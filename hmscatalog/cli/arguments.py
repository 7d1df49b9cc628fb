"""Arguments shared by the subcommands that act on one table."""

from __future__ import annotations

import argparse


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """The metastore URI and the table, as ``HMS_URI DB.TABLE``."""
    parser.add_argument("uri", metavar="HMS_URI",
                        help="thrift://host:port (comma-separated for failover)")
    parser.add_argument("table", metavar="DB.TABLE")
