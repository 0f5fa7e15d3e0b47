"""Account secrets (OAuth tokens, IMAP passwords) live only in the OS keyring.

A keyring backend that would store plaintext (keyrings.alt, or none at all) is refused with a
clear error instead of silently writing secrets to disk."""

from __future__ import annotations

import keyring
import keyring.errors

from engine.errors import TicError

SERVICE = "tic-desktop"
_PLAINTEXT_MODULES = ("keyrings.alt", "keyring.backends.fail", "keyring.backends.null")


class SecretStoreUnavailable(TicError):
    """No secure keyring: secrets cannot be kept."""


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


def set_secret(name: str, value: str) -> None:
    try:
        _backend().set_password(SERVICE, name, value)
    except keyring.errors.KeyringError as exc:
        raise SecretStoreUnavailable(f"the keyring refused to store a secret: {exc}") from None


def get_secret(name: str) -> str | None:
    try:
        return _backend().get_password(SERVICE, name)
    except keyring.errors.KeyringError as exc:
        raise SecretStoreUnavailable(f"the keyring could not be read: {exc}") from None


def delete_secret(name: str) -> bool:
    try:
        _backend().delete_password(SERVICE, name)
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as exc:
        raise SecretStoreUnavailable(f"the keyring could not delete a secret: {exc}") from None
    return True
