"""A real org.freedesktop.Notifications service for tests, run as a subprocess.

    python tests/desktop/fake_notification_server.py --record FILE [--capabilities a,b,c]

It owns ``org.freedesktop.Notifications`` on the session bus (``DBUS_SESSION_BUS_ADDRESS``),
appends one JSON object per ``Notify`` call to FILE (app_name, replaces_id, app_icon, summary,
body, actions, hints, expire_timeout, id) and prints ``ready`` once the name is acquired.

Tests drive the user's side through a private interface on ``/org/tic/Test``::

    org.tic.Test.Invoke(u id, s action_key)   -> emits ActionInvoked(id, key), then
                                                 NotificationClosed(id, 2 = dismissed)
    org.tic.Test.Close(u id, u reason)        -> emits NotificationClosed(id, reason)

e.g. ``dbus-send --session --type=method_call --print-reply
--dest=org.freedesktop.Notifications /org/tic/Test org.tic.Test.Invoke uint32:1 string:mute``.
It must run in its own process: a D-Bus service in a thread of a PySide6 process deadlocks
QtDBus.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

from dbus_fast import BusType, NameFlag, RequestNameReply, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.annotations import DBusDict, DBusInt32, DBusSignature, DBusStr, DBusUInt32
from dbus_fast.errors import DBusError
from dbus_fast.service import ServiceInterface, dbus_method, dbus_signal

BUS_NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
TEST_PATH = "/org/tic/Test"
TEST_INTERFACE = "org.tic.Test"
DEFAULT_CAPABILITIES = ("actions", "body", "body-markup")
REASON_DISMISSED = 2
REASON_CLOSED_BY_CALL = 3

StrList = Annotated[list[str], DBusSignature("as")]
ServerInfo = Annotated[tuple[str, str, str, str], DBusSignature("ssss")]
IdAndKey = Annotated[tuple[int, str], DBusSignature("us")]
IdAndReason = Annotated[tuple[int, int], DBusSignature("uu")]


def _plain(value: Any) -> Any:
    """Variants and nested containers as JSON-friendly values."""
    if isinstance(value, Variant):
        return _plain(value.value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


class Notifications(ServiceInterface):
    """The freedesktop notification spec, 1.2; D-Bus member names are CamelCase."""

    def __init__(self, record: Path, capabilities: list[str]) -> None:
        super().__init__(BUS_NAME)
        self._record = record
        self._capabilities = capabilities
        self._next_id = 1
        self.open_ids: set[int] = set()

    @dbus_method()
    def GetCapabilities(self) -> StrList:
        return list(self._capabilities)

    @dbus_method()
    def Notify(
        self,
        app_name: DBusStr,
        replaces_id: DBusUInt32,
        app_icon: DBusStr,
        summary: DBusStr,
        body: DBusStr,
        actions: StrList,
        hints: DBusDict,
        expire_timeout: DBusInt32,
    ) -> DBusUInt32:
        nid = replaces_id if replaces_id in self.open_ids else self._next_id
        if nid == self._next_id:
            self._next_id += 1
        self.open_ids.add(nid)
        entry = {
            "id": nid,
            "app_name": app_name,
            "replaces_id": replaces_id,
            "app_icon": app_icon,
            "summary": summary,
            "body": body,
            "actions": list(actions),
            "hints": _plain(hints),
            "expire_timeout": expire_timeout,
        }
        with self._record.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        return nid

    @dbus_method()
    def CloseNotification(self, nid: DBusUInt32):
        if nid in self.open_ids:
            self.close(nid, REASON_CLOSED_BY_CALL)

    @dbus_method()
    def GetServerInformation(self) -> ServerInfo:
        return ("tic-fake-notifications", "tic", "1.0", "1.2")

    @dbus_signal()
    def NotificationClosed(self, nid: int, reason: int) -> IdAndReason:
        return nid, reason

    @dbus_signal()
    def ActionInvoked(self, nid: int, action_key: str) -> IdAndKey:
        return nid, action_key

    def close(self, nid: int, reason: int) -> None:
        self.open_ids.discard(nid)
        self.NotificationClosed(nid, reason)


class TestControl(ServiceInterface):
    """What the user would do with a notification on screen."""

    def __init__(self, notifications: Notifications) -> None:
        super().__init__(TEST_INTERFACE)
        self._notifications = notifications

    @dbus_method()
    def Invoke(self, nid: DBusUInt32, action_key: DBusStr):
        if nid not in self._notifications.open_ids:
            raise DBusError("org.tic.Test.Error.UnknownId", f"no open notification {nid}")
        self._notifications.ActionInvoked(nid, action_key)
        self._notifications.close(nid, REASON_DISMISSED)

    @dbus_method()
    def Close(self, nid: DBusUInt32, reason: DBusUInt32):
        self._notifications.close(nid, reason)


async def serve(record: Path, capabilities: list[str]) -> None:
    bus = await MessageBus(bus_type=BusType.SESSION).connect()
    notifications = Notifications(record, capabilities)
    bus.export(PATH, notifications)
    bus.export(TEST_PATH, TestControl(notifications))
    reply = await bus.request_name(BUS_NAME, NameFlag.DO_NOT_QUEUE)
    if reply != RequestNameReply.PRIMARY_OWNER:
        print(f"could not own {BUS_NAME}: {reply}", file=sys.stderr, flush=True)
        raise SystemExit(1)
    print("ready", flush=True)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    disconnected = asyncio.ensure_future(bus.wait_for_disconnect())
    stopped = asyncio.ensure_future(stop.wait())
    await asyncio.wait({disconnected, stopped}, return_when=asyncio.FIRST_COMPLETED)
    for task in (disconnected, stopped):
        task.cancel()
    bus.disconnect()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, required=True, help="JSON lines of Notify calls")
    parser.add_argument(
        "--capabilities",
        default=",".join(DEFAULT_CAPABILITIES),
        help="comma-separated GetCapabilities answer",
    )
    args = parser.parse_args(argv)
    args.record.touch()
    caps = [c for c in args.capabilities.split(",") if c]
    asyncio.run(serve(args.record, caps))


if __name__ == "__main__":
    main()
