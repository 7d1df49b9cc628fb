"""Thrift over SASL GSSAPI (Kerberos), as a metastore with ``hive.metastore.sasl.enabled`` speaks
it: the negotiation of Thrift's SASL transport (status byte, 4-byte length, payload), the
GSSAPI mechanism of RFC 4752 (a Kerberos context, then the security layer), then every message
in a frame of its own (4-byte length), wrapped by the context when the layer protects it.
"""

from __future__ import annotations

import struct
import threading
from dataclasses import dataclass
from typing import Any

from thrift.transport import TTransport

from hmscatalog.metastore.gssapi import Context, Credentials, KerberosError

_START, _OK, _BAD, _ERROR, _COMPLETE = 1, 2, 3, 4, 5
# Security layers (RFC 4752): none (authentication only), integrity, confidentiality.
_NONE, _INTEGRITY, _PRIVACY = 1, 2, 4
_MAX_FRAME = 128 * 1024 * 1024  # past the client's largest value (100 MB) and headers


@dataclass(frozen=True)
class Kerberos:
    """How to authenticate to a Kerberized metastore.

    Attributes:
        service_principal: the metastore's principal, as Hive's
            ``hive.metastore.kerberos.principal`` (``hive/_HOST@REALM``: ``_HOST`` is the host
            of the URI connected to, lower case, as Hive's client expands it).
        client_principal: who to log in as with ``keytab``.
        keytab: a keytab file; without one, the ticket cache (``kinit``, ``KRB5CCNAME``).
    """

    service_principal: str
    client_principal: str | None = None
    keytab: str | None = None

    def service_for(self, host: str) -> str:
        return self.service_principal.replace("_HOST", host.lower())


_credentials: dict[tuple[str | None, str | None], Credentials] = {}
_credentials_lock = threading.Lock()


def credentials(kerberos: Kerberos) -> Credentials:
    """One login per principal and keytab, for the whole process (the library renews it)."""
    key = (kerberos.client_principal, kerberos.keytab)
    with _credentials_lock:
        if key not in _credentials:
            _credentials[key] = Credentials(kerberos.client_principal, kerberos.keytab)
        return _credentials[key]


class SaslTransport(TTransport.TTransportBase):
    """Thrift's SASL client transport with the GSSAPI mechanism, over ``transport``."""

    def __init__(self, transport: Any, kerberos: Kerberos, host: str) -> None:
        self._transport = transport
        self._kerberos = kerberos
        self._service = kerberos.service_for(host)
        self._context: Context | None = None
        self._layer = _NONE
        self._write = bytearray()
        self._read = memoryview(b"")

    def isOpen(self) -> bool:
        return bool(self._transport.isOpen())

    def open(self) -> None:
        if not self._transport.isOpen():
            self._transport.open()
        context = Context(self._service, credentials(self._kerberos))
        self._context = context
        self._send(_START, b"GSSAPI")
        self._send(_OK, context.step(None))
        complete = False
        while True:
            status, payload = self._receive()
            if status == _COMPLETE:
                if not complete:
                    raise KerberosError(
                        f"the metastore ended the Kerberos negotiation with {self._service} "
                        "before it was complete")
                return
            if status != _OK:
                message = payload.decode(errors="replace").strip() or f"status {status}"
                raise KerberosError(f"the metastore refused Kerberos authentication as "
                                    f"{self._service}: {message}")
            if not context.established:
                self._send(_OK, context.step(payload))
                continue
            self._send(_OK, self._choose_layer(context, payload))
            complete = True

    def _choose_layer(self, context: Context, challenge: bytes) -> bytes:
        """Answer the server's offer of security layers (after the context is made): the
        strongest it offers, as the server's ``hadoop.rpc.protection`` asks for."""
        offer = context.unwrap(challenge)
        if len(offer) != 4:
            raise KerberosError(f"the metastore's Kerberos security layer offer is {len(offer)} "
                                "bytes, not 4")
        offered = offer[0]
        for layer in (_PRIVACY, _INTEGRITY, _NONE):
            if offered & layer:
                self._layer = layer
                break
        else:
            raise KerberosError(f"the metastore offers no known security layer ({offered:#x})")
        size = 0 if self._layer == _NONE else 0xFFFFFF
        return context.wrap(bytes([self._layer]) + size.to_bytes(3, "big"), encrypt=False)

    def _send(self, status: int, payload: bytes) -> None:
        self._transport.write(struct.pack("!BI", status, len(payload)) + payload)
        self._transport.flush()

    def _receive(self) -> tuple[int, bytes]:
        status, length = struct.unpack("!BI", self._transport.readAll(5))
        if length > _MAX_FRAME:
            raise KerberosError(f"the metastore's Kerberos negotiation message claims {length:,} "
                                "bytes")
        return status, self._transport.readAll(length) if length else b""

    def close(self) -> None:
        self._transport.close()
        self._context = None

    def write(self, buf: bytes) -> None:
        self._write += buf

    def flush(self) -> None:
        data, self._write = bytes(self._write), bytearray()
        if self._layer != _NONE:
            assert self._context is not None
            data = self._context.wrap(data, encrypt=self._layer == _PRIVACY)
        self._transport.write(struct.pack("!I", len(data)) + data)
        self._transport.flush()

    def read(self, sz: int) -> bytes:
        if not self._read:
            (length,) = struct.unpack("!I", self._transport.readAll(4))
            if length > _MAX_FRAME:
                raise TTransport.TTransportException(
                    TTransport.TTransportException.SIZE_LIMIT,
                    f"a frame of {length:,} bytes (at most {_MAX_FRAME:,} bytes)")
            frame = self._transport.readAll(length)
            if self._layer != _NONE:
                assert self._context is not None
                frame = self._context.unwrap(frame)
            self._read = memoryview(frame)
        chunk, self._read = self._read[:sz], self._read[sz:]
        return bytes(chunk)
