"""A private Dovecot IMAP server for tests: plain IMAP on a free 127.0.0.1 port, its own
config, mail directories and passwd-file users in a temp directory, started and stopped in
milliseconds. Messages are delivered with IMAP APPEND (flags chosen by the test, so they
arrive unseen).

Dovecot refuses uid 0 as a mail user: run as root (CI), mail belongs to ``nobody``; run as
anyone else, everything runs as that user.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from imapclient import IMAPClient

START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0
STOP_GRACE = 0.5  # after SIGTERM (the clients have had their BYE), then SIGKILL


def dovecot_binary() -> str | None:
    return shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin:/usr/local/sbin")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _signal_group(group: int, sig: int) -> bool:
    """Signal a process group; False when none of its processes is left."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    return True


def _group_runs(group: int) -> bool:
    """Whether a process of the group still runs. Zombies do not count: the master's children
    are reaped by init, which here may take seconds, and they hold nothing."""
    if not _signal_group(group, 0):
        return False
    proc = Path("/proc")
    if not proc.is_dir():
        return True  # no way to tell a zombie: it still counts
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # it ended meanwhile
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


def _mail_user() -> pwd.struct_passwd:
    if os.geteuid() == 0:
        return pwd.getpwnam("nobody")
    return pwd.getpwuid(os.geteuid())


class Dovecot:
    host = "127.0.0.1"

    def __init__(self) -> None:
        binary = dovecot_binary()
        if binary is None:
            raise RuntimeError("dovecot is not installed")
        self.binary = binary
        tmp = "/tmp" if os.path.isdir("/tmp") else None  # short paths for its unix sockets
        self.root = Path(tempfile.mkdtemp(prefix="tic-dovecot-", dir=tmp))
        self.root.chmod(0o755)  # the mail user must reach its home below it
        self.port = free_port()
        self.users: dict[str, str] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._mail_user = _mail_user()
        home = self.root / "home"
        home.mkdir()
        os.chown(home, self._mail_user.pw_uid, self._mail_user.pw_gid)

    @property
    def log_path(self) -> Path:
        return self.root / "dovecot.log"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def add_user(self, name: str, password: str) -> None:
        self.users[name] = password
        lines = [f"{user}:{{PLAIN}}{pw}::::::\n" for user, pw in self.users.items()]
        passwd = self.root / "passwd"
        passwd.write_text("".join(lines))
        passwd.chmod(0o644)

    def _config(self) -> str:
        root, user = self.root, self._mail_user
        unprivileged = ""
        if os.geteuid() != 0:
            unprivileged = (
                f"default_internal_user = {user.pw_name}\n"
                f"default_internal_group = {grp.getgrgid(user.pw_gid).gr_name}\n"
                f"default_login_user = {user.pw_name}\n"
                "service anvil {\n  chroot =\n}\n"
                "service imap-login {\n  chroot =\n}\n"
            )
        return f"""\
base_dir = {root}/run
state_dir = {root}/state
log_path = {self.log_path}
protocols = imap
listen = {self.host}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
mail_location = maildir:~/Maildir
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {root}/passwd
  default_fields = uid={user.pw_uid} gid={user.pw_gid} home={root}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    address = {self.host}
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
# no auth penalty: after a failed sign-in, the next one from 127.0.0.1 would wait 2-15 s
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
{unprivileged}"""

    def start(self, timeout: float = START_TIMEOUT) -> None:
        if self.running:
            return
        config = self.root / "dovecot.conf"
        config.write_text(self._config())
        self._proc = subprocess.Popen(
            [self.binary, "-F", "-c", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: stop() ends every child too
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self._proc = None
                raise RuntimeError(f"dovecot exited on start:\n{self._log_tail()}")
            if self._greets():
                return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"dovecot did not answer within {timeout} s:\n{self._log_tail()}")

    def _greets(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=1.0) as sock:
                return sock.recv(64).startswith(b"* OK")
        except OSError:
            return False

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-20:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Stop the master and every process it started (they would outlive it)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        group = proc.pid  # == its process group id (start_new_session)
        _signal_group(group, signal.SIGTERM)
        try:  # it usually ends within milliseconds, but now and then it lingers for seconds
            proc.wait(timeout=min(timeout, STOP_GRACE))
        except subprocess.TimeoutExpired:
            _signal_group(group, signal.SIGKILL)
            proc.wait(timeout=timeout)
        _signal_group(group, signal.SIGKILL)  # what is left of it has had its SIGTERM
        deadline = time.monotonic() + timeout
        while _group_runs(group) and time.monotonic() < deadline:
            time.sleep(0.01)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Dovecot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- mailbox helpers (as the user, over IMAP) --

    @contextlib.contextmanager
    def client(self, user: str) -> Iterator[IMAPClient]:
        client = IMAPClient(self.host, port=self.port, ssl=False, timeout=5.0)
        try:
            client.login(user, self.users[user])
            yield client
        finally:
            try:
                client.logout()
            except Exception:
                client.shutdown()

    def append(
        self,
        user: str,
        message: bytes,
        *,
        folder: str = "INBOX",
        flags: Sequence[str] = (),
        when: datetime | None = None,
    ) -> int:
        """Deliver ``message`` into ``folder``; returns its UID."""
        with self.client(user) as client:
            response = client.append(folder, message, flags=tuple(flags), msg_time=when)
        text = response.decode() if isinstance(response, bytes) else str(response)
        return int(text.split("APPENDUID", 1)[1].split()[1].rstrip("]"))

    def create_folder(self, user: str, folder: str) -> None:
        with self.client(user) as client:
            client.create_folder(folder)

    def delete_folder(self, user: str, folder: str) -> None:
        with self.client(user) as client:
            client.delete_folder(folder)

    def uidvalidity(self, user: str, folder: str = "INBOX") -> int:
        with self.client(user) as client:
            return int(client.folder_status(folder, [b"UIDVALIDITY"])[b"UIDVALIDITY"])

    def flags(self, user: str, folder: str = "INBOX") -> dict[int, set[str]]:
        """Every message's flags, read without changing them."""
        with self.client(user) as client:
            client.select_folder(folder, readonly=True)
            found = client.get_flags(client.search(["ALL"]))
        return {
            uid: {f.decode() if isinstance(f, bytes) else str(f) for f in flags}
            for uid, flags in found.items()
        }
