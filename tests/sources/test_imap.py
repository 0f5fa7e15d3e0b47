"""ImapSource against a real Dovecot started by each test on 127.0.0.1 (plain IMAP, ssl=False:
TLS is imapclient's and the ssl module's business, the source only passes the context on).
Skipped only when dovecot is not installed (``apt-get install dovecot-imapd``)."""

from __future__ import annotations

import base64
import json
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from engine.accounts.secrets import set_secret
from engine.events import Event
from engine.sources.base import Batch, NeedsSignIn, SourceError, TransientError
from engine.sources.mail.imap import (
    FolderState,
    ImapSource,
    TextPart,
    decode_snippet,
    find_text_part,
    parse_cursor,
    secret_name,
)
from engine.sources.sync import load_cursor, sync_once
from engine.store.models import EventRecord
from tests import keyring_memory
from tests.keyring_memory import MemoryKeyring
from tests.sources.dovecot import Dovecot, dovecot_binary

USER, PASSWORD = "alice", "s3cret"
memory_keyring = keyring_memory.memory_keyring


@pytest.fixture
def server() -> Iterator[Dovecot]:
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd)")
    with Dovecot() as dovecot:
        dovecot.add_user(USER, PASSWORD)
        dovecot.start()
        yield dovecot


MakeSource = Callable[..., ImapSource]


@pytest.fixture
async def make_source(server: Dovecot) -> AsyncIterator[MakeSource]:
    made: list[ImapSource] = []

    def make(**overrides: Any) -> ImapSource:
        args: dict[str, Any] = {"ssl": False, "password": PASSWORD, "timeout": 5.0}
        args.update(overrides)
        source = ImapSource(server.host, server.port, USER, **args)
        made.append(source)
        return source

    yield make
    for source in made:
        await source.close()


def message(
    n: int,
    *,
    subject: str | None = None,
    sender: str = "Anna Berg <anna@example.org>",
    body: str | None = None,
    date: datetime | None = None,
    message_id: str | None = None,
    extra: str = "",
) -> bytes:
    """A simple RFC 5322 message; ``n`` makes subject, body and Message-ID unique."""
    when = date or datetime.now(UTC) - timedelta(hours=1)
    lines = [
        f"From: {sender}",
        "To: alice@example.org",
        f"Subject: {subject if subject is not None else f'Message {n}'}",
        f"Date: {format_datetime(when)}",
        f"Message-ID: {message_id or f'<msg-{n}@example.org>'}",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
    ]
    text = "\r\n".join(lines) + "\r\n" + extra + "\r\n" + (body or f"Body {n}") + "\r\n"
    return text.encode()


def deliver(server: Dovecot, *numbers: int, folder: str = "INBOX") -> list[int]:
    return [server.append(USER, message(n), folder=folder) for n in numbers]


def subjects(events: list[Event]) -> list[str | None]:
    return [e.subject for e in events]


def state(batch: Batch, folder: str = "INBOX") -> FolderState:
    return parse_cursor(batch.cursor)[folder]


# --- syncing ---------------------------------------------------------------------------


async def test_first_sync_reads_recent_mail_as_canonical_events(
    server: Dovecot, make_source: MakeSource
) -> None:
    sent = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
    server.append(
        USER,
        message(
            1,
            subject="Lunch?",
            sender='"Berg, Anna" <anna@example.org>',
            body="Shall we meet at noon?",
            date=datetime.now(UTC) - timedelta(hours=2),
            extra=(
                "List-Unsubscribe: <mailto:leave@example.org>\r\n"
                "Precedence: bulk\r\nAuto-Submitted: auto-generated\r\n"
            ),
        ),
    )
    server.append(USER, message(2, date=sent.replace(year=datetime.now(UTC).year)))
    uidvalidity = server.uidvalidity(USER)

    batch = await make_source().fetch(None)

    assert not batch.more
    assert subjects(batch.events) == ["Lunch?", "Message 2"]
    first = batch.events[0]
    assert first.id == f"imap:{USER}@127.0.0.1:<msg-1@example.org>"
    assert (first.source, first.event_type) == ("email", "email.received")
    assert first.sender is not None
    assert (first.sender.name, first.sender.address) == ("Berg, Anna", "anna@example.org")
    assert first.text == "Shall we meet at noon?"
    assert first.headers == {
        "List-Unsubscribe": "<mailto:leave@example.org>",
        "Precedence": "bulk",
        "Auto-Submitted": "auto-generated",
    }
    assert first.labels == ["INBOX"]
    assert first.refs == {
        "folder": "INBOX",
        "uid": 1,
        "uidvalidity": uidvalidity,
        "message_id": "msg-1@example.org",
    }
    assert batch.events[1].time == sent.replace(year=datetime.now(UTC).year)
    assert json.loads(batch.cursor or "") == {
        "v": 1,
        "folders": {"INBOX": {"uidvalidity": uidvalidity, "last_uid": 2}},
    }


async def test_first_sync_is_bounded_to_a_recent_window(
    server: Dovecot, make_source: MakeSource
) -> None:
    old = datetime.now(UTC) - timedelta(days=30)
    for n in (1, 2):
        server.append(USER, message(n, date=old), when=old)
    deliver(server, 3, 4, 5, 6)

    by_age = await make_source().fetch(None)
    assert subjects(by_age.events) == ["Message 3", "Message 4", "Message 5", "Message 6"]

    by_count = await make_source(initial_window=2).fetch(None)
    assert subjects(by_count.events) == ["Message 5", "Message 6"]
    assert state(by_count).last_uid == 6


async def test_first_sync_of_an_empty_or_stale_mailbox_starts_after_the_newest(
    server: Dovecot, make_source: MakeSource
) -> None:
    source = make_source()
    empty = await source.fetch(None)
    assert empty.events == [] and state(empty).last_uid == 0

    old = datetime.now(UTC) - timedelta(days=30)
    server.append(USER, message(1, date=old), when=old)
    stale = await make_source().fetch(None)
    assert stale.events == [] and state(stale).last_uid == 1

    deliver(server, 2)
    assert subjects((await source.fetch(empty.cursor)).events) == ["Message 1", "Message 2"]
    assert subjects((await source.fetch(stale.cursor)).events) == ["Message 2"]


async def test_incremental_sync_returns_only_new_mail(
    server: Dovecot, make_source: MakeSource
) -> None:
    deliver(server, 1, 2)
    source = make_source()
    first = await source.fetch(None)

    nothing = await source.fetch(first.cursor)
    assert nothing.events == [] and not nothing.more
    assert state(nothing) == state(first)

    deliver(server, 3)
    second = await source.fetch(first.cursor)
    assert subjects(second.events) == ["Message 3"]
    assert state(second).last_uid == 3


async def test_paging_advances_the_cursor_only_over_each_page(
    server: Dovecot, make_source: MakeSource
) -> None:
    deliver(server, *range(1, 8))
    source = make_source(page_size=3)
    seen: list[str | None] = []
    cursor = None
    pages = []
    for _ in range(10):
        batch = await source.fetch(cursor)
        pages.append((len(batch.events), batch.more, state(batch).last_uid))
        seen += subjects(batch.events)
        cursor = batch.cursor
        if not batch.more:
            break
    assert pages == [(3, True, 3), (3, True, 6), (1, False, 7)]
    assert seen == [f"Message {n}" for n in range(1, 8)]


async def test_paging_across_folders(server: Dovecot, make_source: MakeSource) -> None:
    server.create_folder(USER, "Work")
    deliver(server, 1, 2)
    deliver(server, 3, 4, folder="Work")
    source = make_source(folders=("INBOX", "Work"), page_size=3)

    first = await source.fetch(None)
    assert subjects(first.events) == ["Message 1", "Message 2", "Message 3"]
    assert first.more
    assert (state(first).last_uid, state(first, "Work").last_uid) == (2, 1)
    assert first.events[2].refs["folder"] == "Work"
    assert first.events[2].labels == ["Work"]

    second = await source.fetch(first.cursor)
    assert subjects(second.events) == ["Message 4"] and not second.more


async def test_encoded_headers_are_decoded_and_broken_ones_tolerated(
    server: Dovecot, make_source: MakeSource
) -> None:
    server.append(
        USER,
        message(
            1,
            subject="=?UTF-8?B?R3LDvMOfZSBhdXMgTcO8bmNoZW4=?=",
            sender="=?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <jm@example.org>",
        ),
    )
    server.append(USER, message(2, subject="=?ISO-8859-1?Q?Caf=E9_cr=E8me?= today"))
    server.append(USER, message(3, subject="=?x-unknown?Q?caf=E9?= =?UTF-8?B?YnJva2VuIHBhZA?="))
    server.append(USER, message(4, subject="=?UTF-8?Q?unterminated_caf=C3=A9 and =?ISO?X?bad?="))
    server.append(
        USER,
        message(5, subject="=?UTF-8?B?8J+Y?= =?UTF-8?B?gA==?= split emoji"),  # one char, 2 words
    )
    server.append(USER, "Subject: Grüße roh\r\nFrom: Zoë <zoe@example.org>\r\n\r\nx\r\n".encode())

    events = (await make_source().fetch(None)).events

    assert events[0].subject == "Grüße aus München"
    assert events[0].sender is not None
    assert events[0].sender.name == "Jürgen Müller"
    assert events[1].subject == "Café crème today"
    assert events[2].subject == "cafébroken pad"
    assert events[3].subject == "=?UTF-8?Q?unterminated_caf=C3=A9 and =?ISO?X?bad?="
    assert events[4].subject == "😀 split emoji"
    assert events[5].subject == "Grüße roh"
    assert events[5].sender is not None and events[5].sender.name == "Zoë"


async def test_body_snippet_from_mime_parts(server: Dovecot, make_source: MakeSource) -> None:
    alternative = (
        "From: a@example.org\r\nSubject: alt\r\nMessage-ID: <alt@x>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="M"\r\n\r\n'
        '--M\r\nContent-Type: multipart/alternative; boundary="A"\r\n\r\n'
        "--A\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>html</p>\r\n"
        "--A\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Transfer-Encoding: base64\r\n\r\nUGzDpGluIHTDqXh0\r\n"
        "--A--\r\n"
        "--M\r\nContent-Type: text/plain; name=a.txt\r\n"
        "Content-Disposition: attachment; filename=a.txt\r\n\r\nattached\r\n--M--\r\n"
    )
    html_only = (
        "From: b@example.org\r\nSubject: html\r\nMessage-ID: <html@x>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/html; charset=iso-8859-1\r\n"
        "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        "<html><head><style>p {}</style></head><body><p>R=E9union &amp; caf=E9</p>"
        "<script>x()</script></body></html>\r\n"
    )
    long_body = message(3, body="é" * 3000)
    for raw in (alternative.encode(), html_only.encode(), long_body):
        server.append(USER, raw)

    events = (await make_source().fetch(None)).events

    assert [e.text for e in events[:2]] == ["Pläin téxt", "Réunion & café"]
    assert events[2].text == "é" * 1024  # 2048 bytes, no broken character at the cut


async def test_date_falls_back_to_internaldate(server: Dovecot, make_source: MakeSource) -> None:
    received = (datetime.now(UTC) - timedelta(hours=3)).replace(microsecond=0)
    server.append(USER, b"From: a@example.org\r\nSubject: no date\r\n\r\nx\r\n", when=received)
    server.append(USER, message(2).replace(b"Date: ", b"Date: garbage ", 1), when=received)

    events = (await make_source().fetch(None)).events

    assert [e.time for e in events] == [received, received]
    assert events[0].id.startswith(f"imap:{USER}@127.0.0.1:INBOX:")  # no Message-ID
    assert events[0].id.endswith(":1")


async def test_uidvalidity_change_resyncs_the_folder(
    server: Dovecot, make_source: MakeSource, db: object
) -> None:
    server.create_folder(USER, "Work")
    deliver(server, 1, 2, folder="Work")
    source = make_source(folders=("Work",))
    assert await sync_once(source) == 2
    before = parse_cursor(load_cursor(source.key))["Work"]

    server.delete_folder(USER, "Work")
    server.create_folder(USER, "Work")
    deliver(server, 2, 3, folder="Work")  # message 2 again (same Message-ID) and a new one
    batch = await source.fetch(load_cursor(source.key))

    after = state(batch, "Work")
    assert after.uidvalidity != before.uidvalidity
    assert after.last_uid == 2
    assert subjects(batch.events) == ["Message 2", "Message 3"]
    assert {e.refs["uidvalidity"] for e in batch.events} == {after.uidvalidity}
    assert await sync_once(source) == 1  # the copy of message 2 is not a second event
    assert EventRecord.select().count() == 3


async def test_messages_stay_unseen(server: Dovecot, make_source: MakeSource) -> None:
    deliver(server, 1, 2)
    server.append(USER, message(3), flags=["\\Flagged"])

    events = (await make_source().fetch(None)).events

    assert events[2].labels == ["INBOX", "\\Flagged"]
    flags = server.flags(USER)
    assert set(flags) == {1, 2, 3}
    assert all("\\Seen" not in f for f in flags.values())
    assert all("\\Recent" in f for f in flags.values())  # examined read-only, not selected


# --- credentials and failures ---------------------------------------------------------


async def test_password_from_the_keyring(
    server: Dovecot, make_source: MakeSource, memory_keyring: MemoryKeyring
) -> None:
    deliver(server, 1)
    source = make_source(password=None)
    assert source.secret_name == secret_name(USER, "127.0.0.1") == "imap:alice@127.0.0.1"

    with pytest.raises(NeedsSignIn, match="no password for alice"):
        await source.fetch(None)

    set_secret(source.secret_name, PASSWORD)
    assert subjects((await source.fetch(None)).events) == ["Message 1"]


async def test_wrong_password_needs_sign_in(server: Dovecot, make_source: MakeSource) -> None:
    with pytest.raises(NeedsSignIn, match=r"sign-in as alice on 127\.0\.0\.1 failed.*password"):
        await make_source(password="wrong").fetch(None)


async def test_stopped_server_is_transient(server: Dovecot, make_source: MakeSource) -> None:
    deliver(server, 1)
    source = make_source()
    server.stop()
    with pytest.raises(TransientError, match=r"cannot reach 127\.0\.0\.1"):
        await source.fetch(None)

    server.start()
    assert subjects((await source.fetch(None)).events) == ["Message 1"]


async def test_connection_lost_between_pages_is_transient(
    server: Dovecot, make_source: MakeSource
) -> None:
    deliver(server, 1, 2)
    source = make_source(page_size=1)
    first = await source.fetch(None)
    assert first.more  # the connection is kept for the next page
    server.stop()
    with pytest.raises(TransientError):
        await source.fetch(first.cursor)
    server.start()
    assert subjects((await source.fetch(first.cursor)).events) == ["Message 2"]


async def test_missing_folder_is_a_clear_error(server: Dovecot, make_source: MakeSource) -> None:
    with pytest.raises(SourceError, match=r"cannot open folder 'Nope' on 127\.0\.0\.1"):
        await make_source(folders=("INBOX", "Nope")).fetch(None)


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never says a word."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join(timeout=5)
    for conn in accepted:
        conn.close()
    listener.close()


async def test_timeout_is_transient(silent_server: int) -> None:
    source = ImapSource("127.0.0.1", silent_server, USER, ssl=False, password="x", timeout=0.3)
    with pytest.raises(TransientError, match=r"did not answer in 0\.3 s"):
        await source.fetch(None)
    await source.close()


# --- through the runner and the store -------------------------------------------------


async def test_sync_once_stores_events_and_cursor(
    server: Dovecot, make_source: MakeSource, db: object
) -> None:
    deliver(server, 1, 2, 3)
    source = make_source(page_size=2)

    assert await sync_once(source) == 3
    assert await sync_once(source) == 0
    deliver(server, 4)
    assert await sync_once(source) == 1

    rows = list(EventRecord.select().order_by(EventRecord.id))
    assert [r.subject for r in rows] == [f"Message {n}" for n in range(1, 5)]
    assert {r.source for r in rows} == {"email"}
    assert rows[0].sender_address == "anna@example.org"
    assert parse_cursor(load_cursor(source.key))["INBOX"].last_uid == 4


class CrashAfterFirstPage(ImapSource):
    """The app dies right after its first page was stored."""

    pages = 0

    async def fetch(self, cursor: str | None) -> Batch:
        if self.pages >= 1:
            raise RuntimeError("simulated crash")
        self.pages += 1
        return await super().fetch(cursor)


async def test_restart_mid_sync_loses_and_duplicates_nothing(
    server: Dovecot, make_source: MakeSource, db: object
) -> None:
    deliver(server, *range(1, 8))
    crashing = CrashAfterFirstPage(
        server.host, server.port, USER, ssl=False, password=PASSWORD, page_size=3
    )
    with pytest.raises(RuntimeError, match="simulated crash"):
        await sync_once(crashing)
    await crashing.close()
    assert EventRecord.select().count() == 3
    assert parse_cursor(load_cursor(crashing.key))["INBOX"].last_uid == 3

    restarted = make_source(page_size=3)
    assert restarted.key == crashing.key
    assert await sync_once(restarted) == 4

    ids = [r.event_id for r in EventRecord.select().order_by(EventRecord.id)]
    assert ids == [f"imap:{USER}@127.0.0.1:<msg-{n}@example.org>" for n in range(1, 8)]


# --- decoding, without a server -------------------------------------------------------


def test_find_text_part_skips_attachments_and_prefers_plain() -> None:
    plain = (b"text", b"plain", (b"charset", b"utf-8"), None, None, b"7bit", 3, 1)
    html = (b"text", b"html", None, None, None, b"base64", 3, 1)
    attached = (*plain, None, (b"attachment", (b"filename", b"a.txt")))
    image = (b"image", b"png", None, None, None, b"base64", 9)
    tree = [[attached, image, [[html, plain], b"alternative"]], b"mixed"]
    assert find_text_part(tree) == TextPart("3.2", "plain", "utf-8", "7bit")
    assert find_text_part(html) == TextPart("1", "html", None, "base64")
    assert find_text_part(image) is None
    assert find_text_part(None) is None


def test_decode_snippet_tolerates_cut_encodings() -> None:
    qp = TextPart("1", "plain", "utf-8", "quoted-printable")
    assert decode_snippet(b"caf=C3=A9 =C3", qp) == "café"
    b64 = TextPart("1", "plain", "utf-8", "base64")
    assert decode_snippet(b"w6nDqcOp\r\nw6", b64) == "ééé"
    unknown = TextPart("1", "plain", "x-nonsense", "8bit")
    assert decode_snippet("Grüße".encode(), unknown) == "Grüße"


async def test_a_utf16_message_without_its_bom_blocks_nothing_after_it(
    server: Dovecot, make_source: MakeSource
) -> None:
    """One such message used to fail its page on every poll: the cursor never moved."""
    body = base64.b64encode("Юникод – текст".encode("utf-16-le")).decode()
    server.append(
        USER,
        (
            "From: u@example.org\r\nSubject: utf16\r\nMessage-ID: <u16@x>\r\nMIME-Version: 1.0\r\n"
            "Content-Type: text/plain; charset=utf-16\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            f"{body}\r\n"
        ).encode(),
    )
    deliver(server, 2)
    batch = await make_source().fetch(None)
    assert subjects(batch.events) == ["utf16", "Message 2"]
    assert batch.events[0].text == "Юникод – текст"
    assert state(batch).last_uid == 2
