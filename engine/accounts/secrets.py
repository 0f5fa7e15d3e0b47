"""Account secrets (OAuth tokens, IMAP passwords) live only in the OS keyring.

A keyring backend that would store plaintext (keyrings.alt, or none at all) is refused with a
clear error instead of silently writing secrets to disk.

Every keyring call has a time limit (``KEYRING_TIMEOUT``): a locked keyring (gnome-keyring
showing its unlock prompt) answers only when the user does, and no TIC process may wait on
it without end, least of all one that holds the workspace. The call runs on a worker thread;
past the limit it is given up with :class:`SecretStoreLocked` (the thread is left to finish
when the keyring answers: a daemon thread, which never keeps the process alive)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FuturesTimeout
from typing import TypeVar

import keyring
import keyring.errors

from engine.errors import TicError

SERVICE = "tic-desktop"
KEYRING_TIMEOUT = 10.0  # seconds: an unlocked keyring answers in milliseconds
LOCKED = "the keyring is locked \u2014 unlock it"
_PLAINTEXT_MODULES = ("keyrings.alt", "keyring.backends.fail", "keyring.backends.null")

T = TypeVar("T")


class SecretStoreUnavailable(TicError):
    """No secure keyring: secrets cannot be kept."""


class SecretStoreLocked(SecretStoreUnavailable):
    """The keyring did not answer in time: most often it is locked and shows its prompt."""

    def __init__(self, timeout: float):
        super().__init__(f"{LOCKED} (it did not answer within {timeout:g} s)")
        self.timeout = timeout


def _backend() -> keyring.backend.KeyringBackend:
    backend = keyring.get_keyring()
    chain = getattr(backend, "backends", [backend])
    usable = [b for b in chain if not type(b).__module__.startswith(_PLAINTEXT_MODULES)]
    if not usable:
        raise SecretStoreUnavailable(
            "no secure keyring is available (on Linux: a Secret Service such as "
            "gnome-keyring or KWallet); TIC will not store passwords in plain text"
        )
    return backend


def within(timeout: float | None, call: Callable[[], T]) -> T:
    """``call()`` on a worker thread, waited for at most ``timeout`` seconds (None:
    ``KEYRING_TIMEOUT``): its result, or its exception; SecretStoreLocked when it has not
    returned by then."""
    timeout = KEYRING_TIMEOUT if timeout is None else timeout
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(call())
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=run, name="keyring", daemon=True).start()
    try:
        return future.result(timeout)
    except FuturesTimeout:
        raise SecretStoreLocked(timeout) from None


def set_secret(name: str, value: str, *, timeout: float | None = None) -> None:
    try:
        within(timeout, lambda: _backend().set_password(SERVICE, name, value))
    except keyring.errors.KeyringError as exc:
        raise SecretStoreUnavailable(f"the keyring refused to store a secret: {exc}") from None


def get_secret(name: str, *, timeout: float | None = None) -> str | None:
    """The secret kept under ``name`` (None: none is); SecretStoreLocked when the keyring
    does not answer within ``timeout`` seconds (None: ``KEYRING_TIMEOUT``)."""
    try:
        return within(timeout, lambda: _backend().get_password(SERVICE, name))
    except keyring.errors.KeyringError as exc:
        raise SecretStoreUnavailable(f"the keyring could not be read: {exc}") from None


def delete_secret(name: str, *, timeout: float | None = None) -> bool:
    try:
        within(timeout, lambda: _backend().delete_password(SERVICE, name))
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as exc:
        raise SecretStoreUnavailable(f"the keyring could not delete a secret: {exc}") from None
    return True
