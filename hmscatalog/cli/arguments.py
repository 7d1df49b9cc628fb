"""Arguments shared by subcommands: the table acted on and how to reach its metastore
(Kerberos, TLS), ``--conf KEY=VALUE`` settings."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hmscatalog.errors import HmsCatalogError

if TYPE_CHECKING:
    from hmscatalog.metastore.client import MetastoreClient


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """The metastore URI and the table, as ``HMS_URI DB.TABLE``, and the metastore's security
    (see :func:`metastore_client`)."""
    parser.add_argument("uri", metavar="HMS_URI",
                        help="thrift://host:port (comma-separated for failover)")
    parser.add_argument("table", metavar="DB.TABLE", help="the table, as database.table")
    parser.add_argument("--kerberos-principal", metavar="PRINCIPAL",
                        help="the metastore requires Kerberos: its principal, as "
                        "hive.metastore.kerberos.principal (hive/_HOST@EXAMPLE.COM; _HOST: the "
                        "URI's host); credentials from the ticket cache (kinit) unless "
                        "--kerberos-keytab")
    parser.add_argument("--kerberos-client-principal", metavar="PRINCIPAL",
                        help="with --kerberos-keytab: who to log in as")
    parser.add_argument("--kerberos-keytab", metavar="FILE",
                        help="log in from this keytab as --kerberos-client-principal")
    parser.add_argument("--tls-ca-file", metavar="PEM",
                        help="the metastore speaks TLS (metastore.use.SSL): check its "
                        "certificate against this CA")


def metastore_client(args: argparse.Namespace) -> MetastoreClient:
    """A client of ``args.uri`` with the Kerberos and TLS the arguments give.

    Raises:
        HmsCatalogError: a keytab without its principal, or the other way round.
    """
    from hmscatalog.metastore.client import MetastoreClient
    from hmscatalog.metastore.sasl import Kerberos
    from hmscatalog.metastore.tls import Tls

    if bool(args.kerberos_client_principal) != bool(args.kerberos_keytab):
        raise HmsCatalogError("--kerberos-client-principal and --kerberos-keytab go together")
    if args.kerberos_keytab and not args.kerberos_principal:
        raise HmsCatalogError("--kerberos-keytab needs --kerberos-principal, the metastore's")
    kerberos = Kerberos(args.kerberos_principal, args.kerberos_client_principal or None,
                        args.kerberos_keytab or None) if args.kerberos_principal else None
    tls = Tls(ca_file=args.tls_ca_file) if args.tls_ca_file else None
    return MetastoreClient(args.uri, kerberos=kerberos, tls=tls)


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
