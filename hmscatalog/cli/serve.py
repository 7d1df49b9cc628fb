"""``hmscatalog serve``: Spark's Thrift server with the hms catalog attached."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hmscatalog.cli.arguments import settings
from hmscatalog.metastore.launcher import is_loopback


def add_parser(commands: Any) -> None:
    """Add the ``serve`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser = commands.add_parser(
        "serve", help="serve SQL over JDBC/HiveServer2 (beeline, pyhive) with hms attached",
        description="Start Spark's Thrift server (HiveServer2 protocol) in a local SparkSession "
                    "with the metastore attached as catalog hms: beeline, JDBC and pyhive "
                    "clients query hms.db.t with partition pruning. Runs until interrupted.")
    parser.add_argument("uri", metavar="HMS_URI",
                        help="thrift://host:port (comma-separated for failover)")
    parser.add_argument("--port", type=int, default=10000, help="port to serve on (10000)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only; "
                        "0.0.0.0: every interface, which needs --insecure)")
    parser.add_argument("--insecure", action="store_true",
                        help="allow a --host other machines reach, although the server lets "
                        "in every client with no authentication")
    parser.add_argument("--name", default="hms", help="catalog name (hms)")
    parser.add_argument("--master", default="local[*]",
                        help="the Spark master of the server's session (default local[*])")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting of the server's session (repeatable), e.g. "
                        "spark.hmscatalog.kerberos.principal=hive/_HOST@EXAMPLE.COM")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hmscatalog.spark.serve import serve_forever

    if args.insecure and not is_loopback(args.host):
        print(f"warning: the server lets in, with no authentication, every client that "
              f"reaches port {args.port} of {args.host}", file=sys.stderr)
    serve_forever(args.uri, args.port, args.host, args.name,
                  ready=lambda line: print(line, flush=True), insecure=args.insecure,
                  master=args.master, conf=settings(args.conf))
    return 0
