"""``hmscatalog recover``: finish or undo the writes into a table whose process died."""

from __future__ import annotations

import argparse
from typing import Any

from hmscatalog.cli.arguments import add_table_arguments


def add_parser(commands: Any) -> None:
    """Add the ``recover`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser = commands.add_parser(
        "recover", help="finish or undo interrupted writes into a table",
        description="A write whose process was killed leaves a record under the table's "
                    "location (.hms-commits/). Finish each such write when all of its files "
                    "were moved into place, undo it otherwise, and delete staging and trash "
                    "directories that no running write owns. Writes whose process is alive are "
                    "left alone. Every later write to the table and every read through the hms "
                    "catalog does the same.")
    add_table_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hmscatalog.errors import HmsCatalogError
    from hmscatalog.metastore.client import MetastoreClient
    from hmscatalog.write.recovery import recover

    database, dot, name = args.table.partition(".")
    if not dot or not database or not name:
        raise HmsCatalogError(f"table {args.table!r} must be given as DB.TABLE")
    with MetastoreClient(args.uri) as client:
        result = recover(client, client.get_table(database, name))
    for write_id in result.finished:
        print(f"finished write {write_id}")
    for write_id in result.undone:
        print(f"undid write {write_id}")
    for write_id in result.running:
        print(f"left running write {write_id} alone (its process is alive)")
    print(result)
    return 0
