"""Email fixtures through the sources a user's account uses: every ``.eml`` APPENDed to a real
Dovecot and read by ``ImapSource``; every Gmail capture delivered to the fake Gmail and read by
``GmailSource``, both through ``sync_once`` into a store. Each file comes back as a
:class:`MailItem`: what the file holds and the event the source made of it (for the checks in
``mailtext`` and the triage in ``spam``)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.clock import utcnow
from engine.events import Event
from engine.sources.base import Batch, Source, SourceError
from engine.sources.google.gmail import GmailSource
from engine.sources.mail.imap import FolderState, ImapSource, dump_cursor, parse_cursor
from engine.sources.sync import load_cursor, sync_once
from engine.store.models import SourceCursor
from engine.tasks import one_line
from tests.sources.dovecot import Dovecot, dovecot_binary
from tests.sources.fake_google import ACCOUNT, FakeGoogle, running_google
from tests.sources.real_fixtures.mailtext import Body, MailItem, eml_body, gmail_body
from tests.sources.real_fixtures.report import (
    Section,
    stored_events,
    temp_store,
)

USER, PASSWORD = "reader", "fixtures"
RETRIES = 3  # polls failing at the same cursor before the mailbox counts as blocked
MAX_POLLS = 40


# --- IMAP --------------------------------------------------------------------------------


class RecordingImap(ImapSource):
    """ImapSource keeping every event its pages returned, also those the store then ignores
    as a second copy of a Message-ID: each file's own event is checked."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.produced: list[Event] = []

    async def fetch(self, cursor: str | None) -> Batch:
        batch = await super().fetch(cursor)
        self.produced.extend(batch.events)
        return batch


class RecordingGmail(GmailSource):
    """GmailSource keeping every event its pages returned."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.produced: list[Event] = []

    async def fetch(self, cursor: str | None) -> Batch:
        batch = await super().fetch(cursor)
        self.produced.extend(batch.events)
        return batch


@dataclass
class Poll:
    added: int
    error: str | None = None
    bug: bool = False  # not a SourceError (or kin): a traceback, not an answer of the server


async def run_imap(root: Path, files: list[Path], work: Path, section: Section) -> list[MailItem]:
    section.add("files", ".eml files", len(files))
    if dovecot_binary() is None:
        section.notes.append("dovecot is not installed (apt-get install dovecot-imapd): skipped")
        return []
    rels = {p: p.relative_to(root).as_posix() for p in files}
    with Dovecot() as server:
        server.add_user(USER, PASSWORD)
        server.start()
        source = _imap(server)
        try:
            with temp_store(work / "imap.db"):
                await sync_once(source)  # the account is added while its mailbox is empty
                uids: dict[int, Path] = {}
                for path in files:  # sorted: a fixed order
                    try:
                        uids[server.append(USER, path.read_bytes())] = path
                    except Exception as exc:
                        section.problem(rels[path], "APPEND refused by Dovecot", one_line(exc))
                polls, blockers = await _poll(source, server, uids, rels, section)
                state = parse_cursor(load_cursor(source.key)).get("INBOX")
                stored = len(stored_events())
        finally:
            await source.close()
    section.add("appended", "messages APPENDed to INBOX", len(uids))
    section.add("polls", "polls (sync_once) until nothing new", len(polls))
    section.add("polls_failed", "polls that raised", sum(1 for p in polls if p.error))
    section.add("tracebacks", "  of them tracebacks (not a SourceError)", sum(p.bug for p in polls))
    section.add("blocked", "messages that blocked the mailbox", len(blockers))
    last = state.last_uid if state else 0
    past = last >= max(uids or [0]) and not blockers  # stepping over is the harness's doing
    section.add("cursor_past_last", "cursor ends past the last message (by itself)", past)
    section.add("events", "events stored", stored)
    made = {e.refs.get("uid"): e.id for e in source.produced}
    section.add(
        "same_message_id",
        "  second copies of a Message-ID, not stored again (by design)",
        len(made) - len(set(made.values())),
    )
    for number, poll in enumerate(polls, start=1):
        if poll.error:
            kind = "traceback" if poll.bug else "source error"
            section.problem("(mailbox)", f"poll {number} failed ({kind})", poll.error)
    return _match_imap(uids, rels, source.produced, blockers, section)


def _imap(server: Dovecot, page_size: int = 50) -> RecordingImap:
    return RecordingImap(
        server.host,
        server.port,
        USER,
        ssl=False,
        password=PASSWORD,
        timeout=30.0,
        page_size=page_size,
    )


async def _poll(
    source: RecordingImap,
    server: Dovecot,
    uids: dict[int, Path],
    rels: dict[Path, str],
    section: Section,
) -> tuple[list[Poll], list[int]]:
    """Poll like the runner does until a poll stores nothing new. A mailbox whose polls fail
    ``RETRIES`` times at the same cursor is blocked: the message it stops at is found with
    one-message pages, reported, and stepped over (so the rest is still measured)."""
    polls: list[Poll] = []
    blockers: list[int] = []
    failures, where = 0, load_cursor(source.key)
    while len(polls) < MAX_POLLS:
        try:
            added = await sync_once(source)
        except Exception as exc:
            text = f"{type(exc).__name__}: {one_line(exc)}"
            polls.append(Poll(0, text, not isinstance(exc, SourceError)))
            now = load_cursor(source.key)
            failures, where = (failures + 1, now) if now == where else (1, now)
            if failures < RETRIES:
                continue
            blocker = await _blocker(source, server, sorted(uids))
            if blocker is None:
                break
            blockers.append(blocker)
            section.problem(rels[uids[blocker]], "blocks the mailbox (every poll fails)", text)
            _skip(source.key, blocker)
            failures, where = 0, load_cursor(source.key)
            continue
        polls.append(Poll(added))
        if added == 0:
            break
    return polls, blockers


async def _blocker(source: RecordingImap, server: Dovecot, uids: list[int]) -> int | None:
    """The first message one-message pages cannot get past: synced from the stored cursor a
    message at a time (what comes before it is stored), the page that fails is that message."""
    probe = _imap(server, page_size=1)
    try:
        await sync_once(probe)
    except Exception:
        state = parse_cursor(load_cursor(source.key)).get("INBOX")
        after = state.last_uid if state else 0
        return next((u for u in uids if u > after), None)
    else:
        return None
    finally:
        source.produced += probe.produced
        await probe.close()


def _skip(key: str, uid: int) -> None:
    state = parse_cursor(load_cursor(key))["INBOX"]
    value = dump_cursor({"INBOX": FolderState(state.uidvalidity, uid)})
    SourceCursor.insert(source=key, value=value, updated_at=utcnow()).on_conflict(
        conflict_target=[SourceCursor.source],
        update={SourceCursor.value: value, SourceCursor.updated_at: utcnow()},
    ).execute()


def _match_imap(
    uids: dict[int, Path],
    rels: dict[Path, str],
    events: list[Event],
    blockers: list[int],
    section: Section,
) -> list[MailItem]:
    """Each appended file with the event the source made of it (found by UID)."""
    by_uid = {e.refs.get("uid"): e for e in events}
    items: list[MailItem] = []
    for uid, path in sorted(uids.items()):
        event = by_uid.get(uid)
        note = "" if event else "blocked the mailbox" if uid in blockers else "no event"
        if note == "no event":
            section.problem(rels[path], "appended but the source made no event of it")
        items.append(MailItem(rels[path], "IMAP", eml_body(path.read_bytes()), event, note))
    section.add("no_event", "messages the source made no event of", sum(not i.event for i in items))
    return items


# --- Gmail -------------------------------------------------------------------------------


def gmail_captures(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The ``users.messages.get`` resources of one capture file: the object itself, a list of
    them, or an object of named ones."""
    data = json.loads(path.read_text(encoding="utf-8"))

    def is_message(value: Any) -> bool:
        return isinstance(value, dict) and "id" in value and "payload" in value

    if is_message(data):
        return [("", data)]
    if isinstance(data, list):
        return [(str(i), m) for i, m in enumerate(data) if is_message(m)]
    if isinstance(data, dict):
        return [(str(k), m) for k, m in data.items() if is_message(m)]
    return []


def _deliver(google: FakeGoogle, message: dict[str, Any]) -> bool:
    """Put a captured message in the fake mailbox with a messageAdded history record, as
    ``FakeGoogle.add_message`` does; returns whether it had to be labelled INBOX."""
    with google.lock:
        google.history_id += 7
        stored = copy.deepcopy(message)
        labels = [str(label) for label in stored.get("labelIds") or []]
        relabelled = "INBOX" not in labels
        if relabelled:
            labels.append("INBOX")
        stored["labelIds"] = labels
        stored["historyId"] = str(google.history_id)
        stored.setdefault("payload", {}).setdefault("headers", [])
        google.messages[str(stored["id"])] = stored
        brief = {"id": stored["id"], "threadId": stored.get("threadId", stored["id"])}
        google.history.append(
            {
                "id": str(google.history_id),
                "messages": [brief],
                "messagesAdded": [{"message": {**brief, "labelIds": labels}}],
            }
        )
    return relabelled


async def run_gmail(root: Path, files: list[Path], work: Path, section: Section) -> list[MailItem]:
    section.add("files", "capture files", len(files))
    captures: list[tuple[str, dict[str, Any]]] = []
    owners: dict[str, str] = {}
    for path in files:
        rel = path.relative_to(root).as_posix()
        try:
            found = gmail_captures(path)
        except Exception as exc:
            section.failed(rel, exc)
            continue
        if not found:
            section.problem(rel, "no users.messages.get resource in the file")
        for name, message in found:
            where = f"{rel}#{name}" if name else rel
            gid = str(message["id"])
            if gid in owners:  # one mailbox holds one message per id: this copy gets its own
                section.problem(where, "same Gmail id as another capture", owners[gid])
                message = {**message, "id": f"{gid}-{len(captures)}"}
            owners.setdefault(gid, where)
            captures.append((where, message))
    with pytest.MonkeyPatch.context() as patch, running_google(patch) as google:
        google.sign_in()
        source = RecordingGmail(ACCOUNT, api_endpoint=google.url, timeout=30.0)
        try:
            with temp_store(work / "gmail.db"):
                await sync_once(source)  # the account is added: the history is anchored
                relabelled = sum(_deliver(google, message) for _, message in captures)
                polls = await _poll_simple(source)
                stored = len(stored_events())
        finally:
            await source.close()
    section.add("messages", "messages delivered (history messageAdded)", len(captures))
    section.add(
        "renamed",
        "  of them a repeated Gmail id (renamed by the harness)",
        len(captures) - len(owners),
    )
    section.add("relabelled", "  of them without INBOX label (labelled by the harness)", relabelled)
    section.add("polls", "polls (sync_once) until nothing new", len(polls))
    section.add("polls_failed", "polls that raised", sum(1 for p in polls if p.error))
    section.add("tracebacks", "  of them tracebacks (not a SourceError)", sum(p.bug for p in polls))
    section.add("events", "events stored", stored)
    for number, poll in enumerate(polls, start=1):
        if poll.error:
            section.problem("(mailbox)", f"poll {number} failed", poll.error)
    events = {e.id: e for e in source.produced}
    items: list[MailItem] = []
    for name, message in captures:
        event = events.get(f"gmail:{message['id']}")
        if event is None:
            section.problem(name, "delivered but the source made no event of it")
        try:
            body = gmail_body(message.get("payload") or {})
        except Exception as exc:
            section.failed(name, exc)
            body = Body()
        items.append(MailItem(name, "Gmail", body, event, "" if event else "no event"))
    return items


async def _poll_simple(source: Source) -> list[Poll]:
    polls: list[Poll] = []
    while len(polls) < MAX_POLLS:
        try:
            added = await sync_once(source)
        except Exception as exc:
            text = f"{type(exc).__name__}: {one_line(exc)}"
            polls.append(Poll(0, text, not isinstance(exc, SourceError)))
            if sum(1 for p in polls if p.error) >= RETRIES:
                break
            continue
        polls.append(Poll(added))
        if added == 0:
            break
    return polls


def email_files(root: Path) -> Iterator[Path]:
    folder = root / "email"
    if folder.is_dir():
        yield from sorted(p for p in folder.rglob("*") if p.is_file())
