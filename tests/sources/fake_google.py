"""A fake Google on 127.0.0.1: OAuth (authorization + token endpoints), Gmail and Calendar,
spoken over real HTTP so the real client libraries can be tested against it.

State is controllable from tests: mailbox messages and their history records, calendar
events and sync tokens, revoked or expired tokens, and faults (a status, or a delay, for the
next N requests whose path contains a given text). Also: a fake browser that follows the
authorization redirect like a real one, and ``running_google`` to set it all up."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import secrets
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import google.oauth2.credentials as oauth2_credentials
import pytest

from engine.accounts.secrets import get_secret, set_secret
from engine.sources.google.auth import secret_name
from tests.keyring_memory import MemoryKeyring, use_memory_keyring

ACCOUNT = "ada@example.com"
CLIENT_ID = "tic-test.apps.googleusercontent.com"
CLIENT_SECRET = "fake-client-secret"
UPDATED_BASE = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
CANCELLED = {"status": "cancelled"}


@dataclass
class Fault:
    path_part: str
    status: int
    times: int
    reason: str | None = None
    delay: float = 0.0


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    form: dict[str, list[str]] = field(default_factory=dict)

    def arg(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_id_token(email: str) -> str:
    header = _b64(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
    claims = _b64(json.dumps({"iss": "https://accounts.google.com", "email": email}).encode())
    return f"{header}.{claims}.{_b64(b'not-checked')}"


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class BadPageToken(Exception):
    """Answered as 400, like Google does for a page token it does not recognise."""


def _page(items: list[Any], token: str | None, size: int) -> tuple[list[Any], str | None]:
    if token is not None and not token.isdigit():
        raise BadPageToken(token)
    start = int(token) if token else 0
    chunk = items[start : start + size]
    nxt = str(start + size) if start + size < len(items) else None
    return chunk, nxt


class FakeGoogle:
    """Start with ``with FakeGoogle() as google:``; ``google.url`` is its base URL."""

    def __init__(self, email: str = ACCOUNT):
        self.email = email
        self.lock = threading.Lock()
        self.requests: list[Request] = []
        self.faults: list[Fault] = []
        # OAuth
        self.codes: dict[str, dict[str, str]] = {}
        self.auth_requests: list[dict[str, str]] = []
        self.deny_next_sign_in = False
        self.refresh_tokens: set[str] = set()
        self.access_tokens: set[str] = set()
        self.refreshes = 0
        # Gmail
        self.now = datetime.now(UTC)
        self.messages: dict[str, dict[str, Any]] = {}
        self.history: list[dict[str, Any]] = []
        self.history_id = 1000
        self.oldest_history_id = 0
        self.message_page_size = 500
        self.history_page_size = 500
        self._ids = itertools.count(1)
        # Calendar
        self.calendar_tz = "Europe/Madrid"
        self.events: dict[str, dict[str, Any]] = {}
        self.event_seq: dict[str, int] = {}
        self.seq = 0
        self.oldest_sync_seq = 0
        self.event_page_size = 2500
        # Recurring events themselves: read with events.get only (a singleEvents listing
        # shows their occurrences, which are in ``events``).
        self.series: dict[str, dict[str, Any]] = {}
        # Like the organizer's own calendar: listings keep a deleted event's details.
        self.detailed_cancellations = False
        self.keyring: MemoryKeyring | None = None
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> FakeGoogle:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.google = self  # type: ignore[attr-defined]
        server.handle_error = lambda request, address: None  # type: ignore[method-assign]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/"

    # faults and inspection -----------------------------------------------------------------

    def fail(self, path_part: str, status: int, times: int = 1, reason: str | None = None) -> None:
        """The next ``times`` requests whose path contains ``path_part`` answer ``status``."""
        with self.lock:
            self.faults.append(Fault(path_part, status, times, reason))

    def stall(self, path_part: str, seconds: float, times: int = 1) -> None:
        """The next ``times`` matching requests wait ``seconds`` before answering."""
        with self.lock:
            self.faults.append(Fault(path_part, 0, times, delay=seconds))

    def calls(self, path_part: str) -> list[Request]:
        with self.lock:
            return [r for r in self.requests if path_part in r.path]

    # OAuth ---------------------------------------------------------------------------------

    def client_secret_file(self, path: Path) -> Path:
        config = {
            "installed": {
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "auth_uri": f"{self.url}o/oauth2/auth",
                "token_uri": f"{self.url}token",
                "redirect_uris": ["http://localhost"],
            }
        }
        path.write_text(json.dumps(config))
        return path

    def authorized_user_json(self, *, expired: bool = False) -> str:
        """What a finished sign-in stores in the keyring (tokens issued by this server)."""
        with self.lock:
            refresh, access = self._issue_refresh_token(), self._issue_access_token()
        expiry = datetime.now(UTC) + (timedelta(hours=-1) if expired else timedelta(hours=1))
        return json.dumps(
            {
                "token": access,
                "refresh_token": refresh,
                "token_uri": f"{self.url}token",
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "scopes": ["https://www.googleapis.com/auth/gmail.readonly"],
                "expiry": expiry.replace(tzinfo=None).isoformat() + "Z",
            }
        )

    def sign_in(self) -> str:
        """Store a finished sign-in in the keyring, as ``engine`` would; returns the account."""
        set_secret(secret_name(self.email), self.authorized_user_json())
        return self.email

    def stored_credentials(self) -> dict[str, Any] | None:
        raw = get_secret(secret_name(self.email))
        return json.loads(raw) if raw else None

    def expire_access_tokens(self) -> None:
        with self.lock:
            self.access_tokens.clear()

    def revoke_refresh_tokens(self) -> None:
        with self.lock:
            self.refresh_tokens.clear()
            self.access_tokens.clear()

    def _issue_refresh_token(self) -> str:
        token = f"refresh-{secrets.token_hex(8)}"
        self.refresh_tokens.add(token)
        return token

    def _issue_access_token(self) -> str:
        token = f"access-{secrets.token_hex(8)}"
        self.access_tokens.add(token)
        return token

    # Gmail ---------------------------------------------------------------------------------

    def add_message(
        self,
        *,
        sender: str = "Grace Hopper <grace@example.org>",
        subject: str = "Hello",
        snippet: str = "Hi there",
        labels: tuple[str, ...] = ("INBOX", "UNREAD"),
        received: datetime | None = None,
        headers: dict[str, str] | None = None,
        thread_id: str | None = None,
    ) -> str:
        """Deliver a message: it gets the next history id and a messageAdded record."""
        with self.lock:
            message_id = f"m{next(self._ids):04d}"
            self.history_id += 7  # history ids grow but are not contiguous
            when = received or self.now
            all_headers = {
                "From": sender,
                "To": self.email,
                "Subject": subject,
                "Date": when.strftime("%a, %d %b %Y %H:%M:%S +0000"),
                "Message-ID": f"<{message_id}@example.org>",
                **(headers or {}),
            }
            message = {
                "id": message_id,
                "threadId": thread_id or f"t-{message_id}",
                "labelIds": list(labels),
                "snippet": snippet,
                "historyId": str(self.history_id),
                "internalDate": str(int(when.timestamp() * 1000)),
                "sizeEstimate": 1234,
                "payload": {
                    "mimeType": "text/plain",
                    "headers": [{"name": k, "value": v} for k, v in all_headers.items()],
                },
            }
            self.messages[message_id] = message
            brief = {"id": message_id, "threadId": message["threadId"]}
            self.history.append(
                {
                    "id": str(self.history_id),
                    "messages": [brief],
                    "messagesAdded": [{"message": {**brief, "labelIds": list(labels)}}],
                }
            )
            return message_id

    def delete_message(self, message_id: str) -> None:
        with self.lock:
            del self.messages[message_id]

    def expire_history(self) -> None:
        """Every history id handed out so far becomes too old: history.list answers 404."""
        with self.lock:
            self.oldest_history_id = self.history_id + 1

    # Calendar ------------------------------------------------------------------------------

    def put_event(self, event: dict[str, Any]) -> dict[str, Any]:
        """Create or replace an event; bumps its ``updated`` and the sync sequence."""
        with self.lock:
            self.seq += 1
            updated = rfc3339(UPDATED_BASE + timedelta(seconds=self.seq))
            old = self.events.get(event["id"])
            stored = {
                "kind": "calendar#event",
                "status": "confirmed",
                "created": old["created"] if old else updated,
                "htmlLink": f"https://calendar.example/{event['id']}",
                "iCalUID": f"{event['id']}@google.com",
                **event,
                "updated": updated,
            }
            self.events[event["id"]] = stored
            self.event_seq[event["id"]] = self.seq
            return stored

    def timed_event(
        self, event_id: str, summary: str, start: datetime, minutes: int = 30, **extra: Any
    ) -> dict[str, Any]:
        end = start + timedelta(minutes=minutes)
        return self.put_event(
            {
                "id": event_id,
                "summary": summary,
                "start": {"dateTime": start.isoformat(), "timeZone": self.calendar_tz},
                "end": {"dateTime": end.isoformat(), "timeZone": self.calendar_tz},
                "organizer": {"email": "boss@example.org", "displayName": "The Boss"},
                **extra,
            }
        )

    def move_event(self, event_id: str, start: datetime, minutes: int = 30) -> dict[str, Any]:
        event = dict(self.events[event_id])
        event["start"] = {"dateTime": start.isoformat(), "timeZone": self.calendar_tz}
        event["end"] = {
            "dateTime": (start + timedelta(minutes=minutes)).isoformat(),
            "timeZone": self.calendar_tz,
        }
        return self.put_event(event)

    def cancel_event(self, event_id: str) -> dict[str, Any]:
        """Like Google: a deleted event is listed (showDeleted / sync) with few fields (unless
        ``detailed_cancellations``); events.get still returns its details."""
        return self.put_event({**self.events.get(event_id, {}), "id": event_id} | CANCELLED)

    def recurring_event(
        self,
        series_id: str,
        summary: str,
        first: datetime,
        count: int,
        every: timedelta = timedelta(days=1),
        minutes: int = 30,
    ) -> list[dict[str, Any]]:
        """A recurring event as a singleEvents listing shows it: its occurrences, each named
        ``<series>_<original start, UTC>`` with ``recurringEventId`` and ``originalStartTime``."""
        end = first + timedelta(minutes=minutes)
        with self.lock:
            self.series[series_id] = {
                "kind": "calendar#event",
                "id": series_id,
                "status": "confirmed",
                "summary": summary,
                "start": {"dateTime": first.isoformat(), "timeZone": self.calendar_tz},
                "end": {"dateTime": end.isoformat(), "timeZone": self.calendar_tz},
                "recurrence": [f"RRULE:FREQ=DAILY;COUNT={count}"],
                "organizer": {"email": "boss@example.org", "displayName": "The Boss"},
            }
        occurrences = []
        for n in range(count):
            start = first + n * every
            original = {"dateTime": start.isoformat(), "timeZone": self.calendar_tz}
            stamp = start.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
            occurrence = self.timed_event(
                f"{series_id}_{stamp}",
                summary,
                start,
                minutes,
                recurringEventId=series_id,
                originalStartTime=original,
            )
            occurrences.append(occurrence)
        return occurrences

    def invalidate_sync_tokens(self) -> None:
        with self.lock:
            self.oldest_sync_seq = self.seq + 1

    # request handling (called from server threads) ------------------------------------------

    def handle(self, request: Request, authorization: str | None) -> tuple[int, Any, dict]:
        with self.lock:
            self.requests.append(request)
            fault = next((f for f in self.faults if f.path_part in request.path), None)
            if fault is not None:
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
        if fault is not None and fault.delay:
            threading.Event().wait(fault.delay)
        elif fault is not None:
            return _error(fault.status, fault.reason or "backendError")
        with self.lock:
            try:
                return self._route(request, authorization)
            except BadPageToken:
                return _error(400, "invalid", "Invalid pageToken.")

    def _route(self, request: Request, authorization: str | None) -> tuple[int, Any, dict]:
        if request.path == "/o/oauth2/auth":
            return self._authorize(request)
        if request.path == "/token":
            return self._token(request, authorization)
        token = (authorization or "").removeprefix("Bearer ")
        if token not in self.access_tokens:
            return _error(401, "authError", "Invalid Credentials")
        if request.path.startswith("/gmail/v1/users/me/"):
            return self._gmail(request, request.path.removeprefix("/gmail/v1/users/me/"))
        match = re.fullmatch(r"/calendar/v3/calendars/([^/]+)/events", request.path)
        if match:
            return self._calendar_list(request)
        match = re.fullmatch(r"/calendar/v3/calendars/([^/]+)/events/([^/]+)", request.path)
        if match:
            event = self.events.get(match.group(2)) or self.series.get(match.group(2))
            return (200, event, {}) if event else _error(404, "notFound")
        return _error(404, "notFound")

    def _authorize(self, request: Request) -> tuple[int, Any, dict]:
        params = {k: v[0] for k, v in request.query.items()}
        self.auth_requests.append(params)
        redirect = params.get("redirect_uri", "")
        if params.get("client_id") != CLIENT_ID or not redirect.startswith("http://127.0.0.1:"):
            return _error(400, "invalid_request")
        if self.deny_next_sign_in:
            self.deny_next_sign_in = False
            answer = {"error": "access_denied", "state": params.get("state", "")}
        else:
            code = secrets.token_hex(8)
            self.codes[code] = params
            answer = {"code": code, "state": params.get("state", ""), "scope": params["scope"]}
        return 302, b"", {"Location": f"{redirect}?{urlencode(answer)}"}

    def _token(self, request: Request, authorization: str | None) -> tuple[int, Any, dict]:
        form = {k: v[0] for k, v in request.form.items()}
        if authorization and authorization.startswith("Basic "):  # client auth, RFC 6749 2.3.1
            basic = base64.b64decode(authorization.removeprefix("Basic ")).decode()
            form["client_id"], _, form["client_secret"] = basic.partition(":")
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return 401, {"error": "invalid_client"}, {}
        if form.get("grant_type") == "authorization_code":
            auth = self.codes.pop(form.get("code", ""), None)
            verifier = form.get("code_verifier", "")
            challenge = _b64(hashlib.sha256(verifier.encode()).digest())
            if (
                auth is None
                or auth.get("redirect_uri") != form.get("redirect_uri")
                or auth.get("code_challenge") != challenge
            ):
                return 400, {"error": "invalid_grant", "error_description": "Bad code."}, {}
            body = {
                "access_token": self._issue_access_token(),
                "refresh_token": self._issue_refresh_token(),
                "expires_in": 3599,
                "token_type": "Bearer",
                "scope": auth["scope"],
                "id_token": make_id_token(self.email),
            }
            return 200, body, {}
        if form.get("grant_type") == "refresh_token":
            if form.get("refresh_token") not in self.refresh_tokens:
                body = {
                    "error": "invalid_grant",
                    "error_description": "Token has been expired or revoked.",
                }
                return 400, body, {}
            self.refreshes += 1
            body = {
                "access_token": self._issue_access_token(),
                "expires_in": 3599,
                "token_type": "Bearer",
            }
            if form.get("scope"):
                body["scope"] = form["scope"]
            return 200, body, {}
        return 400, {"error": "unsupported_grant_type"}, {}

    def _gmail(self, request: Request, path: str) -> tuple[int, Any, dict]:
        if path == "profile":
            body = {"emailAddress": self.email, "historyId": str(self.history_id)}
            return 200, body, {}
        if path == "messages":
            return 200, self._message_list(request), {}
        if path.startswith("messages/"):
            message = self.messages.get(path.removeprefix("messages/"))
            if message is None:
                return _error(404, "notFound")
            return 200, _metadata_view(message, request), {}
        if path == "history":
            return self._history_list(request)
        return _error(404, "notFound")

    def _message_list(self, request: Request) -> dict[str, Any]:
        labels = request.query.get("labelIds", [])
        found = [m for m in self.messages.values() if set(labels) <= set(m["labelIds"])]
        match = re.search(r"newer_than:(\d+)d", request.arg("q") or "")
        if match:
            since = (self.now - timedelta(days=int(match.group(1)))).timestamp() * 1000
            found = [m for m in found if int(m["internalDate"]) >= since]
        found.sort(key=lambda m: int(m["internalDate"]), reverse=True)
        size = min(int(request.arg("maxResults") or 100), self.message_page_size)
        chunk, nxt = _page(found, request.arg("pageToken"), size)
        body: dict[str, Any] = {"resultSizeEstimate": len(found)}
        if chunk:
            body["messages"] = [{"id": m["id"], "threadId": m["threadId"]} for m in chunk]
        if nxt:
            body["nextPageToken"] = nxt
        return body

    def _history_list(self, request: Request) -> tuple[int, Any, dict]:
        start = int(request.arg("startHistoryId") or 0)
        if start < self.oldest_history_id:
            return _error(404, "notFound", "Requested entity was not found.")
        label = request.arg("labelId")
        records = []
        for record in self.history:
            if int(record["id"]) <= start:
                continue
            added = [
                a for a in record["messagesAdded"] if not label or label in a["message"]["labelIds"]
            ]
            if added:
                records.append({**record, "messagesAdded": added})
        size = min(int(request.arg("maxResults") or 100), self.history_page_size)
        chunk, nxt = _page(records, request.arg("pageToken"), size)
        body: dict[str, Any] = {"historyId": str(self.history_id)}
        if chunk:
            body["history"] = chunk
        if nxt:
            body["nextPageToken"] = nxt
        return 200, body, {}

    def _calendar_list(self, request: Request) -> tuple[int, Any, dict]:
        sync_token = request.arg("syncToken")
        if sync_token and (request.arg("timeMin") or request.arg("timeMax")):
            return _error(400, "invalid", "Sync token cannot be used with timeMin/timeMax.")
        token = request.arg("pageToken")
        if token and not re.fullmatch(r"\d+:\d+", token):
            raise BadPageToken(token)
        snapshot = int(token.split(":")[0]) if token else self.seq
        offset = token.split(":")[1] if token else None
        if sync_token:
            since = int(sync_token.removeprefix("sync-"))
            if since < self.oldest_sync_seq:
                return _error(410, "fullSyncRequired", "Sync token is no longer valid.")
            found = [e for i, e in self.events.items() if since < self.event_seq[i] <= snapshot]
        else:
            found = self._window(request, snapshot)
        found.sort(key=lambda e: self.event_seq[e["id"]])
        if request.arg("orderBy") == "startTime":
            found.sort(key=_start_key)
        size = min(int(request.arg("maxResults") or 250), self.event_page_size)
        chunk, nxt = _page(found, offset, size)
        body: dict[str, Any] = {
            "kind": "calendar#events",
            "timeZone": self.calendar_tz,
            "items": [_event_view(e, self.detailed_cancellations) for e in chunk],
        }
        if nxt:
            body["nextPageToken"] = f"{snapshot}:{nxt}"
        else:
            body["nextSyncToken"] = f"sync-{snapshot}"
        return 200, body, {}

    def _window(self, request: Request, snapshot: int) -> list[dict[str, Any]]:
        show_deleted = request.arg("showDeleted") == "true"
        time_min, time_max = request.arg("timeMin"), request.arg("timeMax")
        found = []
        for event_id, event in self.events.items():
            if self.event_seq[event_id] > snapshot:
                continue
            if event.get("status") == "cancelled":
                if show_deleted:
                    found.append(event)
                continue
            try:
                start, end = _bounds(event)
                if time_min and end <= datetime.fromisoformat(time_min):
                    continue
                if time_max and start >= datetime.fromisoformat(time_max):
                    continue
            except (KeyError, TypeError, ValueError, AttributeError):
                pass  # a broken item is listed as it is: the client must cope
            found.append(event)
        return found


def _start_key(event: dict[str, Any]) -> str:
    start = event.get("start")
    if not isinstance(start, dict):
        return ""  # a broken item sorts first, as it is
    return str(start.get("dateTime") or start.get("date") or "")


def _bounds(event: dict[str, Any]) -> tuple[datetime, datetime]:
    def parse(value: dict[str, str]) -> datetime:
        if "dateTime" in value:
            return datetime.fromisoformat(value["dateTime"])
        return datetime.fromisoformat(value["date"]).replace(tzinfo=UTC)

    return parse(event["start"]), parse(event["end"])


def _event_view(event: dict[str, Any], detailed: bool = False) -> dict[str, Any]:
    if event.get("status") == "cancelled" and not detailed:
        keep = ("kind", "id", "status", "updated", "recurringEventId", "originalStartTime")
        return {k: event[k] for k in keep if k in event}
    return dict(event)


def _metadata_view(message: dict[str, Any], request: Request) -> dict[str, Any]:
    if request.arg("format") != "metadata":
        return message
    wanted = {h.lower() for h in request.query.get("metadataHeaders", [])}
    headers = [h for h in message["payload"]["headers"] if h["name"].lower() in wanted]
    return {**message, "payload": {**message["payload"], "headers": headers}}


def _error(status: int, reason: str, message: str = "fake error") -> tuple[int, Any, dict]:
    body = {
        "error": {
            "code": status,
            "message": message,
            "errors": [{"reason": reason, "message": message, "domain": "global"}],
        }
    }
    return status, body, {}


class _Handler(BaseHTTPRequestHandler):
    server: ThreadingHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve({})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        form = parse_qs(self.rfile.read(length).decode()) if length else {}
        self._serve(form)

    def _serve(self, form: dict[str, list[str]]) -> None:
        parts = urlsplit(self.path)
        request = Request(self.command, parts.path, parse_qs(parts.query), form)
        google: FakeGoogle = self.server.google  # type: ignore[attr-defined]
        status, body, headers = google.handle(request, self.headers.get("Authorization"))
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


# browser and setup ---------------------------------------------------------------------


class FakeBrowser:
    """Opens a URL the way a browser does: in the background, following redirects."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.pages: list[str] = []
        self.errors: list[Exception] = []
        self._threads: list[threading.Thread] = []

    def __call__(self, url: str) -> None:
        self.opened.append(url)
        thread = threading.Thread(target=self._visit, args=(url,), daemon=True)
        self._threads.append(thread)
        thread.start()

    def _visit(self, url: str) -> None:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                self.pages.append(response.read().decode())
        except Exception as exc:  # reported through .errors
            self.errors.append(exc)

    def join(self) -> None:
        for thread in self._threads:
            thread.join(timeout=10)


@contextmanager
def running_google(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGoogle]:
    """A started FakeGoogle, an in-memory keyring installed, and google-auth's refresh
    endpoint (hard-wired to Google for stored credentials) pointed at the fake."""
    with use_memory_keyring() as memory, FakeGoogle() as google:
        google.keyring = memory
        monkeypatch.setattr(
            oauth2_credentials, "_GOOGLE_OAUTH2_TOKEN_ENDPOINT", f"{google.url}token"
        )
        yield google
