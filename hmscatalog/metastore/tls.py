"""TLS to the metastore, as a server with ``metastore.use.SSL`` (``hive.metastore.use.SSL``)
speaks it: the Thrift binary protocol inside a TLS connection, the server's certificate checked
against a CA and its name against the host connected to."""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass

from thrift.transport import TSocket, TTransport

from hmscatalog.errors import MetastoreError


class TlsError(MetastoreError):
    """The metastore's certificate was refused (unknown CA, another host's name, expired)."""


@dataclass(frozen=True)
class Tls:
    """How to check the metastore's certificate.

    Attributes:
        ca_file: PEM file of the CA(s) to trust; None: the system's.
        check_hostname: the certificate must name the host connected to.
        verify: check the certificate at all (only for a server known by other means, such as
            one's own child process on loopback).
    """

    ca_file: str | None = None
    check_hostname: bool = True
    verify: bool = True

    def context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.ca_file) if self.verify \
            else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = self.verify and self.check_hostname
        if not self.verify:
            context.verify_mode = ssl.CERT_NONE
        return context


class TlsSocket(TSocket.TSocket):
    """A Thrift socket that speaks TLS once connected."""

    def __init__(self, host: str, port: int, tls: Tls) -> None:
        super().__init__(host, port)
        self._context = tls.context()

    connected = False  # whether the server accepted the connection, whatever happened after

    def open(self) -> None:
        super().open()
        self.connected = True
        try:
            plain: socket.socket = self.handle  # type: ignore[has-type]
            self.handle = self._context.wrap_socket(plain, server_hostname=self.host)
        except ssl.SSLCertVerificationError as exc:
            self.close()
            raise TlsError(f"TLS: the metastore's certificate is refused: "
                           f"{exc.verify_message or exc.reason}") from exc
        except (ssl.SSLError, OSError) as exc:
            self.close()
            raise TTransport.TTransportException(
                TTransport.TTransportException.NOT_OPEN,
                f"no TLS handshake ({exc}): a metastore without metastore.use.SSL does not "
                "answer it") from exc
