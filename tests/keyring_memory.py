"""An in-memory keyring backend for tests, and a fixture that installs it.

Use it in a test module with::

    from tests import keyring_memory

    memory_keyring = keyring_memory.memory_keyring  # makes the fixture visible here

and a ``memory_keyring`` argument: secrets then live in a dict for the test and the previous
backend comes back afterwards, so tests never touch the developer's real keyring."""

from __future__ import annotations

import contextlib
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
