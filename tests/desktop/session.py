"""Isolated desktop sessions for real-desktop tests.

A :class:`DesktopSession` owns every process it starts: ``Xvfb`` (a free display, found by
``-displayfd``), a private ``dbus-daemon`` session bus (no service activation, so nothing on
the machine is auto-started behind the test's back), the fake notification server or
``dunst``, and ``trayer`` as the system-tray host. Every wait is bounded and everything is
stopped on exit, newest first::

    with isolated_session(xvfb=False) as session:            # a private bus only
        server = session.start_fake_notifications()
        with session.applied():                               # os.environ for in-process code
            ...
        server.notifications()                                # what Notify received

    with isolated_session() as session:                       # Xvfb + bus
        session.start_dunst()
        session.start_trayer()
        subprocess.run([...], env=session.env)                # children see the session

Plain functions and context managers only; wire them into fixtures where needed.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FAKE_SERVER_SCRIPT = HERE / "fake_notification_server.py"
NOTIFICATIONS_NAME = "org.freedesktop.Notifications"
SCREEN = "1280x800x24"
START_TIMEOUT = 10.0
STOP_TIMEOUT = 3.0
_XVFB_FLAGS = ("-nolisten", "tcp", "-noreset")
_TRAYER_FLAGS = ("--edge", "top", "--align", "right", "--SetDockType", "true")
_TRAYER_FLAGS += ("--widthtype", "request", "--transparent", "false")

# Variables a session replaces for its children (None: removed).
_SESSION_KEYS = ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR")

_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={socket_dir}</listen>
  <auth>EXTERNAL</auth>
  {service_dirs}
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

_DUNSTRC = """[global]
    monitor = 0
    follow = none
    width = 320
    height = 120
    origin = top-right
    offset = 10x40
    notification_limit = 0
    idle_threshold = 0
    show_indicators = no
    markup = full
    format = "<b>%s</b>\\n%b"
    history_length = 50
    sticky_history = yes
    mouse_left_click = do_action, close_current
    mouse_middle_click = close_current
    mouse_right_click = context

[urgency_low]
    timeout = 0

[urgency_normal]
    timeout = 0

[urgency_critical]
    timeout = 0
"""


class SessionError(RuntimeError):
    """A session process did not start (its log is in the message)."""


def _read_line(fd: int, proc: subprocess.Popen[bytes], timeout: float) -> str:
    """One line from a child's pipe, or SessionError after ``timeout`` or if it exits."""
    deadline = time.monotonic() + timeout
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SessionError(f"{proc.args[0]}: no answer within {timeout:.0f}s")
        ready, _, _ = select.select([fd], [], [], min(left, 0.2))
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                raise SessionError(f"{proc.args[0]} closed its output (exit {proc.poll()})")
            data += chunk
        elif proc.poll() is not None:
            raise SessionError(f"{proc.args[0]} exited with {proc.returncode}")
    return data.split(b"\n", 1)[0].decode().strip()


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``predicate`` every 50 ms; SessionError naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SessionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.05)


def _stop(proc: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM the child's process group, SIGKILL it if it lingers; always reap it."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@dataclass
class DesktopSession:
    """Processes of one isolated session, and the environment their peers need."""

    tmp: Path
    overrides: dict[str, str | None] = field(default_factory=dict)
    _procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        """``os.environ`` with this session's DISPLAY / bus address, for child processes."""
        env = dict(os.environ)
        for key, value in self.overrides.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    @property
    def display(self) -> str | None:
        return self.overrides.get("DISPLAY")

    @property
    def bus_address(self) -> str | None:
        return self.overrides.get("DBUS_SESSION_BUS_ADDRESS")

    @contextlib.contextmanager
    def applied(self) -> Iterator[dict[str, str]]:
        """Set this session's variables in ``os.environ`` (for in-process code); restore after."""
        saved = {key: os.environ.get(key) for key in self.overrides}
        try:
            for key, value in self.overrides.items():
                _set_env(key, value)
            yield dict(os.environ)
        finally:
            for key, value in saved.items():
                _set_env(key, value)

    # -- processes ---------------------------------------------------------------------

    def spawn(
        self, args: list[str], name: str, *, stdout: int | None = None, **kwargs: Any
    ) -> subprocess.Popen[bytes]:
        """Start a child in the session (own process group, stderr to ``tmp/<name>.log``)."""
        with (self.tmp / f"{name}.log").open("ab") as log:
            proc = subprocess.Popen(
                args,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=stdout if stdout is not None else log,
                stderr=log,
                start_new_session=True,
                **kwargs,
            )
        self._procs.append(proc)
        return proc

    def log(self, name: str) -> str:
        path = self.tmp / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self, proc: subprocess.Popen[bytes]) -> None:
        _stop(proc)
        if proc in self._procs:
            self._procs.remove(proc)

    def close(self) -> None:
        """Stop every process, newest first, and remove the temporary directory."""
        while self._procs:
            _stop(self._procs.pop())
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, args: list[str], timeout: float = START_TIMEOUT) -> subprocess.CompletedProcess:
        """Run a command to completion inside the session; text output, never raises on rc."""
        return subprocess.run(
            args, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )

    # -- X display ---------------------------------------------------------------------

    def start_xvfb(self, screen: str = SCREEN, timeout: float = START_TIMEOUT) -> str:
        """Xvfb on a free display (chosen by Xvfb itself via -displayfd); returns ``:N``."""
        read_fd, write_fd = os.pipe()
        try:
            proc = self.spawn(
                ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", screen, *_XVFB_FLAGS],
                "xvfb",
                pass_fds=(write_fd,),
            )
            os.close(write_fd)
            write_fd = -1
            number = _read_line(read_fd, proc, timeout)
        except SessionError as exc:
            raise SessionError(f"{exc}\n{self.log('xvfb')}") from None
        finally:
            os.close(read_fd)
            if write_fd >= 0:
                os.close(write_fd)
        display = f":{number}"
        self.overrides["DISPLAY"] = display
        self.overrides["WAYLAND_DISPLAY"] = None
        return display

    # -- D-Bus -------------------------------------------------------------------------

    def start_dbus(
        self, service_dirs: tuple[Path, ...] = (), timeout: float = START_TIMEOUT
    ) -> str:
        """A private session bus; no D-Bus activation unless ``service_dirs`` are given."""
        config = self.tmp / "session.conf"
        dirs = "\n  ".join(f"<servicedir>{d}</servicedir>" for d in service_dirs)
        config.write_text(_BUS_CONFIG.format(socket_dir=self.tmp, service_dirs=dirs))
        proc = self.spawn(
            ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address"],
            "dbus",
            stdout=subprocess.PIPE,
        )
        assert proc.stdout is not None
        try:
            address = _read_line(proc.stdout.fileno(), proc, timeout)
        except SessionError as exc:
            raise SessionError(f"{exc}\n{self.log('dbus')}") from None
        self.overrides["DBUS_SESSION_BUS_ADDRESS"] = address
        return address

    def dbus_send(
        self, dest: str, path: str, member: str, *args: str
    ) -> subprocess.CompletedProcess:
        """Call ``member`` (interface.Method) on the session bus; args as dbus-send types."""
        command = ["dbus-send", "--session", "--print-reply", f"--dest={dest}", path, member]
        return self.run([*command, *args])

    def has_name(self, name: str) -> bool:
        """Whether ``name`` has an owner on the session bus."""
        out = self.dbus_send(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            f"string:{name}",
        )
        return out.returncode == 0 and "boolean true" in out.stdout

    def wait_for_name(self, name: str, timeout: float = START_TIMEOUT) -> None:
        wait_until(lambda: self.has_name(name), timeout, f"{name} on the session bus")

    # -- notification servers -----------------------------------------------------------

    def start_fake_notifications(
        self,
        record: Path | None = None,
        capabilities: tuple[str, ...] | None = None,
        timeout: float = START_TIMEOUT,
    ) -> FakeNotificationServer:
        """The recording org.freedesktop.Notifications service, ready when this returns."""
        if self.bus_address is None:
            raise SessionError("start_dbus() first")
        record = record or self.tmp / "notifications.jsonl"
        args = [sys.executable, str(FAKE_SERVER_SCRIPT), "--record", str(record)]
        if capabilities is not None:
            args += ["--capabilities", ",".join(capabilities)]
        proc = self.spawn(args, "fake-notifications", stdout=subprocess.PIPE)
        assert proc.stdout is not None
        try:
            line = _read_line(proc.stdout.fileno(), proc, timeout)
        except SessionError as exc:
            raise SessionError(f"{exc}\n{self.log('fake-notifications')}") from None
        if line != "ready":
            raise SessionError(f"fake notification server said {line!r}")
        return FakeNotificationServer(self, proc, record)

    def start_dunst(self, timeout: float = START_TIMEOUT) -> subprocess.Popen[bytes]:
        """dunst on this display with a minimal config (notifications never expire)."""
        if self.display is None or self.bus_address is None:
            raise SessionError("start_xvfb() and start_dbus() first")
        config = self.tmp / "dunstrc"
        config.write_text(_DUNSTRC)
        proc = self.spawn(["dunst", "-config", str(config)], "dunst")
        try:
            self.wait_for_name(NOTIFICATIONS_NAME, timeout)
        except SessionError as exc:
            raise SessionError(f"{exc}\n{self.log('dunst')}") from None
        return proc

    def dunst_displayed(self) -> int:
        """How many notifications dunst shows right now (``dunstctl count displayed``)."""
        out = self.run(["dunstctl", "count", "displayed"])
        return int(out.stdout.strip() or 0) if out.returncode == 0 else 0

    def dunst_history(self) -> list[dict[str, Any]]:
        """dunst's history as plain dicts (``dunstctl history``, values unwrapped)."""
        out = self.run(["dunstctl", "history"])
        if out.returncode != 0 or not out.stdout.strip():
            return []
        rows = json.loads(out.stdout)["data"][0]
        return [{key: value.get("data") for key, value in row.items()} for row in rows]

    # -- tray host ---------------------------------------------------------------------

    def start_trayer(self, timeout: float = START_TIMEOUT) -> subprocess.Popen[bytes]:
        """trayer as the system-tray host, ready when its panel window is mapped."""
        if self.display is None:
            raise SessionError("start_xvfb() first")
        proc = self.spawn(
            ["trayer", *_TRAYER_FLAGS],
            "trayer",
        )

        def mapped() -> bool:
            if proc.poll() is not None:
                raise SessionError(f"trayer exited with {proc.returncode}\n{self.log('trayer')}")
            # trayer maps its panel (class "trayer", name "panel") once it hosts the tray
            out = self.run(["xdotool", "search", "--onlyvisible", "--class", "trayer"])
            return out.returncode == 0 and bool(out.stdout.strip())

        wait_until(mapped, timeout, "the trayer window")
        return proc

    def screenshot(self, path: Path) -> Path:
        """The whole screen as an image (ImageMagick ``import``), e.g. for a failing test."""
        out = self.run(["import", "-window", "root", str(path)])
        if out.returncode != 0:
            raise SessionError(f"screenshot failed: {out.stderr}")
        return path


@dataclass
class FakeNotificationServer:
    """The running fake server: what it recorded, and the user's clicks on its toasts."""

    session: DesktopSession
    proc: subprocess.Popen[bytes]
    record: Path

    def notifications(self) -> list[dict[str, Any]]:
        """Every Notify call so far (app_name, summary, body, actions, hints, id, ...)."""
        text = self.record.read_text(encoding="utf-8") if self.record.exists() else ""
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def wait_for_notifications(
        self, count: int = 1, timeout: float = START_TIMEOUT
    ) -> list[dict[str, Any]]:
        wait_until(lambda: len(self.notifications()) >= count, timeout, f"{count} Notify calls")
        return self.notifications()

    def invoke(self, nid: int, action_key: str) -> None:
        """The user clicks ``action_key`` ("default" = the toast body) on toast ``nid``."""
        self._call("Invoke", f"uint32:{nid}", f"string:{action_key}")

    def close(self, nid: int, reason: int = 2) -> None:
        """The toast goes away (1 expired, 2 dismissed, 3 closed by call, 4 undefined)."""
        self._call("Close", f"uint32:{nid}", f"uint32:{reason}")

    def stop(self) -> None:
        self.session.stop(self.proc)

    def _call(self, method: str, *args: str) -> None:
        out = self.session.dbus_send(
            NOTIFICATIONS_NAME, "/org/tic/Test", f"org.tic.Test.{method}", *args
        )
        if out.returncode != 0:
            raise SessionError(f"org.tic.Test.{method}{args} failed: {out.stderr.strip()}")


def _set_env(key: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = value


@contextlib.contextmanager
def isolated_session(*, xvfb: bool = True, dbus: bool = True) -> Iterator[DesktopSession]:
    """A fresh session: Xvfb and/or a private bus started, everything stopped on exit.

    Variables the session does not provide are removed for its children (no DISPLAY without
    Xvfb, no bus address without dbus), so nothing leaks to the developer's real desktop.
    """
    tmp = Path(tempfile.mkdtemp(prefix="tic-desktop-"))  # short: unix socket paths
    runtime = tmp / "runtime"
    runtime.mkdir(mode=0o700)
    session = DesktopSession(tmp, overrides=dict.fromkeys(_SESSION_KEYS))
    session.overrides["XDG_RUNTIME_DIR"] = str(runtime)
    atexit.register(session.close)
    try:
        if xvfb:
            session.start_xvfb()
        if dbus:
            session.start_dbus()
        yield session
    finally:
        session.close()
        atexit.unregister(session.close)
