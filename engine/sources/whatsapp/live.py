"""Live WhatsApp messages through neonize (a Python binding of whatsmeow), opt-in only.

This links the computer as a WhatsApp Web device, paired by QR code. It is an unofficial client:
the user must accept :data:`UNOFFICIAL_WARNING` first. The session keys live in a SQLite file in
the workspace, readable by the user only (file 0600, folder 0700).

neonize's client blocks, so it runs on a background thread. Its message events are converted to
canonical events and pushed into a thread-safe queue that :meth:`WhatsAppLiveSource.fetch`
drains: each message wakes the runner at once (``watch``), and it polls every few seconds
besides; ``on_event`` is called for each one too, on the event loop. Nothing the client
raises escapes as a traceback: a disconnect becomes a TransientError on the next fetch, a
logout becomes NeedsSignIn.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import platform
import queue
import threading
import warnings
from collections.abc import Callable, Collection, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.clock import utcnow
from engine.events import Chat, Event, Person
from engine.extras import ExtraMissing, import_extra
from engine.sources.base import Batch, NeedsSignIn, Source, SourceError, TransientError
from engine.tasks import one_line

log = logging.getLogger(__name__)

UNOFFICIAL_WARNING = (
    "Live WhatsApp sync uses an unofficial client (neonize, built on whatsmeow) that links this "
    "computer to your account as a WhatsApp Web device. It is not made or endorsed by WhatsApp "
    "or Meta, it may stop working at any time, and WhatsApp may restrict or ban numbers that "
    "use unofficial clients. The session keys are stored in your workspace: anyone who can "
    "read them can read your messages. Importing chat exports is the safe alternative."
)

PHONE_SERVER = "s.whatsapp.net"
GROUP_SERVER = "g.us"
SKIPPED_SERVERS = frozenset({"broadcast", "newsletter"})  # status updates, channels


class OptInRequired(SourceError):
    """Live WhatsApp was started without accepting the unofficial-client warning."""


# --- neonize, imported quietly -------------------------------------------------------------


@contextlib.contextmanager
def _uname_without_a_pipe() -> Iterator[None]:
    """neonize's import runs ``os.popen("uname -a").read()`` (to spot Android) and never closes
    the pipe: a ResourceWarning whenever the process is reaped, far from here. Answer it from
    ``platform.uname()`` instead while neonize loads."""
    real_popen = os.popen

    def popen(cmd: str, mode: str = "r", buffering: int = -1) -> Any:
        if cmd == "uname -a":
            return io.StringIO(" ".join(platform.uname()))
        return real_popen(cmd, mode, buffering)

    os.popen = popen
    try:
        yield
    finally:
        os.popen = real_popen


def load_neonize() -> dict[str, Any]:
    """neonize's client class and event types. Importing neonize leaks a pipe and calls
    ``logging.basicConfig``; both are contained here."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        with warnings.catch_warnings(), _uname_without_a_pipe():
            warnings.simplefilter("ignore", ResourceWarning)
            import_extra("neonize")  # only with the whatsapp extra
            from neonize import client as neonize_client
            from neonize import events as neonize_events
            from neonize.utils import ffmpeg
    except ExtraMissing as exc:
        raise SourceError(str(exc)) from None
    except Exception as exc:  # a broken install, or OSError loading its native library
        raise SourceError(f"neonize cannot load ({exc}); reinstall the whatsapp extra") from None
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    # We never touch media, so its "ffmpeg missing" warning would only mislead.
    if hasattr(ffmpeg, "_ffmpeg_checked"):
        ffmpeg._ffmpeg_checked = True
    ev = neonize_events
    return {
        "NewClient": neonize_client.NewClient,
        "MessageEv": ev.MessageEv,
        "ConnectedEv": ev.ConnectedEv,
        "DisconnectedEv": ev.DisconnectedEv,
        "LoggedOutEv": ev.LoggedOutEv,
        "PairStatusEv": ev.PairStatusEv,
        "ConnectFailureEv": ev.ConnectFailureEv,
        "StreamReplacedEv": ev.StreamReplacedEv,
        "TemporaryBanEv": ev.TemporaryBanEv,
        "ClientOutdatedEv": ev.ClientOutdatedEv,
        "KeepAliveTimeoutEv": ev.KeepAliveTimeoutEv,
        "KeepAliveRestoredEv": ev.KeepAliveRestoredEv,
    }


# --- reading protobuf (or look-alike) objects ----------------------------------------------


def _sub(obj: Any, name: str) -> Any:
    """The sub-message ``obj.name`` when it is set, else None (protobuf or plain objects)."""
    if obj is None:
        return None
    has_field = getattr(obj, "HasField", None)
    if has_field is not None:
        try:
            return getattr(obj, name) if has_field(name) else None
        except ValueError:  # not a field of this message type
            return None
    return getattr(obj, name, None) or None


def _str(obj: Any, name: str) -> str:
    value = getattr(obj, name, "") if obj is not None else ""
    return value if isinstance(value, str) else ""


def jid_str(jid: Any) -> str:
    """``user@server`` for a JID object (device and agent left out); "" when empty."""
    user, server = _str(jid, "User"), _str(jid, "Server")
    if not server:
        return ""
    return f"{user}@{server}" if user else server


def bare_jid(jid: str) -> str:
    """``"3933312:5@s.whatsapp.net"`` → ``"3933312@s.whatsapp.net"``."""
    user, _, server = jid.partition("@")
    return f"{user.split(':')[0].split('.')[0]}@{server}" if server else jid


_WRAPPERS = (
    "ephemeralMessage",
    "viewOnceMessage",
    "viewOnceMessageV2",
    "viewOnceMessageV2Extension",
    "documentWithCaptionMessage",
)


def _unwrap(message: Any) -> Any:
    """The content inside ephemeral / view-once / document-with-caption envelopes."""
    for _ in range(4):
        wrapper = next((_sub(message, w) for w in _WRAPPERS if _sub(message, w)), None)
        inner = _sub(wrapper, "message")
        if inner is None:
            return message
        message = inner
    return message


def _with_caption(tag: str, caption: str) -> str:
    caption = caption.strip()
    return f"{tag} {caption}" if caption else tag


def _video(part: Any) -> str:
    tag = "[gif]" if getattr(part, "gifPlayback", False) else "[video]"
    return _with_caption(tag, _str(part, "caption"))


def _audio(part: Any) -> str:
    return "[voice message]" if getattr(part, "PTT", False) else "[audio]"


def _document(part: Any) -> str:
    name = _str(part, "fileName") or _str(part, "title")
    return _with_caption(f"[document: {name}]" if name else "[document]", _str(part, "caption"))


def _location(part: Any) -> str:
    where = " ".join(x for x in (_str(part, "name"), _str(part, "address")) if x)
    return _with_caption("[location]", where)


def _tagged(tag: str, caption_field: str | None = None) -> Callable[[Any], str]:
    """``tag``, followed by the part's ``caption_field`` when it has one."""

    def describe(part: Any) -> str:
        return _with_caption(tag, _str(part, caption_field)) if caption_field else tag

    return describe


# The parts a message may carry besides text, in the order they are looked for, each with
# the words that stand for it.
_PARTS: tuple[tuple[str, Callable[[Any], str]], ...] = (
    ("imageMessage", _tagged("[image]", "caption")),
    ("videoMessage", _video),
    ("ptvMessage", _tagged("[video note]")),
    ("audioMessage", _audio),
    ("documentMessage", _document),
    ("stickerMessage", _tagged("[sticker]")),
    ("locationMessage", _location),
    ("liveLocationMessage", _tagged("[live location]", "caption")),
    ("contactMessage", _tagged("[contact]", "displayName")),
    ("contactsArrayMessage", _tagged("[contacts]", "displayName")),
    ("pollCreationMessage", _tagged("[poll]", "name")),
    ("pollCreationMessageV2", _tagged("[poll]", "name")),
    ("pollCreationMessageV3", _tagged("[poll]", "name")),
)


def message_content(message: Any) -> tuple[str, Any] | None:
    """(text, the part carrying contextInfo) of a WhatsApp message; None when it has nothing
    to read (reactions, edits, deletions, receipts of keys...)."""
    message = _unwrap(message)
    if message is None:
        return None
    conversation = _str(message, "conversation")
    if conversation:
        return conversation, _sub(message, "messageContextInfo")
    part = _sub(message, "extendedTextMessage")
    if part is not None and _str(part, "text"):
        return _str(part, "text"), part
    for name, describe in _PARTS:
        part = _sub(message, name)
        if part is not None:
            return describe(part), part
    return None


def _mentioned(part: Any) -> list[str]:
    context = _sub(part, "contextInfo")
    return [str(j) for j in getattr(context, "mentionedJID", None) or []]


def _time(timestamp: int) -> datetime:
    if timestamp <= 0:
        return utcnow()
    seconds = timestamp / 1000 if timestamp > 100_000_000_000 else timestamp  # ms or s
    return datetime.fromtimestamp(seconds, UTC)


def _phone(jid: Any) -> str | None:
    if _str(jid, "Server") == PHONE_SERVER and _str(jid, "User").isdigit():
        return "+" + _str(jid, "User")
    return None


def message_to_event(
    ev: Any, *, own_jids: Collection[str] = (), chat_name: str | None = None
) -> Event | None:
    """A neonize ``MessageEv`` as a canonical event; None for the user's own messages, status
    updates, channels and messages without readable content."""
    info = _sub(ev, "Info")
    source = _sub(info, "MessageSource")
    if info is None or source is None or getattr(source, "IsFromMe", False):
        return None
    chat, sender = _sub(source, "Chat"), _sub(source, "Sender")
    chat_id = jid_str(chat)
    message_id = _str(info, "ID")
    if not chat_id or not message_id or _str(chat, "Server") in SKIPPED_SERVERS:
        return None
    content = message_content(_sub(ev, "Message"))
    if content is None:
        return None
    text, part = content
    is_group = _str(chat, "Server") == GROUP_SERVER
    phone = _phone(sender) or _phone(_sub(source, "SenderAlt"))
    push_name = _str(info, "Pushname").strip() or None
    mine = {bare_jid(j) for j in own_jids if j}
    if is_group:
        name = chat_name or _str(chat, "User")
    else:
        name = chat_name or push_name or phone or _str(chat, "User")
    return Event(
        id=f"whatsapp:{message_id}",
        source="whatsapp",
        event_type="whatsapp.message",
        time=_time(int(getattr(info, "Timestamp", 0) or 0)),
        sender=Person(name=push_name or phone, address=phone),
        text=text,
        chat=Chat(id=chat_id, name=name, is_group=is_group),
        mentions_me=any(bare_jid(j) in mine for j in _mentioned(part)),
        refs={"chat_jid": chat_id, "message_id": message_id, "sender_jid": jid_str(sender)},
    )


# --- session storage -----------------------------------------------------------------------


def session_db_path(workspace_root: Path) -> Path:
    """Where the desktop keeps the session: ``<workspace>/whatsapp/session.db``."""
    return Path(workspace_root) / "whatsapp" / "session.db"


def secure_session_storage(db_path: Path) -> None:
    """Create the session folder (0700) and database file (0600), and tighten existing ones
    (SQLite's -wal/-shm/-journal companions included)."""
    folder = db_path.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    if not db_path.exists():
        os.close(os.open(db_path, os.O_CREAT | os.O_WRONLY, 0o600))
    for path in (db_path, *(Path(f"{db_path}{s}") for s in ("-wal", "-shm", "-journal"))):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(path, 0o600)


# --- the source ----------------------------------------------------------------------------


_LOGOUT_REASONS = {"LOGGED_OUT", "MAIN_DEVICE_GONE", "UNKNOWN_LOGOUT"}


class WhatsAppLiveSource(Source):
    """Messages as they arrive, from a WhatsApp Web session paired by QR code."""

    kind = "whatsapp-live"
    poll_seconds = 2.0

    def __init__(
        self,
        session_db: Path | str,
        *,
        accepted_unofficial_warning: bool = False,
        on_qr: Callable[[bytes | str], object],
        on_event: Callable[[Event], None] | None = None,
        account: str = "default",
        own_jids: Collection[str] = (),
        client_factory: Callable[[str], Any] | None = None,
    ):
        if not accepted_unofficial_warning:
            raise OptInRequired(
                "live WhatsApp is off: the user has not accepted the warning about unofficial "
                "clients (pass accepted_unofficial_warning=True once they have)"
            )
        super().__init__(account)
        self.session_db = Path(session_db).expanduser()
        self.on_qr = on_qr
        self.on_event = on_event
        self._client_factory = client_factory
        self._own_jids: set[str] = set(own_jids)
        self._queue: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._problem: SourceError | None = None  # raised on every fetch until reconnect()
        self._transient: TransientError | None = None  # raised once, then the client restarts
        self._disconnected = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._group_names: dict[str, str] = {}
        self._on_new: Callable[[], None] | None = None
        secure_session_storage(self.session_db)

    # -- the runner's side

    async def fetch(self, cursor: str | None) -> Batch:
        secure_session_storage(self.session_db)
        events = list(self._drain())
        if events:
            return Batch(events=events, cursor=cursor)
        with self._lock:
            problem, transient = self._problem, self._transient
            self._transient = None
            disconnected = self._disconnected
        if problem is not None:
            raise problem
        if transient is not None:
            raise transient
        if not self.running:
            self.start()
        elif disconnected:
            raise TransientError("WhatsApp is disconnected; reconnecting")
        return Batch(events=[], cursor=cursor)

    def watch(self, on_new: Callable[[], None]) -> None:
        """Each message, as it comes, has the runner fetch it at once."""
        self._on_new = on_new

    async def close(self) -> None:
        self._stopping = True
        client, thread = self._client, self._thread
        if client is not None:
            with contextlib.suppress(Exception):
                client.stop()
        if thread is not None:
            await asyncio.to_thread(thread.join, 10.0)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Connect in a background thread (pairing shows a QR code through ``on_qr``)."""
        if self.running:
            return
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        self._stopping = False
        self._thread = threading.Thread(
            target=self._run_client, name=f"whatsapp-live:{self.account}", daemon=True
        )
        self._thread.start()

    async def reconnect(self) -> None:
        """Forget a sign-in or other problem and connect again (e.g. to pair a new QR code)."""
        await self.close()
        with self._lock:
            self._problem = self._transient = None
            self._disconnected = False
        self.start()

    def _drain(self) -> Iterator[Event]:
        while True:
            try:
                yield self._queue.get_nowait()
            except queue.Empty:
                return

    # -- the client thread

    def _make_client(self) -> Any:
        if self._client_factory is not None:
            client = self._client_factory(str(self.session_db))
        else:
            client = load_neonize()["NewClient"](str(self.session_db))
        self._register(client)
        return client

    def _register(self, client: Any) -> None:
        types = load_neonize() if self._client_factory is None else _stand_in_types(client)
        client.event.qr(lambda _c, data: self.handle_qr(data))
        handlers: dict[str, Callable[[Any], None]] = {
            "MessageEv": self.handle_message,
            "ConnectedEv": lambda _ev: self.handle_connected(),
            "PairStatusEv": self.handle_pair_status,
            "DisconnectedEv": lambda _ev: self.handle_disconnected(),
            "KeepAliveTimeoutEv": lambda _ev: self.handle_disconnected(),
            "KeepAliveRestoredEv": lambda _ev: self.handle_connected(),
            "LoggedOutEv": self.handle_logged_out,
            "ConnectFailureEv": self.handle_connect_failure,
            "StreamReplacedEv": lambda _ev: self._fail(
                SourceError("another WhatsApp Web session replaced this one")
            ),
            "TemporaryBanEv": lambda _ev: self._fail(
                SourceError("WhatsApp temporarily banned this account")
            ),
            "ClientOutdatedEv": lambda _ev: self._fail(
                SourceError("WhatsApp rejected this client as outdated: update neonize")
            ),
        }
        for name, handler in handlers.items():
            if name in types:
                client.event(types[name])(self._guarded(name, handler))

    def _guarded(self, name: str, handler: Callable[[Any], None]) -> Callable[[Any, Any], None]:
        def call(_client: Any, ev: Any) -> None:
            try:
                handler(ev)
            except Exception as exc:  # never let a traceback cross into neonize's thread
                log.warning("whatsapp-live: could not handle %s: %s", name, one_line(exc))

        return call

    def _run_client(self) -> None:
        try:
            self._client = self._make_client()
            if self._stopping:
                return
            self._client.connect()
        except SourceError as exc:  # neonize missing: retrying will not help
            self._fail(exc)
            return
        except Exception as exc:
            if not self._stopping:
                log.info("whatsapp-live: connection failed: %s", one_line(exc))
                self._set_transient(f"WhatsApp connection failed: {one_line(exc)}")
            return
        if not self._stopping:
            self._set_transient("the WhatsApp connection ended; reconnecting")

    def _set_transient(self, message: str) -> None:
        with self._lock:
            if self._problem is None:
                self._transient = TransientError(message)

    def _fail(self, problem: SourceError) -> None:
        log.info("whatsapp-live: %s", problem)
        with self._lock:
            self._problem = problem

    # -- neonize events (called on the client's thread; public so tests can feed them)

    def handle_qr(self, data: bytes | str) -> None:
        payload = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        self._call_soon(self.on_qr, payload, "the QR code could not be shown")

    def handle_connected(self) -> None:
        with self._lock:
            self._disconnected = False
            if isinstance(self._problem, NeedsSignIn):
                self._problem = None
        me = getattr(self._client, "me", None)
        if me is None and hasattr(self._client, "get_me"):
            try:
                me = self._client.get_me()
            except Exception as exc:
                log.info("whatsapp-live: cannot read the own account: %s", one_line(exc))
        for field in ("JID", "LID"):
            jid = jid_str(_sub(me, field))
            if jid:
                self._own_jids.add(bare_jid(jid))

    def handle_disconnected(self) -> None:
        with self._lock:
            self._disconnected = True

    def handle_logged_out(self, ev: Any = None) -> None:
        self._fail(NeedsSignIn("WhatsApp logged this computer out; pair it again with a QR code"))

    def handle_pair_status(self, ev: Any) -> None:
        error = _str(ev, "Error")
        if error:
            self._set_transient(f"WhatsApp pairing failed: {error}")
        else:
            log.info("whatsapp-live: paired")

    def handle_connect_failure(self, ev: Any) -> None:
        reason = _enum_name(ev, "Reason")
        detail = _str(ev, "Message") or reason or "unknown reason"
        if reason in _LOGOUT_REASONS:
            self.handle_logged_out(ev)
        elif reason == "CLIENT_OUTDATED":
            self._fail(SourceError("WhatsApp rejected this client as outdated: update neonize"))
        elif reason == "TEMP_BANNED":
            self._fail(SourceError("WhatsApp temporarily banned this account"))
        else:
            self._set_transient(f"WhatsApp refused the connection: {detail}")

    def handle_message(self, ev: Any) -> None:
        event = message_to_event(ev, own_jids=self._own_jids)
        if event is None:
            return
        if event.chat is not None and event.chat.is_group:
            name = self._group_name(ev)
            if name:
                event = event.model_copy(
                    update={"chat": event.chat.model_copy(update={"name": name})}
                )
        self._queue.put(event)
        on_new = self._on_new
        if on_new is not None:
            on_new()
        if self.on_event is not None:
            self._call_soon(self.on_event, event, "on_event failed")

    def _call_soon(self, hook: Callable[[Any], object], arg: Any, failure: str) -> None:
        """Run a user hook on the event loop (where UI code lives), else right here."""

        def call() -> None:
            try:
                hook(arg)
            except Exception as exc:
                log.warning("whatsapp-live: %s: %s", failure, one_line(exc))

        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(call)
                return
            except RuntimeError:  # the loop closed in between
                pass
        call()

    def _group_name(self, ev: Any) -> str | None:
        """The group's subject, asked of WhatsApp once per group."""
        chat = _sub(_sub(_sub(ev, "Info"), "MessageSource"), "Chat")
        jid = jid_str(chat)
        if self._client is None:
            return None
        if jid not in self._group_names:
            lookup = getattr(self._client, "get_group_info", None)
            try:
                name = _str(_sub(lookup(chat), "GroupName"), "Name") if lookup else ""
            except Exception as exc:
                log.info("whatsapp-live: no name for group %s: %s", jid, one_line(exc))
                return None
            if not name:
                return None
            self._group_names[jid] = name
        return self._group_names[jid]


def _enum_name(ev: Any, field: str) -> str:
    value = getattr(ev, field, None)
    descriptor = getattr(ev, "DESCRIPTOR", None)
    if descriptor is not None and value is not None:
        enum = descriptor.fields_by_name[field].enum_type
        if enum is not None and value in enum.values_by_number:
            return enum.values_by_number[value].name
    return str(value or "")


def _stand_in_types(client: Any) -> dict[str, Any]:
    """Event types for an injected client: its own ``EVENT_TYPES``, else neonize's."""
    types = getattr(client, "EVENT_TYPES", None)
    return dict(types) if types is not None else load_neonize()
