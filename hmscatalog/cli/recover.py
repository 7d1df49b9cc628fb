"""``hmscatalog recover`` and ``recover-path``: finish or undo the writes into a table, or into
a path written by ``write_partitioned``, whose process died."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hmscatalog.cli.arguments import add_table_arguments, metastore_client


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
    by_path = commands.add_parser(
        "recover-path", help="finish or undo interrupted write_partitioned writes into a path",
        description="The same for a directory that write_partitioned writes (local disk or "
                    "s3://, credentials from the AWS_* environment variables). Every "
                    "later write_partitioned into the path does the same. Uploads a killed S3 "
                    "write left pending are invisible; only a Spark driver with S3A (the next "
                    "write) or the bucket's lifecycle rule removes them.")
    by_path.add_argument("path", help="the directory written")
    by_path.add_argument("--s3-endpoint", metavar="URL", help="S3 endpoint (MinIO, moto...)")
    by_path.add_argument("--s3-region", metavar="REGION",
                        help="S3 region (default: the AWS SDK's, from AWS_REGION or ~/.aws)")
    by_path.set_defaults(func=run_path)


def run(args: argparse.Namespace) -> int:
    from hmscatalog.errors import HmsCatalogError
    from hmscatalog.write.recovery import recover

    database, dot, name = args.table.partition(".")
    if not dot or not database or not name:
        raise HmsCatalogError(f"table {args.table!r} must be given as DB.TABLE")
    with metastore_client(args) as client:
        result = recover(client, client.get_table(database, name))
    for write_id in result.finished:
        print(f"finished write {write_id}")
    for write_id in result.undone:
        print(f"undid write {write_id}")
    for write_id in result.running:
        print(f"left running write {write_id} alone (its process is alive)")
    print(result)
    return 0


def run_path(args: argparse.Namespace) -> int:
    from hmscatalog.errors import HmsCatalogError
    from hmscatalog.storage.opening import open_storage
    from hmscatalog.write.paths import recover_path

    options = {key: value for key, value in (("s3.endpoint", args.s3_endpoint),
                                             ("s3.region", args.s3_region)) if value}
    storage, root = open_storage(args.path.rstrip("/") or args.path, options)
    if storage.list(root) is None:  # a mistyped path is not a path with nothing to recover
        raise HmsCatalogError(f"path {storage.uri(root)} does not exist or is not a directory")
    ended = recover_path(storage, Path(root))
    for write_id in ended:
        print(f"ended write {write_id}")
    print(f"path {storage.uri(root)}: {len(ended)} interrupted write(s) finished or undone")
    return 0
