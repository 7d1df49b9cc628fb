"""``hmscatalog serve``: a SQL server (HiveServer2's protocol or Spark Connect) with the hms
catalog attached."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hmscatalog.access import AUTHENTICATION, DEFAULT_PORTS, PROTOCOLS, TOKEN_VARIABLE, Access
from hmscatalog.cli.arguments import settings
from hmscatalog.metastore.launcher import is_loopback


def add_parser(commands: Any) -> None:
    """Add the ``serve`` subcommand to ``commands`` (an argparse subparsers object)."""
    parser = commands.add_parser(
        "serve", help="serve SQL over JDBC/HiveServer2 (beeline, pyhive) or Spark Connect, "
                      "with hms attached",
        description="Start a SQL server in a local SparkSession with the metastore attached as "
                    "catalog hms, until interrupted: Spark's Thrift server (--protocol hs2, "
                    "HiveServer2's protocol: beeline, JDBC, pyhive) or a Spark Connect server "
                    "(--protocol connect: SparkSession.builder.remote). Clients query hms.db.t "
                    "with partition pruning; each client session is a Spark session of its own.")
    parser.add_argument("uri", metavar="HMS_URI",
                        help="thrift://host:port (comma-separated for failover)")
    parser.add_argument("--protocol", choices=PROTOCOLS, default="hs2",
                        help="hs2: HiveServer2's (default); connect: Spark Connect's")
    parser.add_argument("--port", type=int, default=None,
                        help="port to serve on (default " + ", ".join(
                            f"{port} for {name}" for name, port in DEFAULT_PORTS.items()) + ")")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only; "
                        "0.0.0.0: every interface, which needs --auth or --insecure)")
    parser.add_argument("--auth", default="none",
                        choices=sorted({mode for modes in AUTHENTICATION.values()
                                        for mode in modes}),
                        help="whom the server lets in: none (every client, any user name; "
                        "default), kerberos (hs2: clients with a Kerberos ticket for "
                        "--kerberos-principal), ldap (hs2: a user name and password the LDAP "
                        "server --ldap-url accepts), token (connect: clients giving the token in "
                        f"${TOKEN_VARIABLE})")
    parser.add_argument("--kerberos-principal", default="",
                        help="with --auth kerberos: the server's principal, e.g. "
                        "hive/_HOST@EXAMPLE.COM (_HOST: this machine's fully qualified name)")
    parser.add_argument("--kerberos-keytab", default="",
                        help="with --auth kerberos: the keytab holding that principal's key")
    parser.add_argument("--ldap-url", default="",
                        help="with --auth ldap: the LDAP server, ldap://host[:port] "
                        "(hive.server2.authentication.ldap.url)")
    parser.add_argument("--ldap-base-dn", default="",
                        help="with --auth ldap: where users are, e.g. ou=people,dc=example,"
                        "dc=com; a client binds as uid=<user>,<base DN> with its password "
                        "(hive.server2.authentication.ldap.baseDN)")
    parser.add_argument("--insecure", action="store_true",
                        help="allow a --host other machines reach with --auth none (the server "
                        "then lets in every client) or ldap (passwords then cross the network "
                        "in clear)")
    parser.add_argument("--name", default="hms", help="catalog name (hms)")
    parser.add_argument("--master", default="local[*]",
                        help="the Spark master of the server's session (default local[*])")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting of the server's session (repeatable), e.g. "
                        "spark.hmscatalog.kerberos.principal=hive/_HOST@EXAMPLE.COM")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hmscatalog.spark.session.serve import serve_forever

    access = Access(args.auth, args.kerberos_principal, args.kerberos_keytab, args.ldap_url,
                    args.ldap_base_dn)
    if args.insecure and not is_loopback(args.host) and args.auth == "none":
        print(f"warning: the server lets in, with no authentication, every client that "
              f"reaches {args.host}", file=sys.stderr)
    if args.insecure and not is_loopback(args.host) and args.auth == "ldap":
        print(f"warning: LDAP passwords cross the network to {args.host} in clear",
              file=sys.stderr)
    serve_forever(args.uri, args.port, args.host, args.name,
                  ready=lambda line: print(line, flush=True), insecure=args.insecure,
                  master=args.master, conf=settings(args.conf), protocol=args.protocol,
                  access=access)
    return 0
