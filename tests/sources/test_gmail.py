"""GmailSource through google-api-python-client against the fake Gmail over real HTTP, with
the store: full and incremental sync, history expiry, paging, crash safety, token refresh,
revoked access and server errors retried by the runner."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest

from engine.events import Event, Person
from engine.sources.base import Batch, NeedsSignIn, TransientError
from engine.sources.google.gmail import GmailSource, message_event
from engine.sources.sync import SourceRunner, load_cursor, sync_once
from engine.store.models import SourceStatus
from tests.sources.fake_google import ACCOUNT, FakeGoogle, running_google
from tests.sources.stored import stored, stored_ids

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
KEY = f"gmail:{ACCOUNT}"


@pytest.fixture
def google(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGoogle]:
    with running_google(monkeypatch) as fake:
        fake.now = NOW
        fake.sign_in()
        yield fake


@pytest.fixture
def make_source(google: FakeGoogle) -> Iterator[Callable[..., GmailSource]]:
    made: list[GmailSource] = []

    def make(**options: object) -> GmailSource:
        source = GmailSource(ACCOUNT, api_endpoint=google.url, timeout=5, **options)  # type: ignore[arg-type]
        made.append(source)
        return source

    yield make
    for source in made:
        source.session.close()


def cursor() -> dict:
    return json.loads(load_cursor(KEY) or "null")


def listings(google: FakeGoogle) -> list[str]:
    """The Gmail calls other than messages.get, by their last path part."""
    return [r.path.rsplit("/", 1)[-1] for r in google.requests if "/messages/" not in r.path]


def deliver(google: FakeGoogle, count: int, *, start: datetime = NOW) -> list[str]:
    """``count`` inbox messages, oldest first, a minute apart ending at ``start``."""
    return [
        google.add_message(subject=f"Message {n}", received=start - timedelta(minutes=count - n))
        for n in range(count)
    ]


# full sync -------------------------------------------------------------------------------


async def test_first_sync_turns_recent_inbox_mail_into_canonical_events(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    received = NOW - timedelta(hours=1) + timedelta(microseconds=123_456)
    jose = google.add_message(
        sender="=?UTF-8?B?Sm9zw6kgTsO6w7Fleg==?= <Jose.Nunez@Example.org>",
        subject="=?UTF-8?Q?Caf=C3=A9_tomorrow=3F?=",
        snippet="Tom &amp; Jerry&#39;s &lt;b&gt;plan&lt;/b&gt;",
        labels=("INBOX", "UNREAD", "CATEGORY_PERSONAL"),
        received=received,
        headers={
            "List-Unsubscribe": "<mailto:unsubscribe@example.org>",
            "Precedence": "bulk",
            "Auto-Submitted": "auto-generated",
            "X-Mailer": "not kept",
        },
        thread_id="thread-7",
    )
    plain = google.add_message(sender="ops@example.org", subject="Plain", received=NOW)
    google.add_message(received=NOW - timedelta(days=8))  # outside the recent window
    google.add_message(labels=("SENT",))  # not in the inbox
    anchor = google.history_id

    added = await sync_once(make_source())

    assert added == 2
    assert sorted(stored_ids()) == sorted([f"gmail:{jose}", f"gmail:{plain}"])
    event = stored(f"gmail:{jose}")
    assert event.source == "email" and event.event_type == "email.received"
    assert event.time == received.replace(microsecond=123_000)  # internalDate is in ms
    assert event.sender == Person(name="José Núñez", address="Jose.Nunez@Example.org")
    assert event.subject == "Café tomorrow?"
    assert event.text == "Tom & Jerry's <b>plan</b>"
    assert event.labels == ["INBOX", "UNREAD", "CATEGORY_PERSONAL"]
    assert event.headers == {
        "List-Unsubscribe": "<mailto:unsubscribe@example.org>",
        "Precedence": "bulk",
        "Auto-Submitted": "auto-generated",
    }
    assert event.refs == {"thread_id": "thread-7", "message_id": jose, "account": ACCOUNT}
    assert stored(f"gmail:{plain}").sender == Person(name=None, address="ops@example.org")
    assert cursor() == {"history_id": str(anchor)}
    (listing,) = google.calls("/messages")[:1]
    assert listing.arg("q") == "newer_than:7d" and listing.query["labelIds"] == ["INBOX"]
    for get in google.calls("/messages/"):
        assert get.arg("format") == "full"


async def test_full_sync_is_paged_and_bounded(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    ids = deliver(google, 5)
    source = make_source(page_size=2, max_full_sync=4)

    first = await source.fetch(None)
    second = await source.fetch(first.cursor)

    assert [e.id for e in first.events] == [f"gmail:{i}" for i in (ids[4], ids[3])]
    assert first.more is True
    assert json.loads(first.cursor or "") == {
        "history_id": str(google.history_id),
        "page_token": "2",
        "full_sync": True,
        "fetched": 2,
    }
    assert [e.id for e in second.events] == [f"gmail:{i}" for i in (ids[2], ids[1])]
    assert second.more is False  # the bound is reached: the oldest message stays unread
    assert json.loads(second.cursor or "") == {"history_id": str(google.history_id)}

    assert await sync_once(make_source(page_size=2, max_full_sync=4)) == 4
    assert len(stored_ids()) == 4


# incremental sync ------------------------------------------------------------------------


async def test_incremental_sync_reads_only_new_inbox_mail(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    source = make_source()
    deliver(google, 2)
    await sync_once(source)
    before = cursor()["history_id"]

    new = deliver(google, 2, start=NOW + timedelta(minutes=5))
    google.add_message(labels=("SENT",))

    assert await sync_once(source) == 2
    assert stored_ids()[-2:] == [f"gmail:{i}" for i in new]
    (history,) = google.calls("/history")
    assert history.arg("startHistoryId") == before
    assert history.arg("labelId") == "INBOX" and history.arg("historyTypes") == "messageAdded"
    assert listings(google).count("messages") == 1  # the listing ran only for the first sync
    assert cursor() == {"history_id": str(google.history_id)}

    gets = len(google.calls("/messages/"))
    assert await sync_once(source) == 0  # nothing new: nothing fetched
    assert len(google.calls("/messages/")) == gets


async def test_history_pages_are_followed_one_batch_each(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    source = make_source()
    await sync_once(source)
    start = cursor()["history_id"]
    google.history_page_size = 2
    new = deliver(google, 5, start=NOW + timedelta(minutes=10))

    batches = []
    position = load_cursor(KEY)
    while True:
        batch = await source.fetch(position)
        batches.append(batch)
        position = batch.cursor
        if not batch.more:
            break

    assert [len(b.events) for b in batches] == [2, 2, 1]
    assert [e.id for b in batches for e in b.events] == [f"gmail:{i}" for i in new]
    # mid-way the cursor still starts at the old history id: it covers only returned pages
    assert json.loads(batches[0].cursor or "") == {"history_id": start, "page_token": "2"}
    assert json.loads(batches[-1].cursor or "") == {"history_id": str(google.history_id)}


async def test_a_stale_page_token_restarts_the_page_not_the_sync(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    source = make_source()
    await sync_once(source)
    start = cursor()["history_id"]
    new = deliver(google, 2, start=NOW + timedelta(minutes=1))

    batch = await source.fetch(json.dumps({"history_id": start, "page_token": "expired"}))

    assert [e.id for e in batch.events] == [f"gmail:{i}" for i in new]
    assert [r.arg("pageToken") for r in google.calls("/history")] == ["expired", None]
    assert listings(google).count("messages") == 1  # no second full sync


async def test_expired_history_starts_a_full_sync_without_duplicates(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    source = make_source()
    old = deliver(google, 3)
    await sync_once(source)
    new = google.add_message(subject="While away", received=NOW + timedelta(minutes=1))
    google.expire_history()

    assert await sync_once(source) == 1

    assert Counter(stored_ids()) == Counter(f"gmail:{i}" for i in [*old, new])
    assert listings(google)[-3:] == ["history", "profile", "messages"]
    assert cursor() == {"history_id": str(google.history_id)}
    assert await sync_once(source) == 0  # back to incremental
    assert google.calls("/history")[-1].arg("startHistoryId") == str(google.history_id)


async def test_mail_arriving_during_a_paged_full_sync_is_not_missed(
    db: object,
    google: FakeGoogle,
    make_source: Callable[..., GmailSource],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = deliver(google, 4)
    source = make_source(page_size=2)
    late: list[str] = []
    fetch = source.fetch

    async def fetch_then_deliver(position: str | None) -> Batch:
        batch = await fetch(position)
        if not late:  # a message arrives between the first and the second page
            late.append(google.add_message(received=NOW + timedelta(minutes=1)))
        return batch

    monkeypatch.setattr(source, "fetch", fetch_then_deliver)

    await sync_once(source)  # the full sync
    await sync_once(source)  # incremental, from the historyId read before the listing

    assert Counter(stored_ids()) == Counter(f"gmail:{i}" for i in [*ids, *late])


async def test_a_message_deleted_before_it_is_read_is_skipped(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    source = make_source()
    await sync_once(source)
    gone, kept = deliver(google, 2, start=NOW + timedelta(minutes=3))
    google.delete_message(gone)

    assert await sync_once(source) == 1
    assert stored_ids() == [f"gmail:{kept}"]


# crash safety and failures ---------------------------------------------------------------


async def test_a_crash_mid_sync_loses_and_duplicates_nothing(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    ids = deliver(google, 5)  # listed newest first: pages [4, 3] [2, 1] [0]
    google.fail(f"/messages/{ids[2]}", 500)

    with pytest.raises(TransientError):
        await sync_once(make_source(page_size=2))
    assert sorted(stored_ids()) == sorted(f"gmail:{i}" for i in ids[3:])
    assert cursor()["page_token"] == "2"  # committed with the first page

    assert await sync_once(make_source(page_size=2)) == 3  # after a restart

    assert Counter(stored_ids()) == Counter(f"gmail:{i}" for i in ids)
    assert len(google.calls(f"/messages/{ids[4]}")) == 1  # the first page was not re-read


async def test_server_errors_are_retried_by_the_runner(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    source = make_source()
    await sync_once(source)
    new = google.add_message(subject="After the outage", received=NOW + timedelta(minutes=2))
    google.fail("/history", 503, times=3)
    runner = SourceRunner(backoff_base=0.01, backoff_max=0.05)

    with pytest.raises(TransientError, match="503"):
        await runner.run_once(source)
    assert SourceStatus.get(SourceStatus.key == KEY).state == "retrying"

    runner.add(source)
    try:
        for _ in range(200):
            if f"gmail:{new}" in stored_ids():
                break
            await asyncio.sleep(0.02)
    finally:
        await runner.stop()

    assert stored_ids().count(f"gmail:{new}") == 1
    assert len(google.calls("/history")) == 4  # three 503s, then success
    status = SourceStatus.get(SourceStatus.key == KEY)
    assert status.state == "ok" and status.last_error is None


async def test_an_expired_token_is_refreshed_and_saved_during_sync(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    source = make_source()
    await sync_once(source)
    old_token = (google.stored_credentials() or {})["token"]
    google.expire_access_tokens()
    new = google.add_message(received=NOW + timedelta(minutes=2))

    assert await sync_once(source) == 1

    assert stored_ids()[-1] == f"gmail:{new}"
    assert google.refreshes == 1
    saved = google.stored_credentials() or {}
    assert saved["token"] != old_token and saved["token"] in google.access_tokens


async def test_revoked_access_needs_sign_in_and_keeps_the_cursor(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    source = make_source()
    await sync_once(source)
    position = cursor()
    google.revoke_refresh_tokens()
    google.add_message(received=NOW + timedelta(minutes=2))

    with pytest.raises(NeedsSignIn):
        await SourceRunner().run_once(source)

    status = SourceStatus.get(SourceStatus.key == KEY)
    assert status.state == "needs_sign_in" and "sign in again" in (status.last_error or "")
    assert cursor() == position

    google.sign_in()  # the user signs in again: the same source carries on
    assert await sync_once(source) == 1


# conversion ------------------------------------------------------------------------------


def test_a_message_without_optional_headers_still_converts() -> None:
    event = message_event({"id": "x1", "internalDate": "0", "payload": {}}, ACCOUNT)

    assert event.id == "gmail:x1" and event.time == datetime(1970, 1, 1, tzinfo=UTC)
    assert event.sender is None and event.subject is None and event.text == ""
    assert event.headers == {} and event.labels == []


# format=full payloads --------------------------------------------------------------------


def b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def part(mime_type: str, *, data: str | None = None, filename: str = "", **headers: str) -> dict:
    body: dict = {"size": len(data.encode()) if data is not None else 1234}
    if data is not None:
        body["data"] = b64url(data)
    else:
        body["attachmentId"] = f"att-{filename}"
    return {
        "mimeType": mime_type,
        "filename": filename,
        "headers": [{"name": k.replace("_", "-"), "value": v} for k, v in headers.items()],
        "body": body,
    }


def multipart(mime_type: str, *parts: dict) -> dict:
    return {
        "mimeType": mime_type,
        "filename": "",
        "headers": [],
        "body": {"size": 0},
        "parts": list(parts),
    }


def with_payload(google: FakeGoogle, message_id: str, payload: dict) -> None:
    """Give a delivered message a full payload, keeping its headers."""
    with google.lock:
        message = google.messages[message_id]
        payload["headers"] = message["payload"]["headers"] + payload.get("headers", [])
        message["payload"] = payload


async def test_full_messages_read_like_imap_ones(
    db: object, google: FakeGoogle, make_source: Callable[..., GmailSource]
) -> None:
    html = (
        "<html><head><style>b{}</style></head><body>"
        "<p>Die Probe ist am <b>Freitag</b> &ndash; 18&nbsp;Uhr.</p></body></html>"
    )
    rehearsal = google.add_message(
        subject="Probe",
        snippet="Die Probe ist am Freitag – 18 Uhr.",
        labels=("INBOX", "SPAM"),
        headers={
            "X-Spam-Flag": "YES",
            "X-Spam-Status": "Yes, score=6.1",
            "Authentication-Results": "mx.google.com; spf=softfail",
            "Reply-To": "chor@liedertafel.example.org",
            "Return-Path": "<bounce@liedertafel.example.org>",
        },
    )
    with_payload(
        google,
        rehearsal,
        multipart(
            "multipart/mixed",
            multipart(
                "multipart/alternative",
                part("text/plain", data="\r\n", Content_Type="text/plain; charset=UTF-8"),
                part("text/html", data=html, Content_Type="text/html; charset=UTF-8"),
            ),
            part(
                "application/pdf",
                filename="Noten.pdf",
                Content_Disposition='attachment; filename="Noten.pdf"',
            ),
        ),
    )
    photos = google.add_message(subject="Fotos", snippet="")
    with_payload(
        google,
        photos,
        multipart(
            "multipart/mixed",
            part("text/plain", data=" \r\n"),
            part("image/jpeg", filename="IMG_2041.JPG"),
            part("image/jpeg", filename="IMG_2042.JPG"),
        ),
    )

    assert await sync_once(make_source()) == 2

    event = stored(f"gmail:{rehearsal}")
    assert event.text == "Die Probe ist am Freitag – 18 Uhr."
    assert event.refs["attachments"] == ["Noten.pdf"]
    assert event.labels == ["INBOX", "SPAM"]
    assert event.headers == {
        "Reply-To": "chor@liedertafel.example.org",
        "Return-Path": "<bounce@liedertafel.example.org>",
        "X-Spam-Flag": "YES",
        "X-Spam-Status": "Yes, score=6.1",
        "Authentication-Results": "mx.google.com; spf=softfail",
    }
    album = stored(f"gmail:{photos}")
    assert album.text == "[2 attachments: IMG_2041.JPG, IMG_2042.JPG]"
    assert album.refs["attachments"] == ["IMG_2041.JPG", "IMG_2042.JPG"]


@pytest.mark.allow_log_warnings
async def test_a_message_that_cannot_be_mapped_fails_alone(
    db: object,
    google: FakeGoogle,
    make_source: Callable[..., GmailSource],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import engine.sources.google.gmail as gmail_module

    real = gmail_module.parse_sender

    def parse_sender(value: str | None) -> Person | None:
        if value and "trouble" in value:
            raise RuntimeError("a bug in the sender parser")
        return real(value)

    monkeypatch.setattr(gmail_module, "parse_sender", parse_sender)
    first = google.add_message(received=NOW - timedelta(minutes=3))
    odd = google.add_message(
        sender="trouble@example.net",
        snippet="Still &amp; here",
        received=NOW - timedelta(minutes=2),
    )
    unreadable = google.add_message(received=NOW - timedelta(minutes=1))
    last = google.add_message(received=NOW)
    monkeypatch.setattr(
        gmail_module, "message_event", _refusing(gmail_module.message_event, unreadable)
    )

    assert await sync_once(make_source()) == 3

    assert sorted(stored_ids()) == sorted(f"gmail:{i}" for i in (first, odd, last))
    bare = stored(f"gmail:{odd}")
    assert (bare.sender, bare.text) == (None, "Still & here")
    assert bare.notes == ["its headers could not be mapped: a bug in the sender parser"]
    logged = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.levelname, r.getMessage()) for r in logged] == [  # listed newest first
        ("WARNING", f"{KEY}: Gmail message {unreadable} skipped: a Gmail message without an id"),
        (
            "ERROR",
            f"Gmail message {odd}: its headers could not be mapped: a bug in the sender parser",
        ),
    ]


def _refusing(mapping: Callable[..., Event], message_id: str) -> Callable[..., Event]:
    """``mapping``, but the message ``message_id`` arrives without its id."""

    def refuse(message: dict, account: str) -> Event:
        if message.get("id") == message_id:
            message = {**message, "id": None}
        return mapping(message, account)

    return refuse


def test_a_corrupt_part_is_noted_and_the_snippet_stands_in() -> None:
    payload = multipart(
        "multipart/alternative",
        {**part("text/plain"), "body": {"size": 900, "data": "PLAIN"}},
        {**part("text/html"), "body": {"size": 4000, "data": "SFRNTA"}},
    )
    message = {
        "id": "c1",
        "internalDate": "0",
        "snippet": "Gmail&#39;s own words",
        "payload": payload,
    }

    event = message_event(message, ACCOUNT)

    assert event.text == "Gmail's own words"
    assert event.notes == [
        "its text could not be decoded: part ? is not base64url",
        "its text could not be decoded: part ? holds 4 of its 4000 bytes",
    ]


def test_a_cut_emoji_in_the_json_is_no_error() -> None:
    message = {"id": "e1", "internalDate": "0", "snippet": "Party \ud83c", "payload": {}}
    assert message_event(message, ACCOUNT).text == "Party \ufffd"
