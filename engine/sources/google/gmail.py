"""Gmail: new inbox messages as ``email.received`` events.

First run: a full sync of recent inbox mail (``newer_than:7d``, at most ``max_full_sync``
messages), anchored at the mailbox's historyId read *before* listing, so nothing that
arrives meanwhile is missed. Then incremental: ``users.history.list`` from that historyId.
A 404 (history too old) starts a full sync again; re-read messages keep their event ids,
so the store ignores them.

The cursor is JSON: ``{"history_id": "123"}`` between syncs; in the middle of a paged sync
it also holds the next ``page_token`` (and ``full_sync``/``fetched`` during a full sync), so
it only ever covers the pages already returned.

Messages are read with ``format=full``: the text is chosen and converted as for IMAP
(:mod:`engine.sources.mail.text`: a non-empty text/plain part, else the HTML one as text;
attachment names in ``refs["attachments"]``). A message fails alone: what cannot be read or
mapped leaves a note in ``Event.notes`` (and is reported), a message of which nothing can be
made is skipped with a warning, and the rest of the page is stored."""

from __future__ import annotations

import asyncio
import base64
import binascii
import html
import json
import logging
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.clock import utcnow
from engine.events import Event
from engine.events.bounds import cleaned
from engine.sources.base import Batch, Source, SourceError
from engine.sources.google.auth import GoogleApiError, GoogleSession
from engine.sources.mail.headers import (
    KEPT_HEADERS,
    decode_header_value,
    parse_date,
    parse_sender,
)
from engine.sources.mail.text import (
    MimePart,
    attachment_names,
    attachment_summary,
    param_value,
    part_links,
    part_text,
    split_header_params,
    text_parts,
)
from engine.tasks import one_line, report

log = logging.getLogger(__name__)

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
PART_BYTES = 262_144
"""Bytes of a text part converted to text: far more than the text an event keeps needs."""
MAX_PART_DEPTH = 50


class UnreadableMessage(SourceError):
    """A Gmail message that cannot be turned into an event at all (no id)."""


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
            request = self._users().messages().get(userId="me", id=message_id, format="full")
            try:
                message = self.session.execute(request)
            except GoogleApiError as exc:
                if exc.status == 404:  # deleted since it was listed
                    continue
                raise
            event = self._event_or_skip(message_id, message)
            if event is not None:
                events.append(event)
        return events

    def _event_or_skip(self, message_id: str, message: Any) -> Event | None:
        """One message fails alone: one of which nothing can be made is skipped with its
        reason logged (a bug with its traceback), and the page goes on."""
        try:
            return message_event(message, self.account)
        except Exception as exc:
            report(exc, f"{self.key}: Gmail message {message_id} skipped", logger=log)
            return None


# conversion ------------------------------------------------------------------------------


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _headers(part: dict[str, Any]) -> dict[str, str]:
    """A payload part's headers: the first of each name, names in lower case."""
    headers: dict[str, str] = {}
    for header in _list(part.get("headers")):
        name, value = _str(_dict(header).get("name")), _str(_dict(header).get("value"))
        if name:
            headers.setdefault(name.lower(), value)
    return headers


def _leaf(part: dict[str, Any], embedded: bool) -> MimePart:
    headers = _headers(part)
    maintype, _, subtype = _str(part.get("mimeType")).lower().partition("/")
    _, type_params = split_header_params(headers.get("content-type", ""))
    disposition, where = split_header_params(headers.get("content-disposition", ""))
    filename = _str(part.get("filename")).strip()
    size = _dict(part.get("body")).get("size")
    return MimePart(
        ref=_str(part.get("partId")),
        maintype=maintype,
        subtype=subtype,
        charset=type_params.get("charset"),
        encoding="8bit",  # Gmail has undone the transfer encoding
        size=size if isinstance(size, int) else 0,
        filename=filename or param_value(where, "filename") or param_value(type_params, "name"),
        disposition=disposition or None,
        description=decode_header_value(headers.get("content-description", "")) or None,
        embedded=embedded,
    )


def payload_parts(
    payload: Any, embedded: bool = False, depth: int = 0
) -> list[tuple[MimePart, dict[str, Any]]]:
    """The leaves of a ``format=full`` payload, each with the part it came from."""
    part = _dict(payload)
    children = [child for child in _list(part.get("parts")) if isinstance(child, dict)]
    if not children:
        return [(_leaf(part, embedded), part)] if part.get("mimeType") else []
    if depth > MAX_PART_DEPTH:
        return []
    inside = embedded or _str(part.get("mimeType")).lower() == "multipart/related"
    return [leaf for child in children for leaf in payload_parts(child, inside, depth + 1)]


def _part_bytes(part: dict[str, Any]) -> bytes | None:
    """A part's content, None when it was not sent (an attachment). Gmail sends it in
    base64url; anything else is corrupt (raises ValueError) rather than garbage to show."""
    body = _dict(part.get("body"))
    data, size = body.get("data"), body.get("size")
    if not isinstance(data, str):
        return None
    where = f"part {_str(part.get('partId')) or '?'}"
    try:
        content = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{where} is not base64url") from exc
    if isinstance(size, int) and len(content) * 2 < size:
        raise ValueError(f"{where} holds {len(content)} of its {size} bytes")
    return content


def _body_text(leaves: list[tuple[MimePart, dict[str, Any]]], notes: list[str]) -> str:
    """The text of the first text part that has any (plain before HTML); a part that cannot
    be read is noted and the next one tried."""
    raw_by_part = {id(mime): raw for mime, raw in leaves}
    for mime in text_parts([mime for mime, _ in leaves]):
        try:
            data = _part_bytes(raw_by_part[id(mime)])
        except ValueError as exc:
            notes.append(f"its text could not be decoded: {exc}")
            continue
        if data:
            text = part_text(data[:PART_BYTES], mime, partial=len(data) > PART_BYTES)
            if text:
                return text
    return ""


def _links(leaves: list[tuple[MimePart, dict[str, Any]]]) -> list[str]:
    """The hosts the links of the first HTML part lead to (``text.part_links``)."""
    for mime, raw in leaves:
        if mime.subtype == "html" and not mime.is_attachment:
            try:
                data = _part_bytes(raw) or b""
            except ValueError:
                return []
            return part_links(data[:PART_BYTES], mime, partial=len(data) > PART_BYTES)
    return []


def _time(message: dict[str, Any], headers: dict[str, str]) -> datetime:
    """When Gmail received it (internalDate, in ms), else the Date header, else now."""
    try:
        return EPOCH + timedelta(milliseconds=int(message["internalDate"]))
    except (KeyError, TypeError, ValueError, OverflowError):
        return parse_date(headers.get("date")) or utcnow()


def _refs(message: dict[str, Any], message_id: str, account: str) -> dict[str, Any]:
    return {"thread_id": message.get("threadId"), "message_id": message_id, "account": account}


def _snippet(message: dict[str, Any]) -> str:
    return html.unescape(_str(message.get("snippet")))


def message_event(message: dict[str, Any], account: str) -> Event:
    """A Gmail message (``format=full``; ``format=metadata`` too, its snippet then being the
    text) as a canonical ``email.received`` event. What cannot be read or mapped leaves a
    note (and is reported); raises :class:`UnreadableMessage` only when there is no message
    at all (no id)."""
    message = cleaned(_dict(message))  # JSON may hold a lone surrogate (a cut emoji)
    message_id = message.get("id")
    if not isinstance(message_id, str | int) or isinstance(message_id, bool) or not message_id:
        raise UnreadableMessage("a Gmail message without an id")
    try:
        return _full_event(message, str(message_id), account)
    except Exception as exc:
        report(exc, f"Gmail message {message_id}: its headers could not be mapped", logger=log)
        note = f"its headers could not be mapped: {one_line(exc)}"
    return Event(  # what is left: when it arrived, and Gmail's snippet
        id=f"gmail:{message_id}",
        source="email",
        event_type="email.received",
        time=_time(message, {}),
        text=_snippet(message),
        refs=_refs(message, str(message_id), account),
        notes=[note],
    )


def _full_event(message: dict[str, Any], message_id: str, account: str) -> Event:
    payload = _dict(message.get("payload"))
    headers = _headers(payload)
    notes: list[str] = []
    leaves: list[tuple[MimePart, dict[str, Any]]] = []
    text = ""
    try:
        leaves = payload_parts(payload)
        text = _body_text(leaves, notes)
    except Exception as exc:
        report(exc, f"Gmail message {message_id}: its text could not be decoded", logger=log)
        notes.append(f"its text could not be decoded: {one_line(exc)}")
    attachments = attachment_names(mime for mime, _ in leaves)
    subject = headers.get("subject")
    refs = _refs(message, message_id, account)
    if attachments:
        refs["attachments"] = attachments
    links = _links(leaves)
    if links:
        refs["links"] = links
    return Event(
        id=f"gmail:{message_id}",
        source="email",
        event_type="email.received",
        time=_time(message, headers),
        sender=parse_sender(headers.get("from")),
        subject=decode_header_value(subject) if subject is not None else None,
        text=text or _snippet(message) or attachment_summary(attachments),
        labels=[label for label in _list(message.get("labelIds")) if isinstance(label, str)],
        headers={
            name: decode_header_value(headers[name.lower()])
            for name in KEPT_HEADERS
            if name.lower() in headers
        },
        refs=refs,
        notes=notes,
    )
