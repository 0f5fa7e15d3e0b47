"""A failed connection in words: the sentence comes from the error's type, however deep the
HTTP client wrapped it, and never shows an errno."""

from __future__ import annotations

import errno
import socket
import urllib.error

import pytest

from engine.network_errors import cause, unreachable

HOST = "hub.tic-offline.test"


def wrapped(inner: BaseException) -> BaseException:
    """``inner`` two levels down, as httpx raises it (its ConnectError from httpcore's)."""
    try:
        try:
            raise inner
        except OSError as exc:
            raise RuntimeError(str(exc)) from exc
    except RuntimeError as outer:
        try:
            raise ValueError(str(outer)) from outer
        except ValueError as top:
            return top


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
            f"no internet connection: cannot reach {HOST} (its address could not be looked up)",
        ),
        (
            socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"),
            f"no internet connection: cannot reach {HOST} (its address could not be looked up)",
        ),
        (
            OSError(errno.ENETUNREACH, "Network is unreachable"),
            f"no internet connection: cannot reach {HOST} (the network is unreachable)",
        ),
        (
            ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
            f"cannot reach {HOST}: nothing answers there (connection refused) "
            "\u2014 no internet connection?",
        ),
        (
            TimeoutError("timed out"),
            f"cannot reach {HOST}: it did not answer in time \u2014 no internet connection?",
        ),
        (
            ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"),
            f"cannot reach {HOST}: the connection was cut \u2014 no internet connection?",
        ),
        (
            OSError(errno.EACCES, "Permission denied"),
            f"cannot reach {HOST}: Permission denied \u2014 no internet connection?",
        ),
    ],
)
def test_the_sentence_comes_from_the_errors_type(error: OSError, said: str) -> None:
    assert unreachable(error, HOST) == said
    assert unreachable(wrapped(error), HOST) == said  # under an HTTP client's own errors
    assert unreachable(urllib.error.URLError(error), HOST) == said
    assert "Errno" not in said


def test_the_cause_is_the_operating_systems_error() -> None:
    inner = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    assert cause(wrapped(inner)) is inner
    assert cause(urllib.error.URLError(inner)) is inner
    plain = ValueError("no cause")
    assert cause(plain) is plain
