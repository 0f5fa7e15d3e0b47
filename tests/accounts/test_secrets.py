"""engine.secrets: with the in-memory backend, refusing plaintext backends, and once for real
against gnome-keyring's Secret Service on a private D-Bus session bus."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail, null

import engine.accounts.secrets as secrets
from tests import keyring_memory
from tests.keyring_memory import LockedKeyring, MemoryKeyring, use_memory_keyring

REPO = Path(__file__).resolve().parents[2]
memory_keyring = keyring_memory.memory_keyring
locked_keyring = keyring_memory.locked_keyring


def test_memory_keyring_round_trip(memory_keyring: MemoryKeyring) -> None:
    assert secrets.get_secret("imap:alice@example.org") is None
    secrets.set_secret("imap:alice@example.org", "pässword")
    assert secrets.get_secret("imap:alice@example.org") == "pässword"
    assert memory_keyring.secrets == {(secrets.SERVICE, "imap:alice@example.org"): "pässword"}

    assert secrets.delete_secret("imap:alice@example.org") is True
    assert secrets.get_secret("imap:alice@example.org") is None
    assert secrets.delete_secret("imap:alice@example.org") is False


def test_memory_keyring_restores_the_previous_backend() -> None:
    before = keyring.core._keyring_backend
    with use_memory_keyring() as outer:
        with use_memory_keyring() as inner:
            assert keyring.get_keyring() is inner
        assert keyring.get_keyring() is outer
    assert keyring.core._keyring_backend is before


def test_a_locked_keyring_is_given_up_after_its_time_limit(locked_keyring: LockedKeyring) -> None:
    with pytest.raises(secrets.SecretStoreLocked) as got:
        secrets.get_secret("imap:alice@example.org")
    assert str(got.value) == (
        "the keyring is locked \u2014 unlock it (it did not answer within 0.05 s)"
    )
    assert locked_keyring.asked.is_set()  # it was asked, and is still waiting
    with pytest.raises(secrets.SecretStoreLocked):
        secrets.set_secret("imap:alice@example.org", "pw", timeout=0.01)
    with pytest.raises(secrets.SecretStoreLocked):
        secrets.delete_secret("imap:alice@example.org", timeout=0.01)
    assert isinstance(got.value, secrets.SecretStoreUnavailable)  # callers' handling holds


def test_an_answer_in_time_is_returned_and_an_error_raised(memory_keyring: MemoryKeyring) -> None:
    secrets.set_secret("imap:alice@example.org", "pw", timeout=5)
    assert secrets.get_secret("imap:alice@example.org", timeout=5) == "pw"

    def broken() -> str:
        raise keyring.errors.KeyringLocked("dismissed")

    with pytest.raises(keyring.errors.KeyringLocked, match="dismissed"):
        secrets.within(5, broken)


@pytest.mark.parametrize("plaintext", [fail.Keyring, null.Keyring])
def test_plaintext_backends_are_refused(
    memory_keyring: MemoryKeyring, plaintext: type[keyring.backend.KeyringBackend]
) -> None:
    keyring.set_keyring(plaintext())  # the fixture puts the previous backend back
    with pytest.raises(secrets.SecretStoreUnavailable, match="no secure keyring"):
        secrets.set_secret("imap:alice@example.org", "pw")
    with pytest.raises(secrets.SecretStoreUnavailable):
        secrets.get_secret("imap:alice@example.org")
    with pytest.raises(secrets.SecretStoreUnavailable):
        secrets.delete_secret("imap:alice@example.org")


_SCRIPT = """\
import json, sys, time

import secretstorage

deadline = time.monotonic() + 10  # the daemon registers on the bus asynchronously
while True:
    try:
        with secretstorage.dbus_init() as conn:
            if secretstorage.check_service_availability(conn):
                break
    except Exception:
        pass
    if time.monotonic() > deadline:
        sys.exit("the Secret Service did not appear on the session bus")
    time.sleep(0.05)

import keyring
import engine.accounts.secrets as secrets

secrets.set_secret("imap:alice@example.org", "pässword ✓")
result = {
    "backend": type(keyring.get_keyring()).__module__,
    "got": secrets.get_secret("imap:alice@example.org"),
    "deleted": secrets.delete_secret("imap:alice@example.org"),
    "after": secrets.get_secret("imap:alice@example.org"),
}
print(json.dumps(result))
"""

# gnome-keyring hangs without $HOME/.cache; --unlock reads the new login keyring's password
# from stdin. It runs in the foreground so the shell can stop and reap it.
_SESSION = (
    'mkdir -p "$HOME/.cache"; '
    "printf pw | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null & "
    'daemon=$!; "$0" "$1"; status=$?; kill $daemon; wait $daemon; exit $status'
)


def test_gnome_keyring_secret_service_round_trip(tmp_path: Path) -> None:
    missing = [t for t in ("dbus-run-session", "gnome-keyring-daemon") if not shutil.which(t)]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (apt-get install gnome-keyring dbus)")
    script = tmp_path / "roundtrip.py"
    script.write_text(_SCRIPT, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(REPO),
        "PYTHONIOENCODING": "utf-8",
    }
    proc = subprocess.Popen(
        ["dbus-run-session", "--", "sh", "-c", _SESSION, sys.executable, str(script)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=10)
        pytest.fail("the Secret Service round trip did not finish within 60 s")
    finally:
        try:  # whatever of the session is left (it is our own process group)
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    details = textwrap.indent(err.decode(errors="replace")[-2000:], "  ")
    assert proc.returncode == 0, f"exit {proc.returncode}:\n{details}"
    assert json.loads(out) == {
        "backend": "keyring.backends.SecretService",
        "got": "pässword ✓",
        "deleted": True,
        "after": None,
    }
