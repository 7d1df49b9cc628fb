"""The ``hmscatalog`` command."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from hmscatalog import jars
from hmscatalog.cli import recover, repair, serve
from hmscatalog.cli.arguments import settings
from hmscatalog.errors import HmsCatalogError
from hmscatalog.metastore import server
from hmscatalog.metastore.launcher import is_loopback
from hmscatalog.metastore.releases import DEFAULT_LINE, RELEASES, release
from hmscatalog.storage import hadoop_jars

# The TLS keystore's password: from the environment, not the command line (which others see).
KEYSTORE_PASSWORD = "HMSCATALOG_TLS_KEYSTORE_PASSWORD"


def _metastore_start(args: argparse.Namespace) -> int:
    def waiting(seconds: float) -> None:
        if int(seconds) % 10 == 0 and seconds - int(seconds) < 0.5 and seconds >= 10:
            print(f"  still starting ({seconds:.0f}s)...", file=sys.stderr)

    already = server.status(args.data_dir)
    hive = release(args.hive_version)
    if hive.jars is not None and not jars.have(hive.jars):
        print(f"fetching {hive.label} from Maven Central into {jars.cache()} (first use only)...",
              file=sys.stderr)
    if args.with_s3 and not jars.have(hadoop_jars.s3a(hive.hadoop)):
        print(f"fetching S3A for {hive.label} from Maven Central into {jars.cache()} "
              "(first use only)...", file=sys.stderr)
    port, moved = args.port, False
    if port is None:  # as the demo chooses: the running one's, 9083, or a free one
        moved = already is None and not server.port_free(args.host, server.DEFAULT_PORT)
        port = already.port if already is not None else 0 if moved else server.DEFAULT_PORT
    info = server.start(port=port, data_dir=args.data_dir, db=args.db, on_wait=waiting,
                        hive_version=args.hive_version, with_s3=args.with_s3,
                        hadoop_conf=settings(args.conf), host=args.host,
                        insecure=args.insecure, kerberos_keytab=args.kerberos_keytab,
                        kerberos_principal=args.kerberos_principal,
                        tls_keystore=args.tls_keystore,
                        tls_keystore_password=os.environ.get(KEYSTORE_PASSWORD, ""))
    if info.kerberos_principal:
        print(f"the metastore requires Kerberos: {info.kerberos_principal}", file=sys.stderr)
    elif not is_loopback(info.host):
        print(f"warning: the metastore at {info.uri} lets in, with no authentication, every "
              f"client that reaches port {info.port} of {info.host}", file=sys.stderr)
    if moved:
        print(f"port {server.DEFAULT_PORT} is in use by another program: started on port "
              f"{info.port}", file=sys.stderr)
    word = "already running" if already is not None else "started"
    print(f"Hive Metastore {info.hive_version} {word}: pid {info.pid}, db {info.db}, "
          f"data dir {info.data_dir}",
          file=sys.stderr)
    print(info.uri)
    return 0


def _jars(args: argparse.Namespace) -> int:
    kind = hadoop_jars.KINDS[args.kind]
    if not jars.have(kind()):
        print(f"fetching {kind().what} from Maven Central into {jars.cache()} "
              "(first use only)...", file=sys.stderr)
    print(",".join(hadoop_jars.spark_jars(args.kind)))
    return 0


def _metastore_status(args: argparse.Namespace) -> int:
    info = server.status(args.data_dir)
    data_dir = (args.data_dir or server.default_data_dir()).resolve()
    if info is None:
        print(f"no metastore running with data dir {data_dir}")
        return 1
    print(f"running: {info.uri} (Hive Metastore {info.hive_version}, pid {info.pid}, "
          f"db {info.db}, log {info.log})")
    return 0


def _metastore_stop(args: argparse.Namespace) -> int:
    info = server.stop(args.data_dir)
    print(f"stopped metastore pid {info.pid} at {info.uri}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from hmscatalog.cli.demo import run_demo

    return run_demo(data_dir=args.data_dir, port=args.port, uri=args.uri)


def _version() -> str:
    """The installed distribution's version (``unknown`` when run from an uninstalled tree)."""
    from importlib import metadata

    try:
        return metadata.version("hmscatalog")
    except metadata.PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hmscatalog", description="A Hive Metastore as the catalog of PySpark pipelines."
    )
    parser.add_argument("--version", action="version", version=f"hmscatalog {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    def data_dir_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data-dir", type=Path, default=None,
                       help=f"server data directory (default {server.default_data_dir()})")

    metastore = commands.add_parser("metastore", help="run an embedded Hive Metastore")
    actions = metastore.add_subparsers(dest="action", required=True)
    start = actions.add_parser("start", help="start it in the background and print its URI")
    start.add_argument("--port", type=int, default=None,
                       help=f"the Thrift port (default: {server.DEFAULT_PORT}, the port of the "
                       "data dir's running metastore, or a free one when another program "
                       f"listens on {server.DEFAULT_PORT}; 0: a free one)")
    start.add_argument("--host", default=server.DEFAULT_HOST,
                       help=f"the address to listen on (default {server.DEFAULT_HOST}: this "
                       "machine only; 0.0.0.0: every interface, which needs --insecure)")
    start.add_argument("--insecure", action="store_true",
                       help="allow a --host other machines reach, although the metastore "
                       "lets in every client with no authentication (not needed with "
                       "Kerberos)")
    start.add_argument("--kerberos-keytab", metavar="FILE", default=None,
                       help="require Kerberos (SASL GSSAPI) of every client; the server logs "
                       "in with this keytab (hive.metastore.kerberos.keytab.file)")
    start.add_argument("--tls-keystore", metavar="FILE", default=None,
                       help="speak TLS only (metastore.use.SSL), with the key and certificate "
                       f"in this keystore (PKCS12 or JKS; its password from ${KEYSTORE_PASSWORD})")
    start.add_argument("--kerberos-principal", metavar="PRINCIPAL", default=None,
                       help="the server's principal, e.g. hive/_HOST@EXAMPLE.COM (_HOST: this "
                       "machine's fully qualified name; hive.metastore.kerberos.principal)")
    data_dir_arg(start)
    start.add_argument("--db", default="derby",
                       help="'derby' (embedded, default) or postgresql://user:pw@host:port/db")
    start.add_argument("--hive-version", default=DEFAULT_LINE, metavar="VERSION",
                       help="the metastore release: "
                       + ", ".join(f"{r.line} ({r.version})" for r in RELEASES.values())
                       + f"; default {DEFAULT_LINE}. Releases other than 2.3 are fetched from "
                       "Maven Central on first use")
    start.add_argument("--with-s3", action="store_true",
                       help="put S3A (hadoop-aws and the AWS SDK of the release's Hadoop) on "
                       "the server's class path, so that it accepts s3a:// locations")
    start.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                       help="a Hadoop setting for the server's file systems, e.g. "
                       "fs.s3a.endpoint=http://127.0.0.1:9000 (repeatable)")
    start.set_defaults(func=_metastore_start)
    status = actions.add_parser("status", help="say whether it runs, and where")
    data_dir_arg(status)
    status.set_defaults(func=_metastore_status)
    stop = actions.add_parser("stop", help="stop it")
    data_dir_arg(stop)
    stop.set_defaults(func=_metastore_stop)

    demo = commands.add_parser("demo", help="a tour: metastore, database, partitioned table")
    demo.add_argument("--uri", default=None,
                      help="use this metastore instead of the embedded one")
    demo.add_argument("--port", type=int, default=None,
                      help=f"the metastore's port (default {server.DEFAULT_PORT}, or a free one "
                           "when another program listens there)")
    data_dir_arg(demo)
    demo.set_defaults(func=_demo)

    fetch = commands.add_parser(
        "jars", help="fetch jars Spark lacks (S3A, HDFS mini cluster, Hive's JSON SerDe) once; "
        "print them for spark.jars")
    fetch.add_argument("kind", choices=sorted(hadoop_jars.KINDS),
                       help="s3: hadoop-aws matching pyspark's Hadoop, with its AWS SDK; "
                       "hdfs: hadoop-client-minicluster (a real HDFS for tests); "
                       "json: Hive's JSON SerDe (hive-hcatalog-core)")
    fetch.set_defaults(func=_jars)

    repair.add_parser(commands)
    recover.add_parser(commands)
    serve.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except HmsCatalogError as exc:
        print(f"hmscatalog: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
