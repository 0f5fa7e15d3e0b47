"""engine.sources.whatsapp_live: opt-in, session file permissions, neonize message events
(real neonize protobuf objects, built by hand) to canonical events, and the push queue with its
status mapping. Nothing connects anywhere: the client is a stand-in."""

from __future__ import annotations

import asyncio
import logging
import stat
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine.events import Event
from engine.sources.base import NeedsSignIn, SourceError, TransientError
from engine.sources.sync import sync_once
from engine.sources.whatsapp.live import (
    UNOFFICIAL_WARNING,
    OptInRequired,
    WhatsAppLiveSource,
    load_neonize,
    message_to_event,
    session_db_path,
)
from engine.store.models import EventRecord

try:  # imports neonize quietly (it leaks a pipe and configures logging)
    NEONIZE = load_neonize()
except SourceError as exc:  # e.g. no libmagic (apt-get install libmagic1)
    pytest.skip(str(exc), allow_module_level=True)
ME = "393330000001@s.whatsapp.net"
ME_LID = "112233445566@lid"
MARCO = "393331112222"


def _protos() -> tuple[ModuleType, ModuleType]:
    from neonize.proto import Neonize_pb2
    from neonize.proto.waE2E import WAWebProtobufsE2E_pb2

    return Neonize_pb2, WAWebProtobufsE2E_pb2


N, E = _protos()


def jid(text: str) -> Any:
    user, _, server = text.partition("@")
    return N.JID(User=user, Server=server, RawAgent=0, Device=0, Integrator=0, IsEmpty=False)


def message_ev(
    content: Any,
    *,
    msg_id: str = "3EB0C0FFEE",
    chat: str = f"{MARCO}@s.whatsapp.net",
    sender: str = f"{MARCO}@s.whatsapp.net",
    sender_alt: str | None = None,
    push_name: str = "Marco",
    timestamp: int = 1_710_235_000_000,  # ms: 2024-03-12T09:16:40Z
    from_me: bool = False,
) -> Any:
    source = N.MessageSource(
        Chat=jid(chat),
        Sender=jid(sender),
        IsFromMe=from_me,
        IsGroup=chat.endswith("@g.us"),
    )
    if sender_alt:
        source.SenderAlt.CopyFrom(jid(sender_alt))
    info = N.MessageInfo(
        MessageSource=source, ID=msg_id, Pushname=push_name, Timestamp=timestamp, Type="text"
    )
    return N.Message(Info=info, Message=content)


def text(value: str) -> Any:
    return E.Message(conversation=value)


# --- opt-in and storage --------------------------------------------------------------------


def test_live_source_is_opt_in(tmp_path: Path) -> None:
    assert "unofficial" in UNOFFICIAL_WARNING and "ban" in UNOFFICIAL_WARNING
    with pytest.raises(OptInRequired, match="not accepted the warning about unofficial"):
        WhatsAppLiveSource(tmp_path / "wa" / "session.db", on_qr=print)
    assert not (tmp_path / "wa").exists()  # nothing written before the user agreed
    assert issubclass(OptInRequired, SourceError)


def test_session_storage_is_private(tmp_path: Path) -> None:
    db = session_db_path(tmp_path)
    db.parent.mkdir(mode=0o755)
    db.write_bytes(b"")
    db.chmod(0o644)

    source = _source(db)

    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert source.session_db == db

    fresh = tmp_path / "other" / "session.db"
    _source(fresh)
    assert stat.S_IMODE(fresh.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


async def test_sqlite_companion_files_are_tightened_on_fetch(tmp_path: Path) -> None:
    db = session_db_path(tmp_path)
    source = _source(db)
    wal = _loose_file(Path(f"{db}-wal"))  # SQLite creates it once the session is used
    try:
        await source.fetch(None)
    finally:
        await source.close()
    assert _mode(wal) == 0o600


def _loose_file(path: Path) -> Path:
    path.write_bytes(b"")
    path.chmod(0o644)
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- the converter -------------------------------------------------------------------------


def test_direct_text_message() -> None:
    event = message_to_event(message_ev(text("Are we still on for Friday?")))
    assert event is not None
    assert event.id == "whatsapp:3EB0C0FFEE"
    assert (event.source, event.event_type) == ("whatsapp", "whatsapp.message")
    assert event.time.isoformat() == "2024-03-12T09:16:40+00:00"
    assert event.text == "Are we still on for Friday?"
    assert event.sender is not None
    assert (event.sender.name, event.sender.address) == ("Marco", "+393331112222")
    assert event.chat is not None
    assert (event.chat.id, event.chat.name, event.chat.is_group) == (
        f"{MARCO}@s.whatsapp.net",
        "Marco",
        False,
    )
    assert event.mentions_me is False
    assert event.refs == {
        "chat_jid": f"{MARCO}@s.whatsapp.net",
        "message_id": "3EB0C0FFEE",
        "sender_jid": f"{MARCO}@s.whatsapp.net",
    }


def test_timestamp_in_seconds_is_understood_too() -> None:
    event = message_to_event(message_ev(text("hi"), timestamp=1_710_235_000))
    assert event is not None and event.time.isoformat() == "2024-03-12T09:16:40+00:00"


def test_group_message_mentioning_me() -> None:
    content = E.Message(
        extendedTextMessage=E.ExtendedTextMessage(
            text="@393330000001 can you bring the book?",
            contextInfo=E.ContextInfo(mentionedJID=[ME, f"{MARCO}@s.whatsapp.net"]),
        )
    )
    ev = message_ev(content, chat="120363025555555555@g.us", push_name="Luca")
    event = message_to_event(ev, own_jids=[ME], chat_name="Book club")
    assert event is not None
    assert event.chat is not None
    assert (event.chat.id, event.chat.name, event.chat.is_group) == (
        "120363025555555555@g.us",
        "Book club",
        True,
    )
    assert event.text == "@393330000001 can you bring the book?"
    assert event.mentions_me is True
    assert event.sender is not None and event.sender.name == "Luca"

    not_me = message_to_event(ev, own_jids=["393339999999@s.whatsapp.net"])
    assert not_me is not None and not_me.mentions_me is False
    assert not_me.chat is not None and not_me.chat.name == "120363025555555555"


def test_mention_by_lid_and_device_suffix() -> None:
    content = E.Message(
        extendedTextMessage=E.ExtendedTextMessage(
            text="@112233445566 look", contextInfo=E.ContextInfo(mentionedJID=[ME_LID])
        )
    )
    ev = message_ev(content, chat="120363025555555555@g.us")
    event = message_to_event(ev, own_jids=["112233445566:12@lid"])
    assert event is not None and event.mentions_me is True


def test_lid_sender_takes_the_phone_from_sender_alt() -> None:
    ev = message_ev(
        text("hi"),
        chat="120363025555555555@g.us",
        sender="998877665544@lid",
        sender_alt=f"{MARCO}@s.whatsapp.net",
    )
    event = message_to_event(ev)
    assert event is not None and event.sender is not None
    assert event.sender.address == "+393331112222"
    assert event.refs["sender_jid"] == "998877665544@lid"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (E.Message(imageMessage=E.ImageMessage(caption="The view")), "[image] The view"),
        (E.Message(imageMessage=E.ImageMessage()), "[image]"),
        (E.Message(videoMessage=E.VideoMessage(caption="Goal!")), "[video] Goal!"),
        (E.Message(audioMessage=E.AudioMessage(PTT=True)), "[voice message]"),
        (
            E.Message(documentMessage=E.DocumentMessage(fileName="Budget.xlsx", caption="v2")),
            "[document: Budget.xlsx] v2",
        ),
        (E.Message(stickerMessage=E.StickerMessage()), "[sticker]"),
        (
            E.Message(ephemeralMessage=E.FutureProofMessage(message=text("disappearing"))),
            "disappearing",
        ),
        (
            E.Message(
                viewOnceMessageV2=E.FutureProofMessage(
                    message=E.Message(imageMessage=E.ImageMessage(caption="once"))
                )
            ),
            "[image] once",
        ),
        (E.Message(pollCreationMessage=E.PollCreationMessage(name="Pizza?")), "[poll] Pizza?"),
    ],
)
def test_media_and_wrapped_messages(content: Any, expected: str) -> None:
    event = message_to_event(message_ev(content))
    assert event is not None and event.text == expected


def test_captioned_image_mentions_count() -> None:
    content = E.Message(
        imageMessage=E.ImageMessage(
            caption="@me look", contextInfo=E.ContextInfo(mentionedJID=[ME])
        )
    )
    event = message_to_event(message_ev(content), own_jids=[ME])
    assert event is not None and event.mentions_me is True


@pytest.mark.parametrize(
    "ev",
    [
        message_ev(text("sent by me"), from_me=True),
        message_ev(text("a status update"), chat="status@broadcast"),
        message_ev(E.Message(reactionMessage=E.ReactionMessage(text="👍"))),
        message_ev(E.Message(protocolMessage=E.ProtocolMessage(type=0))),  # a deletion
        message_ev(E.Message()),
        message_ev(text("no id"), msg_id=""),
    ],
    ids=["from-me", "status", "reaction", "revoke", "empty", "no-id"],
)
def test_messages_that_are_not_events(ev: Any) -> None:
    assert message_to_event(ev) is None


# --- the source ----------------------------------------------------------------------------


class FakeEvents:
    """The registration surface of neonize's ``client.event``."""

    def __init__(self) -> None:
        self.handlers: dict[type, Callable[[Any, Any], None]] = {}
        self.qr_handler: Callable[[Any, bytes], None] | None = None

    def qr(self, handler: Callable[[Any, bytes], None]) -> None:
        self.qr_handler = handler

    def __call__(self, ev_type: type) -> Callable[[Callable[[Any, Any], None]], None]:
        def register(handler: Callable[[Any, Any], None]) -> None:
            self.handlers[ev_type] = handler

        return register


class FakeClient:
    """Stands in for neonize.NewClient: connect() shows a QR code and blocks until stop()."""

    instances: list[FakeClient] = []

    def __init__(self, name: str, *, fail: str | None = None) -> None:
        self.name = name
        self.fail = fail
        self.event = FakeEvents()
        self.me = N.Device(JID=jid(ME), LID=jid(ME_LID))
        self.connected = threading.Event()
        self.stopped = threading.Event()
        FakeClient.instances.append(self)

    def connect(self) -> None:
        if self.fail:
            raise RuntimeError(self.fail)
        assert self.event.qr_handler is not None
        self.event.qr_handler(self, b"2@fake-qr-payload")
        self.connected.set()
        self.stopped.wait(10)

    def stop(self) -> None:
        self.stopped.set()

    def get_group_info(self, chat: Any) -> Any:
        return N.GroupInfo(GroupName=N.GroupName(Name="Book club"))

    def emit(self, name: str, ev: Any) -> None:
        """Deliver an event the way neonize does: from another thread."""
        handler = self.event.handlers[NEONIZE[name]]
        thread = threading.Thread(target=handler, args=(self, ev))
        thread.start()
        thread.join()


def _source(db: Path, **kw: Any) -> WhatsAppLiveSource:
    kw.setdefault("on_qr", lambda payload: None)
    kw.setdefault("client_factory", FakeClient)
    return WhatsAppLiveSource(db, accepted_unofficial_warning=True, **kw)


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[tuple[WhatsAppLiveSource, list[Any], list[Event]]]:
    FakeClient.instances.clear()
    qr_codes: list[Any] = []
    pushed: list[Event] = []
    loop_thread = threading.get_ident()

    def on_qr(payload: bytes | str) -> None:
        assert threading.get_ident() == loop_thread  # UI hooks run on the event loop
        qr_codes.append(payload)

    def on_event(event: Event) -> None:
        assert threading.get_ident() == loop_thread
        pushed.append(event)

    source = _source(session_db_path(tmp_path), on_qr=on_qr, on_event=on_event)
    yield source, qr_codes, pushed
    await source.close()
    assert not source.running


async def _connected(source: WhatsAppLiveSource) -> FakeClient:
    batch = await source.fetch(None)  # the first fetch starts the client
    assert batch.events == []
    for _ in range(200):
        if FakeClient.instances and FakeClient.instances[-1].connected.is_set():
            break
        await asyncio.sleep(0.01)
    client = FakeClient.instances[-1]
    assert client.connected.is_set()
    client.emit("ConnectedEv", N.Connected(status=True))
    await asyncio.sleep(0.01)  # hooks (on_qr, on_event) run on the loop
    return client


async def test_pairing_qr_then_messages_are_pushed_and_drained(live: Any) -> None:
    source, qr_codes, pushed = live
    assert (source.kind, source.account) == ("whatsapp-live", "default")
    assert source.poll_seconds <= 5

    client = await _connected(source)

    assert qr_codes == ["2@fake-qr-payload"]
    assert client.name == str(source.session_db)
    group_msg = message_ev(
        E.Message(
            extendedTextMessage=E.ExtendedTextMessage(
                text="@393330000001 ping", contextInfo=E.ContextInfo(mentionedJID=[ME])
            )
        ),
        msg_id="G1",
        chat="120363025555555555@g.us",
    )
    client.emit("MessageEv", message_ev(text("hello"), msg_id="A1"))
    client.emit("MessageEv", group_msg)
    client.emit("MessageEv", message_ev(text("mine"), msg_id="A2", from_me=True))
    await asyncio.sleep(0.01)  # on_event runs on the loop

    batch = await source.fetch("kept")
    assert [e.id for e in batch.events] == ["whatsapp:A1", "whatsapp:G1"]
    assert batch.cursor == "kept"
    group = batch.events[1]
    assert group.chat is not None and group.chat.name == "Book club"  # looked up once, cached
    assert group.mentions_me is True  # own JID learnt from the client on connect
    assert [e.id for e in pushed] == ["whatsapp:A1", "whatsapp:G1"]
    assert (await source.fetch("kept")).events == []


async def test_disconnect_is_transient_until_reconnected(live: Any) -> None:
    source, _, _ = live
    client = await _connected(source)

    client.emit("DisconnectedEv", N.Disconnected(status=True))
    with pytest.raises(TransientError, match="disconnected"):
        await source.fetch(None)
    client.emit("ConnectedEv", N.Connected(status=True))
    assert (await source.fetch(None)).events == []


async def test_events_received_before_a_disconnect_are_delivered_first(live: Any) -> None:
    source, _, _ = live
    client = await _connected(source)
    client.emit("MessageEv", message_ev(text("just in time"), msg_id="B1"))
    client.emit("DisconnectedEv", N.Disconnected(status=True))

    assert [e.id for e in (await source.fetch(None)).events] == ["whatsapp:B1"]
    with pytest.raises(TransientError):
        await source.fetch(None)


async def test_logged_out_needs_sign_in_until_reconnect(live: Any) -> None:
    source, qr_codes, _ = live
    client = await _connected(source)
    client.emit(
        "LoggedOutEv",
        N.LoggedOut(OnConnect=False, Reason=N.ConnectFailureReason.Value("LOGGED_OUT")),
    )

    for _ in range(2):
        with pytest.raises(NeedsSignIn, match="pair it again"):
            await source.fetch(None)

    await source.reconnect()  # the user asked to pair again: a new QR code
    for _ in range(200):
        if len(qr_codes) == 2:
            break
        await asyncio.sleep(0.01)
    assert qr_codes == ["2@fake-qr-payload", "2@fake-qr-payload"]
    assert (await source.fetch(None)).events == []


@pytest.mark.parametrize(
    ("reason", "error"),
    [
        ("MAIN_DEVICE_GONE", NeedsSignIn),
        ("SERVICE_UNAVAILABLE", TransientError),
        ("TEMP_BANNED", SourceError),
    ],
)
async def test_connect_failures(live: Any, reason: str, error: type[Exception]) -> None:
    source, _, _ = live
    client = await _connected(source)
    failure = N.ConnectFailure(Reason=N.ConnectFailureReason.Value(reason), Message="nope")
    client.emit("ConnectFailureEv", failure)
    with pytest.raises(error):
        await source.fetch(None)


async def test_client_crash_is_a_transient_error_then_a_restart(tmp_path: Path) -> None:
    FakeClient.instances.clear()
    source = _source(
        session_db_path(tmp_path),
        client_factory=lambda name: FakeClient(name, fail="socket closed\nstack trace here"),
    )
    try:
        await source.fetch(None)
        for _ in range(200):
            if not source.running:
                break
            await asyncio.sleep(0.01)
        with pytest.raises(TransientError) as info:
            await source.fetch(None)
        assert str(info.value) == "WhatsApp connection failed: socket closed"
        await source.fetch(None)  # starts a new client
        for _ in range(200):
            if len(FakeClient.instances) == 2:
                break
            await asyncio.sleep(0.01)
        assert len(FakeClient.instances) == 2
    finally:
        await source.close()


async def test_missing_neonize_is_a_lasting_error(tmp_path: Path) -> None:
    def no_neonize(name: str) -> Any:
        raise SourceError("neonize is not available (No module named 'neonize')")

    source = _source(session_db_path(tmp_path), client_factory=no_neonize)
    try:
        await source.fetch(None)
        for _ in range(200):
            if not source.running:
                break
            await asyncio.sleep(0.01)
        for _ in range(2):
            with pytest.raises(SourceError, match="neonize is not available"):
                await source.fetch(None)
    finally:
        await source.close()


@pytest.mark.allow_log_warnings
async def test_handler_errors_never_escape_into_neonize(
    live: Any, caplog: pytest.LogCaptureFixture
) -> None:
    source, _, _ = live
    client = await _connected(source)

    class Broken:
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError("garbled protobuf")

    client.emit("MessageEv", Broken())  # would raise inside neonize's callback thread

    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == ["whatsapp-live: could not handle MessageEv: garbled protobuf"]
    assert (await source.fetch(None)).events == []


async def test_live_events_land_in_the_store_once(db: object, live: Any) -> None:
    source, _, _ = live
    client = await _connected(source)
    ev = message_ev(text("twice delivered"), msg_id="D1")
    client.emit("MessageEv", ev)
    client.emit("MessageEv", ev)  # WhatsApp redelivers on reconnect

    assert await sync_once(source) == 1
    assert await sync_once(source) == 0
    row = EventRecord.get(EventRecord.event_id == "whatsapp:D1")
    assert (row.source, row.text, row.sender_address) == (
        "whatsapp",
        "twice delivered",
        "+393331112222",
    )


def test_real_neonize_client_accepts_the_handlers(tmp_path: Path) -> None:
    """The real NewClient is built and wired (no connection is made)."""
    source = WhatsAppLiveSource(
        session_db_path(tmp_path), accepted_unofficial_warning=True, on_qr=lambda payload: None
    )
    client = source._make_client()
    assert type(client).__name__ == "NewClient"
    registered = set(client.event.list_func)
    assert 17 in registered  # MessageEv
    assert {3, 6, 12} <= registered  # Connected, LoggedOut, Disconnected


async def test_each_message_has_the_runner_fetch_it_at_once(live: Any) -> None:
    source, _qr_codes, _pushed = live
    woken = threading.Event()
    source.watch(woken.set)
    client = await _connected(source)
    assert not woken.is_set()

    client.emit("MessageEv", message_ev(text("I'm at A&E with grandma"), msg_id="W1"))

    assert woken.is_set()  # said on the client's thread, as the message came
    assert [e.id for e in (await source.fetch(None)).events] == ["whatsapp:W1"]
