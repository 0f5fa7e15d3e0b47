"""IMAP source: reads new mail from one account's folders, read-only and without marking
anything \\Seen.

Cursor (JSON text)::

    {"v": 1, "folders": {"INBOX": {"uidvalidity": 1796011198, "last_uid": 42}}}

Per folder, every UID up to ``last_uid`` has been read. A folder seen for the first time, or
whose UIDVALIDITY changed (the mailbox was recreated, so old UIDs mean nothing), starts from a
bounded recent window: the newest ``initial_window`` messages that arrived within
``initial_days``. Only UIDs above ``last_uid`` are fetched, ``page_size`` at a time; a page's
cursor covers exactly that page.

Event ids are ``imap:<username>@<host>:<Message-ID>`` (so a resync or the same message in two
watched folders is never a second event), or ``imap:<username>@<host>:<folder>:<uidvalidity>:
<uid>`` for a message without a Message-ID.

The blocking imapclient calls run in a worker thread; one connection is kept only while
pages follow each other (``more=True``) and is closed after the last page."""

from __future__ import annotations

import asyncio
import binascii
import email.utils
import json
import logging
import quopri
import re
import ssl as ssl_lib
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from html import unescape
from html.parser import HTMLParser
from typing import Any, ClassVar

import imapclient
from imapclient.exceptions import IMAPClientAbortError, IMAPClientError, LoginError

import engine.accounts.secrets as secrets
from engine.clock import utcnow
from engine.events import Event
from engine.sources.base import Batch, NeedsSignIn, Source, SourceError, TransientError
from engine.sources.mail.headers import decode_bytes, decode_header_value, parse_sender

log = logging.getLogger(__name__)

SNIPPET_BYTES = 2048
COPIED_HEADERS = ("List-Unsubscribe", "List-Id", "Precedence", "Auto-Submitted")
_READ_HEADERS = ("From", "Subject", "Date", "Message-ID", *COPIED_HEADERS)
HEADER_ITEM = f"BODY.PEEK[HEADER.FIELDS ({' '.join(h.upper() for h in _READ_HEADERS)})]"
_HIDDEN_FLAGS = {"\\seen", "\\recent", "\\deleted", "\\draft", "\\answered"}
_TRANSIENT_CODES = ("[UNAVAILABLE]", "[INUSE]", "[LIMIT]", "[SERVERBUG]")


def secret_name(username: str, host: str) -> str:
    """The engine.secrets name under which an account's password is kept."""
    return f"imap:{username}@{host}"


# --- cursor ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FolderState:
    uidvalidity: int
    last_uid: int


def parse_cursor(text: str | None) -> dict[str, FolderState]:
    """Folder states from a cursor; None or an unreadable cursor means a first sync."""
    if not text:
        return {}
    try:
        folders = json.loads(text)["folders"]
        return {
            str(name): FolderState(int(s["uidvalidity"]), int(s["last_uid"]))
            for name, s in folders.items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        log.info("unreadable IMAP cursor, starting a fresh sync: %.80r", text)
        return {}


def dump_cursor(states: dict[str, FolderState]) -> str:
    folders = {
        name: {"uidvalidity": s.uidvalidity, "last_uid": s.last_uid} for name, s in states.items()
    }
    return json.dumps({"v": 1, "folders": folders}, sort_keys=True)


# --- text decoding -------------------------------------------------------------------------


def parse_headers(raw: bytes) -> dict[str, str]:
    """Header fields (first occurrence, lower-case names) from a raw header block."""
    text = decode_bytes(raw, None)  # UTF-8, else raw 8-bit Latin-1
    text = re.sub(r"\r?\n[ \t]+", " ", text)
    headers: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and name and " " not in name.strip():
            headers.setdefault(name.strip().lower(), value.strip())
    return headers


def parse_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


class _HtmlText(HTMLParser):
    _SKIP: ClassVar[set[str]] = {"script", "style", "head", "title"}
    _BLOCK: ClassVar[set[str]] = {"br", "p", "div", "tr", "li", "h1", "h2", "h3", "table"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    parser = _HtmlText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # HTMLParser is lenient; a cut snippet must never fail a sync
        return unescape(re.sub(r"<[^>]*>", " ", markup))
    return "".join(parser.parts)


def tidy_text(text: str) -> str:
    lines = [re.sub(r"[ \t\xa0]+", " ", line).strip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# --- body structure ----------------------------------------------------------------------


@dataclass(frozen=True)
class TextPart:
    section: str  # IMAP body section: "1", "2.1", ...
    subtype: str  # "plain" or "html"
    charset: str | None
    encoding: str


def _s(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("ascii", "replace")
    return "" if value is None else str(value)


def _params(value: Any) -> dict[str, str]:
    if not isinstance(value, (tuple, list)):
        return {}
    items = [_s(v) for v in value]
    return {items[i].lower(): items[i + 1] for i in range(0, len(items) - 1, 2)}


def _is_attachment(part: Sequence[Any]) -> bool:
    """A text part's disposition (after type, subtype, params, id, description, encoding,
    size, lines and md5) says attachment."""
    disposition = part[9] if len(part) > 9 else None
    if not isinstance(disposition, (tuple, list)) or not disposition:
        return False
    return _s(disposition[0]).lower() == "attachment"


def _walk(node: Any, section: str) -> Iterator[TextPart]:
    if not isinstance(node, (tuple, list)) or not node:
        return
    if isinstance(node[0], (tuple, list)):  # multipart: (children, subtype, ...)
        children = node[0] if isinstance(node[0], list) else [node[0]]
        for index, child in enumerate(children, start=1):
            yield from _walk(child, f"{section}.{index}" if section else str(index))
        return
    if _s(node[0]).lower() != "text" or len(node) < 7:
        return  # attachments, attached messages (message/rfc822): not the body
    if _is_attachment(node):
        return
    yield TextPart(
        section=section or "1",
        subtype=_s(node[1]).lower(),
        charset=_params(node[2]).get("charset"),
        encoding=_s(node[5]).lower() or "7bit",
    )


def find_text_part(structure: Any) -> TextPart | None:
    """The first text/plain part of a BODYSTRUCTURE, else the first text/html one."""
    parts = list(_walk(structure, ""))
    for wanted in ("plain", "html"):
        for part in parts:
            if part.subtype == wanted:
                return part
    return None


def decode_snippet(raw: bytes, part: TextPart) -> str:
    """Plain text from the first bytes of a (transfer-encoded) body part."""
    if part.encoding == "base64":
        clean = re.sub(rb"[^A-Za-z0-9+/=]", b"", raw)
        clean = clean[: len(clean) - len(clean) % 4]
        try:
            data = binascii.a2b_base64(clean)
        except binascii.Error:
            data = b""
    elif part.encoding == "quoted-printable":
        data = quopri.decodestring(re.sub(rb"=[0-9A-Fa-f]?$", b"", raw))
    else:
        data = raw
    text = decode_bytes(data, part.charset, final=False)
    if part.subtype == "html":
        text = html_to_text(text)
    return tidy_text(text)


# --- the source --------------------------------------------------------------------------


def _key(data: dict[bytes, Any], prefix: bytes) -> Any:
    for name, value in data.items():
        if isinstance(name, bytes) and name.upper().startswith(prefix):
            return value
    return None


def _server_text(exc: BaseException) -> str:
    """An exception's message, without the b'...' imaplib wraps server responses in."""
    text = str(exc)
    match = re.fullmatch(r"""b(['"])(.*)\1""", text, flags=re.DOTALL)
    return match.group(2) if match else text


def _shutdown(client: imapclient.IMAPClient) -> None:
    try:
        client.shutdown()
    except OSError:
        pass


class ImapSource(Source):
    kind = "imap"
    poll_seconds = 120.0

    def __init__(
        self,
        host: str,
        port: int | None,
        username: str,
        folders: Sequence[str] = ("INBOX",),
        *,
        ssl: bool = True,
        starttls: bool = False,
        password: str | None = None,
        timeout: float = 30.0,
        page_size: int = 50,
        initial_window: int = 200,
        initial_days: int | None = 7,
        ssl_context: ssl_lib.SSLContext | None = None,
    ):
        """``password=None`` reads it from the keyring (``secret_name(username, host)``).
        ``port=None`` is 993 with ``ssl``, else 143. ``ssl_context`` defaults to a verifying
        one."""
        if ssl and starttls:
            raise ValueError("use either ssl (implicit TLS) or starttls, not both")
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        super().__init__(f"{username}@{host}")
        self.host = host
        self.port = port if port is not None else (993 if ssl else 143)
        self.username = username
        self.folders = tuple(dict.fromkeys(folders))
        self.ssl = ssl
        self.starttls = starttls
        self.timeout = timeout
        self.page_size = page_size
        self.initial_window = initial_window
        self.initial_days = initial_days
        self.ssl_context = ssl_context
        self._password = password
        self._client: imapclient.IMAPClient | None = None
        self._lock = threading.Lock()  # one command sequence on the connection at a time

    @property
    def secret_name(self) -> str:
        return secret_name(self.username, self.host)

    @property
    def _where(self) -> str:
        return f"{self.host}:{self.port}"

    async def fetch(self, cursor: str | None) -> Batch:
        return await asyncio.to_thread(self._fetch_blocking, cursor)

    async def close(self) -> None:
        await asyncio.to_thread(self._close_blocking)

    # -- connection --

    def _get_password(self) -> str:
        if self._password is not None:
            return self._password
        try:
            password = secrets.get_secret(self.secret_name)
        except secrets.SecretStoreUnavailable as exc:
            raise SourceError(str(exc)) from None
        if password is None:
            raise NeedsSignIn(
                f"no password for {self.username} on {self.host} is stored in the keyring: "
                "sign in again"
            )
        return password

    def _connect(self) -> imapclient.IMAPClient:
        password = self._get_password()
        context = None
        if self.ssl or self.starttls:
            context = self.ssl_context or ssl_lib.create_default_context()
        client = imapclient.IMAPClient(
            self.host, port=self.port, ssl=self.ssl, ssl_context=context, timeout=self.timeout
        )
        try:
            if self.starttls:
                client.starttls(context)
            client.login(self.username, password)
        except BaseException:
            _shutdown(client)
            raise
        client.normalise_times = False  # INTERNALDATE with its offset
        return client

    def _close_blocking(self) -> None:
        with self._lock:
            self._drop_connection(logout=True)

    def _drop_connection(self, *, logout: bool = False) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        if logout:
            try:
                client.logout()
                return
            except (IMAPClientError, OSError):
                pass
        _shutdown(client)

    def _translate(self, exc: BaseException) -> BaseException:
        """The source contract's error for a failure of the connection or a command."""
        text = _server_text(exc)
        if isinstance(exc, SourceError):
            return exc
        if isinstance(exc, LoginError):
            if isinstance(exc.__context__, IMAPClientAbortError):
                return TransientError(f"{self._where}: connection lost while signing in")
            if any(code in text for code in _TRANSIENT_CODES):
                return TransientError(f"{self._where} cannot sign in right now: {text}")
            if "[PRIVACYREQUIRED]" in text or "LOGINDISABLED" in text.upper():
                return SourceError(
                    f"{self.host} refuses a password over an unencrypted connection: "
                    "use SSL or STARTTLS"
                )
            return NeedsSignIn(
                f"IMAP sign-in as {self.username} on {self.host} failed ({text}): "
                "check the user name and password"
            )
        if isinstance(exc, IMAPClientAbortError):
            return TransientError(f"{self._where}: connection lost ({text})")
        if isinstance(exc, ssl_lib.SSLCertVerificationError):
            return SourceError(f"the certificate of {self.host} cannot be trusted: {exc}")
        if isinstance(exc, TimeoutError):
            return TransientError(f"{self._where} did not answer in {self.timeout:g} s")
        if isinstance(exc, OSError):
            reason = exc.strerror or text or type(exc).__name__
            return TransientError(f"cannot reach {self._where}: {reason}")
        if isinstance(exc, IMAPClientError):
            if any(code in text for code in _TRANSIENT_CODES):
                return TransientError(f"{self.host} is unavailable: {text}")
            return SourceError(f"{self.host}: {text}")
        return exc

    # -- syncing (worker thread) --

    def _fetch_blocking(self, cursor: str | None) -> Batch:
        with self._lock:
            try:
                if self._client is None:
                    self._client = self._connect()
                batch = self._read_page(self._client, parse_cursor(cursor))
            except Exception as exc:
                self._drop_connection()
                translated = self._translate(exc)
                if translated is exc:
                    raise
                raise translated from exc
            if not batch.more:
                self._drop_connection(logout=True)
            return batch

    def _read_page(self, client: imapclient.IMAPClient, old: dict[str, FolderState]) -> Batch:
        states = {name: old[name] for name in self.folders if name in old}
        events: list[Event] = []
        more = False
        for folder in self.folders:
            room = self.page_size - len(events)
            if room <= 0:
                more = True
                break
            state, found, left = self._read_folder(client, folder, states.get(folder), room)
            states[folder] = state
            events.extend(found)
            if left:
                more = True
                break
        return Batch(events=events, cursor=dump_cursor(states), more=more)

    def _read_folder(
        self,
        client: imapclient.IMAPClient,
        folder: str,
        state: FolderState | None,
        limit: int,
    ) -> tuple[FolderState, list[Event], bool]:
        info = self._select(client, folder)
        uidvalidity = int(info.get(b"UIDVALIDITY") or 0)
        if state is None or state.uidvalidity != uidvalidity:
            if state is not None:
                log.info(
                    "%s %s: UIDVALIDITY changed (%s -> %s), resyncing recent mail",
                    self.key,
                    folder,
                    state.uidvalidity,
                    uidvalidity,
                )
            state = FolderState(uidvalidity, self._baseline(client, info))
        found = client.search(["UID", f"{state.last_uid + 1}:*"])
        uids = sorted(uid for uid in found if uid > state.last_uid)
        page = uids[:limit]
        events = self._read_messages(client, folder, uidvalidity, page)
        last_uid = page[-1] if page else state.last_uid
        return FolderState(uidvalidity, last_uid), events, len(uids) > limit

    def _select(self, client: imapclient.IMAPClient, folder: str) -> dict[bytes, Any]:
        """EXAMINE the folder: read-only, so no flag (not even \\Recent) changes."""
        try:
            return client.select_folder(folder, readonly=True)
        except IMAPClientAbortError:
            raise
        except IMAPClientError as exc:
            text = _server_text(exc)
            if any(code in text for code in _TRANSIENT_CODES):
                raise
            raise SourceError(f"cannot open folder {folder!r} on {self.host}: {text}") from exc

    def _baseline(self, client: imapclient.IMAPClient, info: dict[bytes, Any]) -> int:
        """The UID after which a first sync starts: just before the recent window."""
        exists = int(info.get(b"EXISTS") or 0)
        if exists == 0:
            return max(int(info.get(b"UIDNEXT") or 1) - 1, 0)
        if self.initial_window > 0:
            criteria: list[Any] = [f"{max(1, exists - self.initial_window + 1)}:*"]
            if self.initial_days is not None:
                since = (utcnow() - timedelta(days=self.initial_days)).date()
                criteria += ["SINCE", since]
            window = client.search(criteria)
            if window:
                return min(window) - 1
        return max(client.search([f"{exists}:*"]), default=0)

    def _read_messages(
        self, client: imapclient.IMAPClient, folder: str, uidvalidity: int, uids: list[int]
    ) -> list[Event]:
        if not uids:
            return []
        items = ["INTERNALDATE", "FLAGS", "BODYSTRUCTURE", HEADER_ITEM]
        try:
            data = client.fetch(uids, items)
        except IMAPClientAbortError:
            raise
        except IMAPClientError:  # a structure the server cannot describe: headers only
            log.info("%s %s: BODYSTRUCTURE refused, reading headers only", self.key, folder)
            data = client.fetch(uids, [i for i in items if i != "BODYSTRUCTURE"])
        parts = {
            uid: find_text_part(data[uid].get(b"BODYSTRUCTURE")) for uid in uids if uid in data
        }
        snippets = self._read_snippets(client, parts)
        return [
            self._event(folder, uidvalidity, uid, data[uid], snippets.get(uid, ""))
            for uid in uids
            if uid in data
        ]

    def _read_snippets(
        self, client: imapclient.IMAPClient, parts: dict[int, TextPart | None]
    ) -> dict[int, str]:
        by_section: dict[str, list[int]] = {}
        for uid, part in parts.items():
            if part is not None:
                by_section.setdefault(part.section, []).append(uid)
        snippets: dict[int, str] = {}
        for section, uids in by_section.items():
            data = client.fetch(uids, [f"BODY.PEEK[{section}]<0.{SNIPPET_BYTES}>"])
            for uid in uids:
                raw = _key(data.get(uid, {}), f"BODY[{section}]".encode())
                part = parts[uid]
                if isinstance(raw, bytes) and part is not None:
                    snippets[uid] = decode_snippet(raw, part)
        return snippets

    def _event(
        self, folder: str, uidvalidity: int, uid: int, data: dict[bytes, Any], text: str
    ) -> Event:
        raw = _key(data, b"BODY[HEADER")
        headers = parse_headers(raw if isinstance(raw, bytes) else b"")
        message_id = headers.get("message-id", "").strip().strip("<>").strip() or None
        account = f"{self.username}@{self.host}"
        if message_id:
            event_id = f"imap:{account}:<{message_id}>"
        else:
            event_id = f"imap:{account}:{folder}:{uidvalidity}:{uid}"
        flags = [_s(f) for f in data.get(b"FLAGS") or ()]
        subject = headers.get("subject")
        return Event(
            id=event_id,
            source="email",
            event_type="email.received",
            time=self._time(headers.get("date"), data.get(b"INTERNALDATE")),
            sender=parse_sender(headers.get("from")),
            subject=decode_header_value(subject) if subject is not None else None,
            text=text,
            labels=[folder, *(f for f in flags if f.lower() not in _HIDDEN_FLAGS)],
            headers={
                name: decode_header_value(headers[name.lower()])
                for name in COPIED_HEADERS
                if name.lower() in headers
            },
            refs={
                "folder": folder,
                "uid": uid,
                "uidvalidity": uidvalidity,
                "message_id": message_id,
            },
        )

    @staticmethod
    def _time(date_header: str | None, internal: Any) -> datetime:
        """The Date header, unless missing or implausible; else when the server received it."""
        received = None
        if isinstance(internal, datetime):
            received = internal if internal.tzinfo else internal.replace(tzinfo=UTC)
            received = received.astimezone(UTC)
        sent = parse_date(date_header)
        implausible = sent is not None and (
            sent.year < 1990 or (received is not None and sent > received + timedelta(days=1))
        )
        if implausible and received is not None:
            return received
        return sent or received or utcnow()
