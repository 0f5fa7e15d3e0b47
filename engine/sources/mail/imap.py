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

Each message's text is read as :mod:`engine.sources.mail.text` chooses (a non-empty plain
part, else the HTML part as text), only its first bytes, and cut as text; attachment names
go to ``refs["attachments"]``. A message fails alone: when the server cannot describe or
send it, or a part of it cannot be decoded or mapped, it is stored with what could be read
and a note in ``Event.notes``, or, when nothing can be read, skipped with a warning; either
way the cursor moves past it and the rest of the page is stored.

The blocking imapclient calls run in a worker thread; one connection is kept only while
pages follow each other (``more=True``) and is closed after the last page. Where the server
offers IDLE, one more connection waits on the first folder (``watch``,
:mod:`engine.sources.mail.idle`) and has the account fetched as soon as mail arrives; the
poll interval stays the fallback, and the other folders are read at each fetch."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import ssl as ssl_lib
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import imapclient
from imapclient.exceptions import IMAPClientAbortError, IMAPClientError, LoginError

import engine.accounts.secrets as secrets
from engine.clock import utcnow
from engine.events import Event
from engine.sources.base import Batch, NeedsSignIn, Source, SourceError, TransientError
from engine.sources.mail.headers import (
    KEPT_HEADERS,
    decode_header_bytes,
    decode_header_value,
    parse_date,
    parse_header_block,
    parse_sender,
)
from engine.sources.mail.idle import IdleWatcher
from engine.sources.mail.text import (
    MimePart,
    attachment_names,
    attachment_summary,
    first_reads,
    loose_text,
    param_value,
    part_links,
    part_text,
    text_parts,
)
from engine.tasks import one_line, report

log = logging.getLogger(__name__)

PLAIN_BYTES = 16_384
HTML_BYTES = 65_536
"""How much of a text part is read: enough for the text an event keeps
(:data:`~engine.sources.mail.text.TEXT_LIMIT` characters) from nearly any plain part
(quoted-printable CJK included) and HTML part (newsletters put tens of KB of CSS first)."""
MAX_MIME_DEPTH = 50
_READ_HEADERS = ("From", "Subject", "Date", "Message-ID", "Content-Type", *KEPT_HEADERS)
LOOSE_ITEM = f"BODY.PEEK[TEXT]<0.{HTML_BYTES}>"
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


# --- body structure ----------------------------------------------------------------------


def _s(value: Any) -> str:
    if isinstance(value, bytes):
        return decode_header_bytes(value)  # Dovecot passes 8-bit names on as they were sent
    return "" if value is None else str(value)


def _at(node: Sequence[Any], index: int) -> Any:
    return node[index] if len(node) > index else None


def _params(value: Any) -> dict[str, str]:
    if not isinstance(value, (tuple, list)):
        return {}
    items = [_s(v) for v in value]
    return {items[i].lower(): items[i + 1] for i in range(0, len(items) - 1, 2)}


def _disposition(value: Any) -> tuple[str | None, dict[str, str]]:
    """A body extension's disposition: ("attachment", {"filename": ...}) or (None, {})."""
    if not isinstance(value, (tuple, list)) or not value:
        return None, {}
    return _s(value[0]).lower() or None, _params(_at(value, 1))


def _envelope_subject(envelope: Any) -> str | None:
    """The subject in an attached message's ENVELOPE (date, subject, from, ...)."""
    if isinstance(envelope, (tuple, list)) and len(envelope) > 1 and envelope[1]:
        return decode_header_value(_s(envelope[1])) or None
    return None


def _leaf(node: Sequence[Any], section: str, embedded: bool) -> MimePart:
    """One non-multipart body: type, subtype, params, id, description, encoding, size, then
    per type (text: lines; message/rfc822: envelope, body, lines) and the extension data
    (md5, disposition, language, location)."""
    maintype, subtype = _s(node[0]).lower(), _s(_at(node, 1)).lower()
    params = _params(_at(node, 2))
    rfc822 = (maintype, subtype) == ("message", "rfc822")
    disposition, where = _disposition(_at(node, 9 if maintype == "text" else 11 if rfc822 else 8))
    description = decode_header_value(_s(_at(node, 4))) or None
    if rfc822 and description is None:
        description = _envelope_subject(_at(node, 7))
    size = _at(node, 6)
    return MimePart(
        ref=section,
        maintype=maintype,
        subtype=subtype,
        charset=params.get("charset"),
        encoding=_s(_at(node, 5)).lower() or "7bit",
        size=size if isinstance(size, int) else 0,
        filename=param_value(where, "filename") or param_value(params, "name"),
        disposition=disposition,
        description=description,
        embedded=embedded,
    )


def _multipart(node: Sequence[Any]) -> tuple[list[Any], str] | None:
    """(children, subtype) of a multipart body, else None. imapclient nests the children of
    the structures it builds in a list; a raw nested one has them first, then the subtype."""
    if isinstance(node[0], list):
        return node[0], _s(_at(node, 1)).lower()
    if isinstance(node[0], tuple):
        count = next((i for i, v in enumerate(node) if not isinstance(v, tuple)), len(node))
        return list(node[:count]), _s(_at(node, count)).lower()
    return None


def _walk(node: Any, section: str, embedded: bool, depth: int = 0) -> Iterator[MimePart]:
    if not isinstance(node, (tuple, list)) or not node or depth > MAX_MIME_DEPTH:
        return
    multipart = _multipart(node)
    if multipart is None:
        yield _leaf(node, section or "1", embedded)
        return
    children, subtype = multipart
    for index, child in enumerate(children, start=1):
        child_section = f"{section}.{index}" if section else str(index)
        yield from _walk(child, child_section, embedded or subtype == "related", depth + 1)


def message_parts(structure: Any) -> list[MimePart]:
    """The leaves of a BODYSTRUCTURE, with their IMAP section numbers. Attached messages
    (message/rfc822) are one leaf: their insides are not this message's text."""
    return list(_walk(structure, "", False))


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


def _is_transient(exc: BaseException) -> bool:
    """A server answer that means "try again later", not "this message is broken"."""
    text = _server_text(exc)
    return any(code in text for code in _TRANSIENT_CODES)


def _read_limit(part: MimePart) -> int:
    return PLAIN_BYTES if part.subtype == "plain" else HTML_BYTES


def _part_item(part: MimePart) -> str:
    return f"BODY.PEEK[{part.ref}]<0.{_read_limit(part)}>"


def _broken_multipart(mail: FetchedMessage) -> bool:
    """A multipart message in which the server found nothing: no text, no attachment, every
    part empty. That is what a server makes of boundaries that do not match the declared
    one; a reader sees the raw body."""
    structure = mail.data.get(b"BODYSTRUCTURE")
    return (
        isinstance(structure, (tuple, list))
        and bool(structure)
        and isinstance(structure[0], list)
        and not mail.text
        and bool(mail.parts)
        and all(p.size == 0 for p in mail.parts)
        and not attachment_names(mail.parts)
    )


@dataclass
class FetchedMessage:
    """One message while a page is read: what the server said (``data``: FETCH items by
    name), then what was made of it."""

    uid: int
    data: dict[bytes, Any]
    parts: list[MimePart] = field(default_factory=list)
    unread: list[MimePart] = field(default_factory=list)  # text parts not read yet
    text: str = ""
    notes: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # hosts the HTML part's links lead to


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
        self.idle: IdleWatcher | None = None

    @property
    def secret_name(self) -> str:
        return secret_name(self.username, self.host)

    @property
    def _where(self) -> str:
        return f"{self.host}:{self.port}"

    async def fetch(self, cursor: str | None) -> Batch:
        return await asyncio.to_thread(self._fetch_blocking, cursor)

    def watch(self, on_new: Callable[[], None]) -> None:
        """IDLE on the first folder: ``on_new`` as soon as the server reports new mail."""
        if self.idle is None and self.folders:
            self.idle = IdleWatcher(
                self._connect,
                self.folders[0],
                on_new,
                name=f"imap-idle:{self.key}",
                translate=self._translate,
            )
            self.idle.start()

    async def close(self) -> None:
        idle, self.idle = self.idle, None
        if idle is not None:
            await asyncio.to_thread(idle.stop)
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
        """The events of ``uids``. A message that cannot be read or mapped fails alone: it
        is stored with what could be read and a note, or skipped with a warning; either way
        the cursor moves past it."""
        if not uids:
            return []
        mails = self._read_heads(client, folder, uids)
        self._read_texts(client, folder, mails)
        events = (self.message_event(folder, uidvalidity, mail) for mail in mails)
        return [event for event in events if event is not None]

    def _read_heads(
        self, client: imapclient.IMAPClient, folder: str, uids: list[int]
    ) -> list[FetchedMessage]:
        items = ["INTERNALDATE", "FLAGS", "BODYSTRUCTURE", HEADER_ITEM]
        data, failed = self._fetch(client, uids, items)
        notes: dict[int, str] = {}
        if failed:  # a structure the server cannot describe (or imapclient cannot parse)
            log.info("%s %s: BODYSTRUCTURE refused for %d messages", self.key, folder, len(failed))
            headers_only, unreadable = self._fetch(
                client, sorted(failed), [i for i in items if i != "BODYSTRUCTURE"], strict=True
            )
            data.update(headers_only)
            for uid in headers_only:
                notes[uid] = f"its structure could not be read ({_server_text(failed[uid])})"
            for uid, exc in unreadable.items():
                log.warning(
                    "%s %s: message UID %d skipped, the server cannot read it: %s",
                    *(self.key, folder, uid, _server_text(exc)),
                )
        mails = [FetchedMessage(uid, data[uid]) for uid in uids if uid in data]
        for mail in mails:
            if mail.uid in notes:
                mail.notes.append(notes[mail.uid])
        return mails

    def _fetch(
        self,
        client: imapclient.IMAPClient,
        uids: list[int],
        items: list[str],
        *,
        strict: bool = False,
    ) -> tuple[dict[int, dict[bytes, Any]], dict[int, Exception]]:
        """FETCH ``items`` of ``uids``: (answers, failures by UID). When the command fails it
        is repeated message by message, so one message the server (or imapclient) cannot
        handle fails alone. A lost connection or a "try again later" answer is raised, and,
        when ``strict``, every message of several failing (the command, not a message)."""
        try:
            answers = client.fetch(uids, items)
            return {uid: answers[uid] for uid in uids if uid in answers}, {}
        except IMAPClientAbortError:
            raise
        except (IMAPClientError, ValueError) as exc:
            if _is_transient(exc):
                raise
            if len(uids) == 1:
                return {}, {uids[0]: exc}
            first = exc
        data: dict[int, dict[bytes, Any]] = {}
        failed: dict[int, Exception] = {}
        for uid in uids:
            try:
                answer = client.fetch([uid], items)
            except IMAPClientAbortError:
                raise
            except (IMAPClientError, ValueError) as exc:
                if _is_transient(exc):
                    raise
                failed[uid] = exc
                continue
            if uid in answer:
                data[uid] = answer[uid]
        if strict and not data:
            raise first
        return data, failed

    def _read_texts(
        self, client: imapclient.IMAPClient, folder: str, mails: list[FetchedMessage]
    ) -> None:
        """Each message's text: its preferred text parts first (plain, and HTML beside a
        tiny plain part), then the next ones for the messages whose text was blank."""
        for mail in mails:
            try:
                mail.parts = message_parts(mail.data.get(b"BODYSTRUCTURE"))
            except Exception as exc:
                self._note(mail, folder, "its structure could not be read", exc)
            mail.unread = text_parts(mail.parts)
        pending = [mail for mail in mails if mail.unread]
        first = True
        while pending:
            reads = {m.uid: first_reads(m.unread) if first else m.unread[:1] for m in pending}
            got = self._read_parts(client, folder, pending, reads)
            for mail in pending:
                for part in reads[mail.uid]:
                    mail.unread.remove(part)
                    raw = got.get((mail.uid, part.ref))
                    if raw is not None and not mail.text:
                        mail.text = self._decode(mail, folder, part, raw)
            pending = [mail for mail in pending if not mail.text and mail.unread]
            first = False
        self._read_loose_texts(client, folder, [m for m in mails if _broken_multipart(m)])

    def _read_loose_texts(
        self, client: imapclient.IMAPClient, folder: str, mails: list[FetchedMessage]
    ) -> None:
        """The text of messages whose multipart boundaries are broken, from their raw body."""
        if not mails:
            return
        data, failed = self._fetch(client, [m.uid for m in mails], [LOOSE_ITEM])
        for mail in mails:
            raw = _key(data.get(mail.uid, {}), b"BODY[TEXT]")
            if mail.uid in failed or not isinstance(raw, bytes):
                continue
            try:
                mail.text = loose_text(raw, partial=len(raw) >= HTML_BYTES)
            except Exception as exc:
                self._note(mail, folder, "its text could not be decoded", exc)

    def _read_parts(
        self,
        client: imapclient.IMAPClient,
        folder: str,
        mails: list[FetchedMessage],
        reads: dict[int, list[MimePart]],
    ) -> dict[tuple[int, str], bytes]:
        """The first bytes of each wanted part, one FETCH per section and length."""
        by_item: dict[str, list[int]] = {}
        for mail in mails:
            for part in reads[mail.uid]:
                by_item.setdefault(_part_item(part), []).append(mail.uid)
        by_uid = {mail.uid: mail for mail in mails}
        got: dict[tuple[int, str], bytes] = {}
        for item, uids in by_item.items():
            section = item[len("BODY.PEEK[") : item.index("]")]
            data, failed = self._fetch(client, uids, [item])
            for uid, exc in failed.items():
                by_uid[uid].notes.append(f"its text could not be read ({_server_text(exc)})")
            for uid, answer in data.items():
                raw = _key(answer, f"BODY[{section}]".encode())
                if isinstance(raw, bytes):
                    got[(uid, section)] = raw
        return got

    def _decode(self, mail: FetchedMessage, folder: str, part: MimePart, raw: bytes) -> str:
        partial = len(raw) >= _read_limit(part) and part.size != len(raw)
        try:
            mail.links = mail.links or part_links(raw, part, partial=partial)
            return part_text(raw, part, partial=partial)
        except Exception as exc:
            self._note(mail, folder, "its text could not be decoded", exc)
            return ""

    def _note(self, mail: FetchedMessage, folder: str, what: str, exc: Exception) -> None:
        """Record that part of a message could not be read: reported (a bug, if it is one)
        and noted in the event, which is stored with the rest."""
        report(exc, f"{self.key} {folder}: message UID {mail.uid}: {what}", logger=log)
        mail.notes.append(f"{what}: {one_line(exc)}")

    def message_event(self, folder: str, uidvalidity: int, mail: FetchedMessage) -> Event | None:
        """The event of a fetched message; what cannot be mapped is noted and reported,
        and a message of which nothing can be made is skipped (None). Never raises."""
        try:
            return self._event(folder, uidvalidity, mail)
        except Exception as exc:
            self._note(mail, folder, "its headers could not be mapped", exc)
        try:
            return self._bare_event(folder, uidvalidity, mail)
        except Exception as exc:
            report(exc, f"{self.key} {folder}: message UID {mail.uid} skipped", logger=log)
            return None

    def _event_id(self, folder: str, uidvalidity: int, uid: int, message_id: str | None) -> str:
        account = f"{self.username}@{self.host}"
        if message_id:
            return f"imap:{account}:<{message_id}>"
        return f"imap:{account}:{folder}:{uidvalidity}:{uid}"

    def _event(self, folder: str, uidvalidity: int, mail: FetchedMessage) -> Event:
        raw = _key(mail.data, b"BODY[HEADER")
        headers = parse_header_block(raw if isinstance(raw, bytes) else b"")
        message_id = headers.get("message-id", "").strip().strip("<>").strip() or None
        flags = [_s(f) for f in mail.data.get(b"FLAGS") or ()]
        subject = headers.get("subject")
        attachments = attachment_names(mail.parts)
        refs: dict[str, Any] = {
            "folder": folder,
            "uid": mail.uid,
            "uidvalidity": uidvalidity,
            "message_id": message_id,
        }
        if attachments:
            refs["attachments"] = attachments
        if mail.links:
            refs["links"] = mail.links
        return Event(
            id=self._event_id(folder, uidvalidity, mail.uid, message_id),
            source="email",
            event_type="email.received",
            time=self._time(headers.get("date"), mail.data.get(b"INTERNALDATE")),
            sender=parse_sender(headers.get("from")),
            subject=decode_header_value(subject) if subject is not None else None,
            text=mail.text or attachment_summary(attachments),
            labels=[folder, *(f for f in flags if f.lower() not in _HIDDEN_FLAGS)],
            headers={
                name: decode_header_value(headers[name.lower()])
                for name in KEPT_HEADERS
                if name.lower() in headers
            },
            refs=refs,
            notes=mail.notes,
        )

    def _bare_event(self, folder: str, uidvalidity: int, mail: FetchedMessage) -> Event:
        """What is left of a message whose headers could not be mapped: when it arrived."""
        return Event(
            id=self._event_id(folder, uidvalidity, mail.uid, None),
            source="email",
            event_type="email.received",
            time=self._time(None, mail.data.get(b"INTERNALDATE")),
            text=mail.text,
            labels=[folder],
            refs={"folder": folder, "uid": mail.uid, "uidvalidity": uidvalidity},
            notes=mail.notes,
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
