"""Whom the SQL servers of ``hmscatalog serve`` let in, by protocol: checked before anything
starts, and without pyspark (the CLI reads it to build its options)."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

from hmscatalog.errors import ServerError

PROTOCOLS = ("hs2", "connect")
DEFAULT_PORTS = {"hs2": 10000, "connect": 15002}
AUTHENTICATION = {"hs2": ("none", "kerberos", "ldap"), "connect": ("none", "token")}
# Modes whose secrets cannot be read off the network: the others (none; ldap, whose passwords
# cross in clear, as the server speaks no TLS) need --insecure on an address other machines
# reach. (PySpark's client sends a token without TLS only to localhost: a token on another
# address implies a proxy that speaks TLS.)
PROTECTED = ("kerberos", "token")
# Read by Spark Connect's server itself (and by ``pyspark --remote local``); never a setting or
# an argument, which would show in the process list.
TOKEN_VARIABLE = "SPARK_CONNECT_AUTHENTICATE_TOKEN"


@dataclass(frozen=True)
class Access:
    """Whom the server lets in.

    ``mode``: ``none`` (every client, under any user name), ``kerberos`` (hs2: clients with a
    ticket for ``principal``, the server's, whose key is in ``keytab``; ``_HOST`` in it is this
    machine's fully qualified name, as Hive expands it), ``ldap`` (hs2: clients whose user name
    and password bind to ``ldap_url`` as ``uid=<user>,<ldap_base_dn>``, as HiveServer2's LDAP
    authentication does) or ``token`` (connect: clients that give the token held in
    ``$SPARK_CONNECT_AUTHENTICATE_TOKEN``).
    """

    mode: str = "none"
    principal: str = ""
    keytab: str = ""
    ldap_url: str = ""
    ldap_base_dn: str = ""

    def checked(self, protocol: str) -> Access:
        """This access, with ``_HOST`` expanded and the keytab's path made absolute.

        Raises:
            ServerError: naming what is missing or does not fit ``protocol``.
        """
        if protocol not in PROTOCOLS:
            raise ServerError(f"--protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
        if self.mode not in AUTHENTICATION[protocol]:
            raise ServerError(f"--auth {self.mode} is not offered over {protocol}: choose "
                              f"one of {', '.join(AUTHENTICATION[protocol])}")
        if (self.principal or self.keytab) and self.mode != "kerberos":
            raise ServerError("--kerberos-principal and --kerberos-keytab go with --auth kerberos")
        if (self.ldap_url or self.ldap_base_dn) and self.mode != "ldap":
            raise ServerError("--ldap-url and --ldap-base-dn go with --auth ldap")
        if self.mode == "ldap":
            if not self.ldap_url or not self.ldap_base_dn:
                raise ServerError("--auth ldap needs both --ldap-url and --ldap-base-dn")
            if not self.ldap_url.startswith(("ldap://", "ldaps://")):
                raise ServerError(f"--ldap-url {self.ldap_url!r} is not ldap://host[:port] or "
                                  "ldaps://host[:port]")
        if self.mode == "kerberos":
            if not self.principal or not self.keytab:
                raise ServerError("--auth kerberos needs both --kerberos-principal and "
                                  "--kerberos-keytab")
            if not Path(self.keytab).is_file():
                raise ServerError(f"Kerberos keytab {self.keytab} does not exist")
            return Access(self.mode, self.principal.replace("_HOST", socket.getfqdn().lower()),
                          str(Path(self.keytab).resolve()))
        token = os.environ.get(TOKEN_VARIABLE)
        if self.mode == "token" and not token:
            raise ServerError(f"--auth token takes the token from ${TOKEN_VARIABLE}, which is "
                              "not set")
        if self.mode == "none" and token is not None and protocol == "connect":
            raise ServerError(f"${TOKEN_VARIABLE} is set but --auth is none: give --auth token "
                              "to require it, or unset it")
        return self
