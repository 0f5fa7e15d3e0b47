"""Gmail: new inbox messages as ``email.received`` events.

First run: a full sync of recent inbox mail (``newer_than:7d``, at most ``max_full_sync``
messages), anchored at the mailbox's historyId read *before* listing, so nothing that
arrives meanwhile is missed. Then incremental: ``users.history.list`` from that historyId.
A 404 (history too old) starts a full sync again; re-read messages keep their event ids,
so the store ignores them.

The cursor is JSON: ``{"history_id": "123"}`` between syncs; in the middle of a paged sync
it also holds the next ``page_token`` (and ``full_sync``/``fetched`` during a full sync), so
it only ever covers the pages already returned."""

from __future__ import annotations

import asyncio
import html
import json
import logging
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.events import Event
from engine.sources.base import Batch, Source
from engine.sources.google.auth import GoogleApiError, GoogleSession
from engine.sources.mail.headers import decode_header_value, parse_sender

log = logging.getLogger(__name__)

METADATA_HEADERS = [
    "From",
    "To",
    "Subject",
    "Date",
    "List-Unsubscribe",
    "Precedence",
    "Auto-Submitted",
]
KEPT_HEADERS = ("List-Unsubscribe", "Precedence", "Auto-Submitted")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class GmailCursor:
    history_id: str
    page_token: str | None = None
    full_sync: bool = False
    fetched: int = 0

    def dumps(self) -> str:
        data = {k: v for k, v in asdict(self).items() if v not in (None, False, 0)}
        return json.dumps(data, sort_keys=True)

    @classmethod
    def loads(cls, text: str | None) -> GmailCursor | None:
        if not text:
            return None
        try:
            data = json.loads(text)
            return cls(
                history_id=str(data["history_id"]),
                page_token=data.get("page_token"),
                full_sync=bool(data.get("full_sync", False)),
                fetched=int(data.get("fetched", 0)),
            )
        except (ValueError, TypeError, KeyError):
            log.info("unreadable Gmail cursor %r: starting a full sync", text)
            return None


class GmailSource(Source):
    kind = "gmail"
    poll_seconds = 60.0

    def __init__(
        self,
        account: str,
        *,
        api_endpoint: str | None = None,
        query: str = "newer_than:7d",
        max_full_sync: int = 200,
        page_size: int = 100,
        timeout: float = 30.0,
    ):
        super().__init__(account)
        self.api_endpoint = api_endpoint
        self.query = query
        self.max_full_sync = max_full_sync
        self.page_size = page_size
        self.session = GoogleSession(account, timeout=timeout)

    async def fetch(self, cursor: str | None) -> Batch:
        return await asyncio.to_thread(self._fetch, GmailCursor.loads(cursor))

    async def close(self) -> None:
        self.session.close()

    # blocking part, run in a worker thread ------------------------------------------------

    def _users(self) -> Any:
        return self.session.service("gmail", "v1", self.api_endpoint).users()

    def _fetch(self, cursor: GmailCursor | None) -> Batch:
        if cursor is None or cursor.full_sync:
            return self._full_sync_page(cursor)
        try:
            return self._history_page(cursor)
        except GoogleApiError as exc:
            if exc.status == 404:
                log.info("%s: Gmail history %s expired; full sync", self.key, cursor.history_id)
                return self._full_sync_page(None)
            if exc.status == 400 and cursor.page_token:
                return self._history_page(GmailCursor(cursor.history_id))
            raise

    def _full_sync_page(self, cursor: GmailCursor | None) -> Batch:
        if cursor is None:
            profile = self.session.execute(self._users().getProfile(userId="me"))
            cursor = GmailCursor(str(profile["historyId"]), full_sync=True)
        want = max(1, min(self.page_size, self.max_full_sync - cursor.fetched))
        request = (
            self._users()
            .messages()
            .list(
                userId="me",
                labelIds=["INBOX"],
                q=self.query,
                maxResults=want,
                pageToken=cursor.page_token,
            )
        )
        try:
            page = self.session.execute(request)
        except GoogleApiError as exc:
            if exc.status == 400 and cursor.page_token:  # a stale page token: start over
                return self._full_sync_page(None)
            raise
        ids = [m["id"] for m in page.get("messages", [])][:want]
        events = self._events(ids)
        fetched = cursor.fetched + len(ids)
        token = page.get("nextPageToken")
        if token and ids and fetched < self.max_full_sync:
            nxt = GmailCursor(cursor.history_id, token, full_sync=True, fetched=fetched)
            return Batch(events, nxt.dumps(), more=True)
        return Batch(events, GmailCursor(cursor.history_id).dumps())

    def _history_page(self, cursor: GmailCursor) -> Batch:
        page = self.session.execute(
            self._users()
            .history()
            .list(
                userId="me",
                startHistoryId=cursor.history_id,
                historyTypes=["messageAdded"],
                labelId="INBOX",
                maxResults=self.page_size,
                pageToken=cursor.page_token,
            )
        )
        ids: list[str] = []
        for record in page.get("history", []):
            for added in record.get("messagesAdded", []):
                message_id = added.get("message", {}).get("id")
                if message_id and message_id not in ids:
                    ids.append(message_id)
        events = self._events(ids)
        token = page.get("nextPageToken")
        if token:
            return Batch(events, GmailCursor(cursor.history_id, token).dumps(), more=True)
        latest = str(page.get("historyId") or cursor.history_id)
        return Batch(events, GmailCursor(latest).dumps())

    def _events(self, ids: list[str]) -> list[Event]:
        events = []
        for message_id in ids:
            request = (
                self._users()
                .messages()
                .get(
                    userId="me",
                    id=message_id,
                    format="metadata",
                    metadataHeaders=METADATA_HEADERS,
                )
            )
            try:
                message = self.session.execute(request)
            except GoogleApiError as exc:
                if exc.status == 404:  # deleted since it was listed
                    continue
                raise
            events.append(message_event(message, self.account))
        return events


# conversion ------------------------------------------------------------------------------


def message_event(message: dict[str, Any], account: str) -> Event:
    """A Gmail ``format=metadata`` message as a canonical ``email.received`` event."""
    headers: dict[str, str] = {}
    for header in message.get("payload", {}).get("headers", []):
        name, value = header.get("name", ""), header.get("value", "")
        headers.setdefault(name.lower(), value)
    subject = headers.get("subject")
    return Event(
        id=f"gmail:{message['id']}",
        source="email",
        event_type="email.received",
        time=EPOCH + timedelta(milliseconds=int(message["internalDate"])),
        sender=parse_sender(headers.get("from")),
        subject=decode_header_value(subject) if subject is not None else None,
        text=html.unescape(message.get("snippet", "")),
        labels=list(message.get("labelIds", [])),
        headers={k: headers[k.lower()] for k in KEPT_HEADERS if k.lower() in headers},
        refs={
            "thread_id": message.get("threadId"),
            "message_id": message["id"],
            "account": account,
        },
    )
