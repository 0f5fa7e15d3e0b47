"""ImapSource against a real Dovecot started by each test on 127.0.0.1 (plain IMAP, ssl=False:
TLS is imapclient's and the ssl module's business, the source only passes the context on).
Skipped only when dovecot is not installed (``apt-get install dovecot-imapd``)."""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import imapclient
import pytest
from imapclient.exceptions import IMAPClientError

from engine.accounts.secrets import set_secret
from engine.events import Event
from engine.sources.base import Batch, NeedsSignIn, SourceError, TransientError
from engine.sources.mail.imap import (
    FolderState,
    ImapSource,
    message_parts,
    parse_cursor,
    secret_name,
)
from engine.sources.mail.text import TEXT_LIMIT, MimePart, part_text, text_parts
from engine.sources.sync import load_cursor, sync_once
from engine.store.models import EventRecord
from tests import keyring_memory
from tests.keyring_memory import MemoryKeyring
from tests.sources.dovecot import Dovecot, dovecot_binary
from tests.sources.mail_fuzz import mutated_messages

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
    assert events[2].text == "é" * 1999 + "…"  # the text is cut, not its bytes


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


def test_text_parts_skip_attachments_and_prefer_plain() -> None:
    plain = (b"text", b"plain", (b"charset", b"utf-8"), None, None, b"7bit", 3, 1)
    html = (b"text", b"html", None, None, None, b"base64", 3, 1)
    attached = (*plain, None, (b"attachment", (b"filename", b"a.txt")))
    image = (b"image", b"png", None, None, None, b"base64", 9)
    tree = [[attached, image, [[html, plain], b"alternative"]], b"mixed"]
    assert [(p.ref, p.mime_type) for p in text_parts(message_parts(tree))] == [
        ("3.2", "text/plain"),
        ("3.1", "text/html"),
    ]
    assert text_parts(message_parts(html)) == [
        MimePart("1", "text", "html", encoding="base64", size=3)
    ]
    assert text_parts(message_parts(image)) == []
    assert message_parts(None) == []


def test_part_text_tolerates_cut_encodings() -> None:
    qp = MimePart("1", "text", "plain", "utf-8", "quoted-printable")
    assert part_text(b"caf=C3=A9 =C3", qp, partial=True) == "café…"
    b64 = MimePart("1", "text", "plain", "utf-8", "base64")
    assert part_text(b"w6nDqcOp\r\nw6", b64, partial=True) == "ééé…"
    unknown = MimePart("1", "text", "plain", "x-nonsense", "8bit")
    assert part_text("Grüße".encode(), unknown) == "Grüße"


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


# --- text as a reader sees it ----------------------------------------------------------


def mime(headers: str, body: str, *, message_id: str) -> bytes:
    lines = ["From: Ines Varga <ines@lindenhof.example.org>", f"Message-ID: <{message_id}>"]
    return ("\r\n".join(lines) + "\r\nMIME-Version: 1.0\r\n" + headers + "\r\n" + body).encode()


async def test_a_blank_plain_part_does_not_hide_the_html_one(
    server: Dovecot, make_source: MakeSource
) -> None:
    html = base64.b64encode("<p>Ihre Rechnung &uuml;ber 42&nbsp;€ liegt bei.</p>".encode())
    trailing_plain = mime(  # a mailer that leaves an empty text/plain part at the end
        'Content-Type: multipart/mixed; boundary="B1"\r\n',
        "--B1\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n"
        f"\r\n{html.decode()}\r\n--B1\r\nContent-Type: application/zip; name=r.zip\r\n"
        "Content-Disposition: attachment; filename=r.zip\r\nContent-Transfer-Encoding: base64\r\n"
        "\r\nUEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==\r\n"
        "--B1\r\nContent-Type: text/plain\r\n\r\n\r\n--B1--\r\n",
        message_id="t1@lindenhof.example.org",
    )
    crlf_plain = mime(
        'Content-Type: multipart/alternative; boundary="B2"\r\n',
        "--B2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\r\n"
        "--B2\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        "<div>Treffen um <b>14 Uhr</b></div>\r\n"
        "--B2--\r\n",
        message_id="t2@lindenhof.example.org",
    )
    padded_plain = mime(  # big enough to be read alone, and blank: the HTML is read next
        'Content-Type: multipart/alternative; boundary="B3"\r\n',
        "--B3\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + " \r\n" * 40 + "--B3\r\n"
        "Content-Type: text/html; charset=utf-8\r\n\r\n<p>Nur in HTML</p>\r\n--B3--\r\n",
        message_id="t3@lindenhof.example.org",
    )
    for raw in (trailing_plain, crlf_plain, padded_plain):
        server.append(USER, raw)

    events = (await make_source().fetch(None)).events

    assert [e.text for e in events] == [
        "Ihre Rechnung über 42 € liegt bei.",
        "Treffen um 14 Uhr",
        "Nur in HTML",
    ]
    assert events[0].refs["attachments"] == ["r.zip"]


async def test_html_is_cut_as_text_never_inside_a_tag(
    server: Dovecot, make_source: MakeSource
) -> None:
    head = "<html><head><style>" + ".c { color: #333 }\n" * 150 + "</style></head><body>"
    links = "".join(
        f'<p>Artikel {n}: <a class="moz-txt-link-freetext" href="https://news.example.org/a/{n}">'
        f"weiterlesen</a> &amp; teilen</p>"
        for n in range(400)
    )
    server.append(
        USER,
        mime(
            "Content-Type: text/html; charset=utf-8\r\n",
            head + links + "</body></html>\r\n",
            message_id="long@news.example.org",
        ),
    )

    (event,) = (await make_source().fetch(None)).events

    words = "\n\n".join(f"Artikel {n}: weiterlesen & teilen" for n in range(400))
    assert event.text == words[: TEXT_LIMIT - 1].rstrip() + "\u2026"


async def test_attachment_only_mail_says_what_it_carries(
    server: Dovecot, make_source: MakeSource
) -> None:
    two_files = mime(
        'Content-Type: multipart/mixed; boundary="F"\r\n',
        '--F\r\nContent-Type: application/pdf; name="invoice.pdf"\r\n'
        'Content-Disposition: attachment; filename="invoice.pdf"\r\n'
        "Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n"
        "--F\r\nContent-Type: image/jpeg\r\n"
        "Content-Disposition: inline; filename*=utf-8''Stra%C3%9Fenfest.jpg\r\n"
        "Content-Transfer-Encoding: base64\r\n\r\n/9j/4AAQ\r\n--F--\r\n",
        message_id="files@lindenhof.example.org",
    )
    only_a_zip = mime(
        "Content-Type: application/zip; name==?UTF-8?B?UGzDpG5lLnppcA==?=\r\n"
        "Content-Transfer-Encoding: base64\r\n",
        "UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==\r\n",
        message_id="zip@lindenhof.example.org",
    )
    text_and_file = mime(
        'Content-Type: multipart/mixed; boundary="G"\r\n',
        "--G\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nDer Plan anbei.\r\n"
        "--G\r\nContent-Type: text/plain; name=plan.txt\r\n"
        "Content-Disposition: attachment; filename=plan.txt\r\n\r\n1. Aufbau\r\n--G--\r\n",
        message_id="plan@lindenhof.example.org",
    )
    for raw in (two_files, only_a_zip, text_and_file):
        server.append(USER, raw)

    events = (await make_source().fetch(None)).events

    assert [e.text for e in events] == [
        "[2 attachments: invoice.pdf, Straßenfest.jpg]",
        "[1 attachment: Pläne.zip]",
        "Der Plan anbei.",
    ]
    assert [e.refs.get("attachments") for e in events] == [
        ["invoice.pdf", "Straßenfest.jpg"],
        ["Pläne.zip"],
        ["plan.txt"],
    ]


async def test_a_body_with_broken_boundaries_is_read_as_it_stands(
    server: Dovecot, make_source: MakeSource
) -> None:
    server.append(
        USER,
        mime(
            'Content-Type: multipart/alternative; boundary="declared"\r\n',
            "--actual\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
            "Die Grenzen passen nicht.\r\n--actual--\r\n",
            message_id="broken@lindenhof.example.org",
        ),
    )
    (event,) = (await make_source().fetch(None)).events
    assert event.text == "Die Grenzen passen nicht."


# --- headers ---------------------------------------------------------------------------


async def test_spam_and_reply_headers_are_kept(server: Dovecot, make_source: MakeSource) -> None:
    extra = (
        "Reply-To: =?UTF-8?Q?G=C3=BCnther?= <reply@lindenhof.example.org>\r\n"
        "Return-Path: <bounce+77@lindenhof.example.org>\r\n"
        "X-Spam-Flag: YES\r\n"
        "X-Spam-Status: Yes, score=7.9 required=5.0\r\n\ttests=HTML_MESSAGE,URIBL_BLACK\r\n"
        "Authentication-Results: mx.example.org;\r\n\tspf=fail smtp.mailfrom=example.net\r\n"
        "Authentication-Results: relay.example.net; dkim=none\r\n"
        "X-Mailer: not kept\r\n"
    )
    server.append(USER, message(1, extra=extra))

    (event,) = (await make_source().fetch(None)).events

    assert event.headers == {
        "Reply-To": "Günther <reply@lindenhof.example.org>",
        "Return-Path": "<bounce+77@lindenhof.example.org>",
        "X-Spam-Flag": "YES",
        "X-Spam-Status": "Yes, score=7.9 required=5.0 tests=HTML_MESSAGE,URIBL_BLACK",
        "Authentication-Results": "mx.example.org; spf=fail smtp.mailfrom=example.net",
    }


async def test_one_bad_byte_spoils_only_its_own_header(
    server: Dovecot, make_source: MakeSource
) -> None:
    raw = (
        "From: Юникод Тест <unicode@example.org>\r\n".encode()
        + b"Subject: R\xe9union \xe0 10h\r\n"  # Latin-1 in an otherwise UTF-8 header block
        + b"Message-ID: <bytes@example.org>\r\n\r\nx\r\n"
    )
    server.append(USER, raw)

    (event,) = (await make_source().fetch(None)).events

    assert event.sender is not None and event.sender.name == "Юникод Тест"
    assert event.subject == "Réunion à 10h"


async def test_dates_keep_their_zone_and_fall_back_to_internaldate(
    server: Dovecot, make_source: MakeSource
) -> None:
    received = (datetime.now(UTC) - timedelta(hours=3)).replace(microsecond=0)
    year = datetime.now(UTC).year
    dates = [
        f"Tue, 3 Mar {year} 00:19:00 (EDT) -0400",
        f"3 Mar {year} 10:52:37 PST",
        f"Tue, 3 Mar {year}    59:10 -0500",  # no such hour: unreadable
    ]
    for n, date in enumerate(dates, start=1):
        raw = message(n).replace(b"Date: ", b"X-Old-Date: ", 1)
        server.append(
            USER,
            raw.replace(b"MIME-Version", f"Date: {date}\r\nMIME-Version".encode()),
            when=received,
        )

    events = (await make_source().fetch(None)).events

    assert [e.time.isoformat() for e in events] == [
        f"{year}-03-03T00:19:00-04:00",
        f"{year}-03-03T10:52:37-08:00",
        received.isoformat(),
    ]


# --- a message fails alone -------------------------------------------------------------

PATHOLOGICAL = (
    b"From: =?zlib?B?eJzLSM3JyQcABiwCFQ==?= <odd@example.net>\r\n"
    b"Subject: =?base64?Q?caf=C3=A9?= and =?hex?B?AAAA?=\r\n"
    b"Message-ID: <odd@example.net>\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/mixed; boundary="P"\r\n\r\n'
    b"--P\r\nContent-Type: text/plain; charset=zlib\r\nContent-Transfer-Encoding: base64\r\n\r\n"
    b"SGFsbG8gV2VsdA==\r\n--P\r\nContent-Type: text/html; charset=hex\r\n\r\n<p>x</p>\r\n--P--\r\n"
)


async def test_a_pathological_message_blocks_nothing(
    server: Dovecot, make_source: MakeSource, db: object
) -> None:
    """Bogus charsets used to raise out of the mapping: the page failed on every poll."""
    server.append(USER, message(1))
    server.append(USER, PATHOLOGICAL)
    server.append(USER, message(3))
    source = make_source()

    assert await sync_once(source) == 3

    rows = {r.event_id: r for r in EventRecord.select()}
    odd = rows[f"imap:{USER}@127.0.0.1:<odd@example.net>"]
    assert (odd.subject, odd.text) == ("café and", "Hallo Welt")  # NULs are no text
    assert parse_cursor(load_cursor(source.key))["INBOX"].last_uid == 3
    assert await sync_once(source) == 0


def fail_fetches(
    monkeypatch: pytest.MonkeyPatch, uid: int, when: Callable[[list[str]], bool]
) -> None:
    """The server refuses FETCH ``items`` whenever ``uid`` is among the messages asked for."""
    real = imapclient.IMAPClient.fetch

    def fetch(self: imapclient.IMAPClient, messages: Any, data: Any, modifiers: Any = None) -> Any:
        if uid in list(messages) and when([str(item) for item in data]):
            raise IMAPClientError("FETCH failed: [PARSE] message is broken")
        return real(self, messages, data, modifiers)

    monkeypatch.setattr(imapclient.IMAPClient, "fetch", fetch)


async def test_a_structure_the_server_cannot_describe_costs_only_that_text(
    server: Dovecot, make_source: MakeSource, monkeypatch: pytest.MonkeyPatch
) -> None:
    deliver(server, 1, 2, 3)
    fail_fetches(monkeypatch, 2, lambda items: "BODYSTRUCTURE" in items)

    batch = await make_source().fetch(None)

    assert subjects(batch.events) == ["Message 1", "Message 2", "Message 3"]
    assert [e.text for e in batch.events] == ["Body 1", "", "Body 3"]
    assert batch.events[1].notes == [
        "its structure could not be read (FETCH failed: [PARSE] message is broken)"
    ]
    assert state(batch).last_uid == 3


@pytest.mark.allow_log_warnings
async def test_a_message_the_server_cannot_send_is_skipped_and_reported(
    server: Dovecot,
    make_source: MakeSource,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    db: object,
) -> None:
    deliver(server, 1, 2, 3)
    fail_fetches(monkeypatch, 2, lambda items: True)
    source = make_source()

    assert await sync_once(source) == 2
    assert await sync_once(source) == 0

    assert [r.subject for r in EventRecord.select().order_by(EventRecord.id)] == [
        "Message 1",
        "Message 3",
    ]
    assert parse_cursor(load_cursor(source.key))["INBOX"].last_uid == 3
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == [
        f"imap:{USER}@127.0.0.1 INBOX: message UID 2 skipped, the server cannot read it: "
        "FETCH failed: [PARSE] message is broken"
    ]


async def test_a_command_refused_for_every_message_skips_none_of_them(
    server: Dovecot, make_source: MakeSource, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every message of a page failing is the command failing: nothing is skipped."""
    deliver(server, 1, 2)
    real = imapclient.IMAPClient.fetch

    def refuse(self: imapclient.IMAPClient, messages: Any, data: Any, modifiers: Any = None) -> Any:
        if any("HEADER.FIELDS" in str(item) for item in data):
            raise IMAPClientError("FETCH failed: not today")
        return real(self, messages, data, modifiers)

    monkeypatch.setattr(imapclient.IMAPClient, "fetch", refuse)
    with pytest.raises(SourceError, match="not today"):
        await make_source().fetch(None)


@pytest.mark.allow_log_warnings
async def test_a_mapping_bug_costs_one_message_its_details_not_the_page(
    server: Dovecot,
    make_source: MakeSource,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    import engine.sources.mail.imap as imap_module

    real = imap_module.parse_sender

    def parse_sender(value: str | None) -> Any:
        if value and "trouble" in value:
            raise RuntimeError("a bug in the sender parser")
        return real(value)

    monkeypatch.setattr(imap_module, "parse_sender", parse_sender)
    deliver(server, 1)
    server.append(USER, message(2, sender="Trouble <trouble@example.net>"))
    deliver(server, 3)

    batch = await make_source().fetch(None)

    assert subjects(batch.events) == ["Message 1", None, "Message 3"]
    bare = batch.events[1]
    assert bare.text == "Body 2"
    assert bare.notes == ["its headers could not be mapped: a bug in the sender parser"]
    assert state(batch).last_uid == 3
    (logged,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert logged.levelno == logging.ERROR and logged.exc_info is not None  # a bug: traceback


async def test_mutated_mail_never_blocks_the_mailbox(
    server: Dovecot, make_source: MakeSource
) -> None:
    uids = []
    for raw in mutated_messages(40, seed=2026):
        try:
            uids.append(server.append(USER, raw))
        except IMAPClientError:  # the server refuses some damage itself (a NUL byte)
            continue
    source = make_source(page_size=15)

    read: list[int] = []
    cursor = None
    for _ in range(10):
        batch = await source.fetch(cursor)
        read += [e.refs["uid"] for e in batch.events]
        cursor = batch.cursor
        if not batch.more:
            break

    assert len(uids) > 30 and read == uids  # every message is an event, in order
    assert parse_cursor(cursor)["INBOX"].last_uid == uids[-1]
    assert (await source.fetch(cursor)).events == []
