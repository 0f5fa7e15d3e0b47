"""A failed connection in words a person understands, from the exception's type: "no internet
connection: cannot reach huggingface.co (its address could not be looked up)", never
"[Errno -2] Name or service not known". HTTP clients wrap the operating system's error
(httpx in its own ConnectError, urllib in URLError); the cause is found under them."""

from __future__ import annotations

import errno
import re
import socket
import ssl
import urllib.error

_OFFLINE_ERRNOS = {errno.ENETUNREACH, errno.ENETDOWN, errno.EHOSTUNREACH}
_ERRNO_PREFIX = re.compile(r"^\[Errno -?\d+\]\s*")
_TIMEOUT_NAMES = {"TimeoutException", "ConnectTimeout", "ReadTimeout", "PoolTimeout"}


def cause(exc: BaseException) -> BaseException:
    """The innermost error behind ``exc``: its causes and contexts, and a URLError's reason,
    followed down to the first operating-system error (or the last one there is)."""
    seen: set[int] = set()
    current = exc
    while id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, urllib.error.URLError) and isinstance(current.reason, BaseException):
            current = current.reason
            continue
        if isinstance(current, OSError) and not isinstance(current, urllib.error.URLError):
            return current
        inner = current.__cause__ or current.__context__
        if inner is None:
            return current
        current = inner
    return current


def _timed_out(exc: BaseException, found: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return isinstance(found, TimeoutError) or bool(names & _TIMEOUT_NAMES)


def unreachable(exc: BaseException, host: str) -> str:
    """One line (no full stop) saying why ``host`` could not be reached. It says "no internet
    connection" only where the error shows it; elsewhere it asks."""
    found = cause(exc)
    if isinstance(found, socket.gaierror):
        return f"no internet connection: cannot reach {host} (its address could not be looked up)"
    if isinstance(found, OSError) and found.errno in _OFFLINE_ERRNOS:
        return f"no internet connection: cannot reach {host} (the network is unreachable)"
    if isinstance(found, ssl.SSLCertVerificationError):
        detail = found.verify_message or "it is not trusted"
        return f"cannot reach {host} safely: its certificate could not be verified ({detail})"
    if isinstance(found, ConnectionRefusedError):
        reason = "nothing answers there (connection refused)"
    elif _timed_out(exc, found):
        reason = "it did not answer in time"
    elif isinstance(found, ConnectionResetError | ConnectionAbortedError | BrokenPipeError):
        reason = "the connection was cut"
    else:
        text = (str(found).strip().splitlines() or [""])[0]
        reason = _ERRNO_PREFIX.sub("", text) or type(found).__name__
    return f"cannot reach {host}: {reason} \u2014 no internet connection?"
