"""An in-memory keyring backend for tests, and a fixture that installs it.

Use it in a test module with::

    from tests import keyring_memory

    memory_keyring = keyring_memory.memory_keyring  # makes the fixture visible here

and a ``memory_keyring`` argument: secrets then live in a dict for the test and the previous
backend comes back afterwards, so tests never touch the developer's real keyring."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import keyring
import keyring.backend
import keyring.core
import pytest
from keyring.errors import PasswordDeleteError


class MemoryKeyring(keyring.backend.KeyringBackend):
    """Secrets in a dict, keyed by (service, username)."""

    priority = 20  # type: ignore[assignment]  # above every real backend

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.secrets.pop((service, username), None) is None:
            raise PasswordDeleteError(f"no secret for {username!r} in {service!r}")


class RecordingKeyring(MemoryKeyring):
    """A MemoryKeyring that records each call, ("get" | "set" | "delete", name), in order: a
    real Secret Service is opened (and may ask for a new keyring's password) by any of them."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []

    def get_password(self, service: str, username: str) -> str | None:
        self.calls.append(("get", username))
        return super().get_password(service, username)

    def set_password(self, service: str, username: str, password: str) -> None:
        self.calls.append(("set", username))
        super().set_password(service, username, password)

    def delete_password(self, service: str, username: str) -> None:
        self.calls.append(("delete", username))
        super().delete_password(service, username)


class LockedKeyring(MemoryKeyring):
    """A keyring that is locked, as gnome-keyring is while its unlock prompt waits for the
    user: every call blocks until ``unlock()``. ``asked`` is set by the first call."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = threading.Event()
        self.calls = 0
        self._unlocked = threading.Event()

    def unlock(self) -> None:
        self._unlocked.set()

    def _wait(self) -> None:
        self.calls += 1
        self.asked.set()
        self._unlocked.wait()

    def get_password(self, service: str, username: str) -> str | None:
        self._wait()
        return super().get_password(service, username)

    def set_password(self, service: str, username: str, password: str) -> None:
        self._wait()
        super().set_password(service, username, password)

    def delete_password(self, service: str, username: str) -> None:
        self._wait()
        super().delete_password(service, username)


@contextlib.contextmanager
def use_locked_keyring() -> Iterator[LockedKeyring]:
    """Install a LockedKeyring; on exit it is unlocked (its waiting calls end) and the
    previous backend comes back."""
    previous = keyring.core._keyring_backend
    backend = LockedKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        backend.unlock()
        keyring.core._keyring_backend = previous


@pytest.fixture
def locked_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[LockedKeyring]:
    """A locked keyring, and a keyring time limit short enough for a test."""
    import engine.accounts.secrets

    monkeypatch.setattr(engine.accounts.secrets, "KEYRING_TIMEOUT", 0.05)
    with use_locked_keyring() as backend:
        yield backend


@contextlib.contextmanager
def use_memory_keyring() -> Iterator[MemoryKeyring]:
    """Install a fresh MemoryKeyring; the previous backend comes back on exit."""
    # Read the module global rather than keyring.get_keyring(): that would first probe the
    # real backends (D-Bus, files) only to restore them.
    previous = keyring.core._keyring_backend
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.core._keyring_backend = previous


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    with use_memory_keyring() as backend:
        yield backend


@pytest.fixture
def recording_keyring() -> Iterator[RecordingKeyring]:
    """A MemoryKeyring that records its calls, installed for the test."""
    previous = keyring.core._keyring_backend
    backend = RecordingKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.core._keyring_backend = previous
