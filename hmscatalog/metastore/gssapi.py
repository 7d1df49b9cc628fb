"""Kerberos for the metastore client: the few GSS-API calls a SASL GSSAPI client makes, called
through ``ctypes`` in MIT Kerberos's ``libgssapi_krb5`` (Debian's ``libgssapi-krb5-2``, present
wherever Kerberos is), so that nothing needs compiling.

Credentials come from the ticket cache (``kinit``; ``KRB5CCNAME``) or from a keytab: with a
keytab, the library gets the client's tickets itself, into a cache of this process's memory, and
gets new ones before they expire (MIT's "client keytab" initiation), so that a long session
never runs out of tickets.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import os
import threading
import time
from ctypes import POINTER, Structure, byref, c_char_p, c_int, c_size_t, c_uint32, c_void_p
from typing import Any

from hmscatalog.errors import MetastoreError


class KerberosError(MetastoreError):
    """Kerberos refused: no ticket, an expired one, an unknown service principal..."""


OM_uint32 = c_uint32
GSS_S_COMPLETE = 0
GSS_S_CONTINUE_NEEDED = 1
GSS_C_GSS_CODE = 1
GSS_C_MECH_CODE = 2
GSS_C_INITIATE = 1
GSS_C_MUTUAL_FLAG = 2
GSS_C_SEQUENCE_FLAG = 8
GSS_C_CONF_FLAG = 16
GSS_C_INTEG_FLAG = 32
_ERROR_MASK = 0xFFFF0000


class _Buffer(Structure):
    _fields_ = [("length", c_size_t), ("value", c_void_p)]


class _KeyValue(Structure):
    _fields_ = [("key", c_char_p), ("value", c_char_p)]


class _KeyValueSet(Structure):
    _fields_ = [("count", OM_uint32), ("elements", POINTER(_KeyValue))]


_library: Any = None


def _lib() -> Any:
    """``libgssapi_krb5``, loaded and typed once.

    Raises:
        KerberosError: it is not installed.
    """
    global _library
    if _library is not None:
        return _library
    name = ctypes.util.find_library("gssapi_krb5") or "libgssapi_krb5.so.2"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        raise KerberosError(
            "Kerberos to the metastore needs MIT Kerberos's GSS-API library (libgssapi_krb5), "
            "which is not installed: e.g. apt-get install libgssapi-krb5-2") from exc
    minor = POINTER(OM_uint32)
    buffer = POINTER(_Buffer)
    signatures = {
        "gss_import_name": [minor, buffer, c_void_p, POINTER(c_void_p)],
        "gss_init_sec_context": [minor, c_void_p, POINTER(c_void_p), c_void_p, c_void_p,
                                 OM_uint32, OM_uint32, c_void_p, buffer, POINTER(c_void_p),
                                 buffer, POINTER(OM_uint32), POINTER(OM_uint32)],
        "gss_wrap": [minor, c_void_p, c_int, OM_uint32, buffer, POINTER(c_int), buffer],
        "gss_unwrap": [minor, c_void_p, buffer, buffer, POINTER(c_int), POINTER(OM_uint32)],
        "gss_release_buffer": [minor, buffer],
        "gss_release_name": [minor, POINTER(c_void_p)],
        "gss_release_cred": [minor, POINTER(c_void_p)],
        "gss_delete_sec_context": [minor, POINTER(c_void_p), buffer],
        "gss_display_status": [minor, OM_uint32, c_int, c_void_p, POINTER(OM_uint32), buffer],
        "gss_acquire_cred_from": [minor, c_void_p, OM_uint32, c_void_p, c_int,
                                  POINTER(_KeyValueSet), POINTER(c_void_p), c_void_p,
                                  POINTER(OM_uint32)],
    }
    for function, arguments in signatures.items():
        getattr(lib, function).argtypes = arguments
        getattr(lib, function).restype = OM_uint32
    _library = lib
    return lib


def _status(major: int, minor: int) -> str:
    """The library's own words for a failed call: the mechanism's (Kerberos's) message if it
    has one, else GSS-API's."""
    lib = _lib()
    lines = []
    for code, kind in ((minor, GSS_C_MECH_CODE), (major, GSS_C_GSS_CODE)):
        if not code:
            continue
        context = OM_uint32(0)
        while True:
            text, ignored = _Buffer(), OM_uint32(0)
            lib.gss_display_status(byref(ignored), code, kind, None, byref(context), byref(text))
            if text.length:
                lines.append(ctypes.string_at(text.value, text.length).decode(errors="replace"))
            lib.gss_release_buffer(byref(ignored), byref(text))
            if not context.value:
                break
        if lines:
            break
    return "; ".join(lines) or f"GSS-API status {major:#x}/{minor:#x}"


def _check(major: int, minor: OM_uint32, what: str) -> None:
    if major & _ERROR_MASK:
        raise KerberosError(f"{what}: {_status(major, minor.value)}")


def _name(principal: str) -> c_void_p:
    lib = _lib()
    minor, name = OM_uint32(0), c_void_p()
    data = principal.encode()
    text = _Buffer(len(data), ctypes.cast(ctypes.c_char_p(data), c_void_p))
    kind = c_void_p.in_dll(lib, "GSS_KRB5_NT_PRINCIPAL_NAME")
    _check(lib.gss_import_name(byref(minor), byref(text), kind, byref(name)), minor,
           f"Kerberos principal {principal!r} is not valid")
    return name


_caches = itertools.count()


def _keytab_credentials(principal: str, keytab: str) -> tuple[c_void_p, int]:
    """Credentials of ``principal`` from ``keytab``, in a cache of this process's memory, and
    how many seconds they last."""
    if not os.path.isfile(keytab):
        raise KerberosError(f"Kerberos keytab {keytab} does not exist")
    lib = _lib()
    name = _name(principal)
    cache = f"MEMORY:hmscatalog-{os.getpid()}-{next(_caches)}"
    elements = (_KeyValue * 2)(_KeyValue(b"client_keytab", keytab.encode()),
                               _KeyValue(b"ccache", cache.encode()))
    store = _KeyValueSet(2, elements)
    minor, cred, lifetime = OM_uint32(0), c_void_p(), OM_uint32(0)
    try:
        _check(lib.gss_acquire_cred_from(byref(minor), name, 0, None, GSS_C_INITIATE,
                                         byref(store), byref(cred), None, byref(lifetime)),
               minor, f"Kerberos cannot log in as {principal} with keytab {keytab}")
    finally:
        lib.gss_release_name(byref(OM_uint32(0)), byref(name))
    return cred, lifetime.value


class Credentials:
    """Who the client is: the ticket cache's principal (``keytab`` None), or ``principal``
    logged in with ``keytab``, again once three quarters of its tickets' lifetime has passed
    (as Hadoop's login renews at 80%), so that new connections never meet expired tickets
    (those made keep working: a ticket is checked when a connection authenticates)."""

    def __init__(self, principal: str | None = None, keytab: str | None = None) -> None:
        if keytab and not principal:
            raise KerberosError(f"a Kerberos keytab ({keytab}) needs the principal to log in as")
        self.principal, self.keytab = principal, keytab
        self._cred: c_void_p | None = None
        self._older: list[c_void_p] = []  # kept until the end: a connection may be using one
        self._renew_at = 0.0
        self._lock = threading.Lock()

    def handle(self) -> c_void_p | None:
        """The GSS-API credential (None: the default ticket cache)."""
        if not self.keytab:
            return None
        assert self.principal is not None
        with self._lock:
            if self._cred is None or time.monotonic() >= self._renew_at:
                began = time.monotonic()
                cred, lifetime = _keytab_credentials(self.principal, self.keytab)
                if self._cred is not None:
                    self._older.append(self._cred)
                self._cred, self._renew_at = cred, began + 0.75 * lifetime
            return self._cred

    def __del__(self) -> None:
        if _library is not None:
            for cred in [*self._older, *([self._cred] if self._cred is not None else [])]:
                _library.gss_release_cred(byref(OM_uint32(0)), byref(cred))


class Context:
    """A GSS-API security context with ``service`` (a Kerberos principal), as the initiator."""

    def __init__(self, service: str, credentials: Credentials) -> None:
        self.service = service
        self._cred = credentials.handle()
        self._target = _name(service)
        self._handle = c_void_p()
        self.established = False

    def step(self, token: bytes | None) -> bytes:
        """Feed the server's ``token`` (None at first); the token to send back.

        Raises:
            KerberosError: no ticket, an expired one, an unknown service...
        """
        lib = _lib()
        minor, out, flags = OM_uint32(0), _Buffer(), OM_uint32(0)
        given = _Buffer(len(token), ctypes.cast(ctypes.c_char_p(token), c_void_p)) \
            if token else None
        major = lib.gss_init_sec_context(
            byref(minor), self._cred, byref(self._handle), self._target, None,
            GSS_C_MUTUAL_FLAG | GSS_C_SEQUENCE_FLAG | GSS_C_INTEG_FLAG | GSS_C_CONF_FLAG, 0,
            None, byref(given) if given else None, None, byref(out), byref(flags), None)
        try:
            _check(major, minor, f"Kerberos cannot authenticate to {self.service}")
            return ctypes.string_at(out.value, out.length) if out.length else b""
        finally:
            lib.gss_release_buffer(byref(OM_uint32(0)), byref(out))
            self.established = major == GSS_S_COMPLETE

    def wrap(self, data: bytes, encrypt: bool) -> bytes:
        return self._transform(data, encrypt)

    def unwrap(self, data: bytes) -> bytes:
        return self._transform(data, None)

    def _transform(self, data: bytes, encrypt: bool | None) -> bytes:
        lib = _lib()
        minor, out = OM_uint32(0), _Buffer()
        given = _Buffer(len(data), ctypes.cast(ctypes.c_char_p(data), c_void_p))
        if encrypt is None:
            major = lib.gss_unwrap(byref(minor), self._handle, byref(given), byref(out), None,
                                   None)
        else:
            major = lib.gss_wrap(byref(minor), self._handle, int(encrypt), 0, byref(given),
                                 None, byref(out))
        try:
            _check(major, minor, f"Kerberos message to or from {self.service}")
            return ctypes.string_at(out.value, out.length)
        finally:
            lib.gss_release_buffer(byref(OM_uint32(0)), byref(out))

    def __del__(self) -> None:
        handle, target = getattr(self, "_handle", None), getattr(self, "_target", None)
        if _library is None:
            return
        if handle:
            _library.gss_delete_sec_context(byref(OM_uint32(0)), byref(handle), None)
        if target:
            _library.gss_release_name(byref(OM_uint32(0)), byref(target))
