"""``hmscatalog repair``: ``MSCK REPAIR TABLE`` from a shell, without a Spark session.

Pipelines that write partition directories with other tools (a copy job, a Python writer) can
register them here in a cron job or CI step. The summary goes to stdout, the progress bar to
stderr and only when it is a terminal, so logs do not fill with ``\\r`` lines.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, TextIO

from hmscatalog.cli.arguments import add_table_arguments, metastore_client

_BAR_WIDTH = 30


def add_parser(commands: Any) -> None:
    """Add the ``repair`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser = commands.add_parser(
        "repair", help="register partition directories the metastore lacks (MSCK REPAIR TABLE)",
        description="Walk the table's location for key=value directories, as Spark's MSCK "
                    "REPAIR TABLE does, and register those the metastore lacks (--add, the "
                    "default), unregister partitions whose location is gone (--drop; data is "
                    "never deleted), or both (--sync). S3 credentials come from the usual AWS "
                    "sources (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ~/.aws).")
    add_table_arguments(parser)
    parser.add_argument("--add", action="store_true", help="add missing partitions (default)")
    parser.add_argument("--drop", action="store_true",
                        help="drop partitions whose location no longer exists")
    parser.add_argument("--sync", action="store_true", help="both --add and --drop")
    parser.add_argument("--dry-run", action="store_true",
                        help="change nothing; print the partitions that would change")
    parser.add_argument("--s3-endpoint", metavar="URL", help="S3 endpoint (MinIO, moto...)")
    parser.add_argument("--s3-region", metavar="REGION",
                        help="S3 region (default: the AWS SDK's, from AWS_REGION or ~/.aws)")
    parser.add_argument("--batch-size", type=int, default=500, metavar="N",
                        help="partitions per metastore request (default 500)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hmscatalog.maintenance.repair import repair_table

    drop = args.drop or args.sync
    add = args.add or args.sync or not drop
    options = {key: value for key, value in (("s3.endpoint", args.s3_endpoint),
                                             ("s3.region", args.s3_region)) if value}
    bar = ProgressBar(args.table, sys.stderr)
    began = time.monotonic()
    with metastore_client(args) as client:
        try:
            result = repair_table(client, args.table, add=add, drop=drop, dry_run=args.dry_run,
                                  storage_options=options, progress=bar,
                                  batch_size=args.batch_size)
        finally:
            bar.close()
    seconds = time.monotonic() - began
    if result.dry_run:
        for name in result.dropped:
            print(f"would drop {name}")
        for name in result.added:
            print(f"would add {name}")
    verb = "would be added" if result.dry_run else "added"
    checks = (f", location checks: {result.location_checks}"
              if result.location_checks else "")
    print(f"{result.table}: {_count(len(result.added), 'partition')} {verb}, "
          f"{len(result.dropped)} {'would be ' if result.dry_run else ''}dropped "
          f"({'dry run; ' if result.dry_run else ''}list calls: {result.list_calls}{checks}, "
          f"{seconds:.1f} s)")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class ProgressBar:
    """``done/total`` as a bar redrawn in place with ``\\r``; draws only on a terminal."""

    def __init__(self, label: str, stream: TextIO) -> None:
        self.label = label
        self.stream = stream
        self.enabled = stream.isatty()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total == 0:
            return
        filled = _BAR_WIDTH * done // total
        self.stream.write(f"\r{self.label}: [{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] "
                          f"{done}/{total} partitions")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """End the bar's line, so what is printed next starts on a line of its own."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
