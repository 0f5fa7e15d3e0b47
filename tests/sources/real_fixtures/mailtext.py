"""What an email file holds, read with the standard library (its text and HTML parts, its
attachments, a broken MIME structure), and the checks of TIC's email events against it: HTML
tags in the text, empty text and why, mojibake, attachment-only mails without their names."""

from __future__ import annotations

import base64
import binascii
import email
import email.policy
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from html import unescape
from typing import Any

from engine.events import Event
from tests.sources.real_fixtures.report import HTML_ELEMENT, HTML_TAG, MOJIBAKE, Section, short

# --- what a file holds -------------------------------------------------------------------


@dataclass
class Body:
    plain: list[str] = field(default_factory=list)  # inline text/plain parts
    html: list[str] = field(default_factory=list)  # inline text/html parts
    attachments: list[str] = field(default_factory=list)  # names (or types) of the rest
    broken: bool = False  # a multipart part whose parts cannot be found (no boundary line)
    raw_text: bool = False  # the raw body (after the header block) has text lines

    @property
    def has_text(self) -> bool:
        return any(p.strip() for p in self.plain) or any(html_text(h) for h in self.html)

    @property
    def plain_empty_html_full(self) -> bool:
        """The first plain part is blank while an HTML part has text: reading plain first
        finds nothing."""
        return bool(self.plain) and not self.plain[0].strip() and any(map(html_text, self.html))


def html_text(markup: str) -> str:
    markup = re.sub(r"(?is)<(style|script|head)\b.*?</\1\s*>", " ", markup)
    return " ".join(unescape(re.sub(r"<[^>]*>", " ", markup)).split())


def _content(part: Message) -> str:
    try:
        value = part.get_content() if isinstance(part, EmailMessage) else None
        if isinstance(value, str):
            return value
    except Exception:  # unknown charset, broken encoding: fall back to the raw bytes
        pass
    payload = part.get_payload(decode=True)
    return payload.decode("latin-1") if isinstance(payload, bytes) else str(payload or "")


def _collect(part: Message, body: Body) -> None:
    ctype = part.get_content_type()
    if ctype == "message/rfc822":
        body.attachments.append(part.get_filename() or "message/rfc822")
        return
    if part.is_multipart():
        for sub in part.get_payload():
            if isinstance(sub, Message):
                _collect(sub, body)
        return
    if part.get_content_maintype() == "multipart":
        body.broken = True
        return
    attached = part.get_content_disposition() == "attachment"
    if ctype in ("text/plain", "text/html") and not attached:
        (body.plain if ctype == "text/plain" else body.html).append(_content(part))
    elif part.get_filename() or attached or part.get_content_maintype() != "text":
        body.attachments.append(part.get_filename() or ctype)


def eml_body(raw: bytes) -> Body:
    parts = re.split(rb"\r?\n\r?\n", raw, maxsplit=1)
    rest = parts[1] if len(parts) > 1 else b""
    body = Body(raw_text=any(x.strip() and not x.startswith(b"--") for x in rest.splitlines()))
    try:
        _collect(email.message_from_bytes(raw, policy=email.policy.default), body)
    except Exception:  # the stdlib gave up: nothing known about this file's body
        pass
    return body


def _b64url(data: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9_-]", "", data.replace("+", "-").replace("/", "_"))
    clean = clean[: len(clean) - len(clean) % 4 if len(clean) % 4 == 1 else len(clean)]
    try:
        raw = base64.urlsafe_b64decode(clean + "=" * (-len(clean) % 4))
    except (binascii.Error, ValueError):
        return ""
    return raw.decode("utf-8", "replace")


def gmail_body(part: dict[str, Any], body: Body | None = None) -> Body:
    body = body if body is not None else Body()
    data = (part.get("body") or {}).get("data")
    mime = str(part.get("mimeType", "")).lower()
    if part.get("filename"):
        body.attachments.append(str(part["filename"]))
    elif mime in ("text/plain", "text/html") and isinstance(data, str):
        (body.plain if mime == "text/plain" else body.html).append(_b64url(data))
    for sub in part.get("parts") or []:
        if isinstance(sub, dict):
            gmail_body(sub, body)
    return body


@dataclass
class MailItem:
    rel: str  # fixture path
    via: str  # "IMAP" or "Gmail"
    body: Body
    event: Event | None
    note: str = ""  # why there is no event


# --- text checks -------------------------------------------------------------------------


def _names_shown(item: MailItem) -> bool:
    """An attachment name appears in the event (its text, subject or refs)."""
    assert item.event is not None
    seen = " ".join([item.event.text, item.event.subject or "", json.dumps(item.event.refs)])
    return any(name and name in seen for name in item.body.attachments)


EMPTY_REASONS = {
    "hidden_html": "blank plain part hides the HTML part's text",
    "broken_mime_text": "broken MIME: a multipart with no parts (text in the raw body)",
    "broken_mime_blank": "broken MIME: a multipart with no parts (no text in the raw body)",
    "attachments_only": "attachments only, no text part",
    "no_body": "no body text in the file",
    "unread": "the file has body text, the event none",
}


def empty_text_reason(item: MailItem) -> str:
    """Why an event's text is empty, from what its file holds (a key of EMPTY_REASONS)."""
    body = item.body
    if body.plain_empty_html_full:
        return "hidden_html"
    if body.broken and not body.has_text:
        return "broken_mime_text" if body.raw_text else "broken_mime_blank"
    if body.attachments and not body.has_text:
        return "attachments_only"
    return "unread" if body.has_text else "no_body"


def check_texts(items: list[MailItem], section: Section) -> None:
    events = [i for i in items if i.event is not None]
    section.add("events", "email events checked (IMAP + Gmail)", len(events))
    section.add("imap", "  from IMAP (one per appended file)", sum(i.via == "IMAP" for i in events))
    section.add("gmail", "  from Gmail", sum(i.via == "Gmail" for i in events))
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for item in events:
        event = item.event
        assert event is not None
        where = f"[{item.via}] {item.rel}"
        tag = HTML_ELEMENT.search(event.text)
        loose = HTML_TAG.search(event.text)
        counts["html_loose"] += loose is not None
        if tag:
            counts["html"] += 1
            section.problem(where, "HTML tag in text", short(tag.group(0)))
        if not event.text.strip():
            counts["empty"] += 1
            reason = empty_text_reason(item)
            reasons[reason] += 1
            section.problem(where, "empty text", EMPTY_REASONS[reason])
        for field_name, value in (("text", event.text), ("subject", event.subject or "")):
            bad = MOJIBAKE.search(value)
            if bad:
                counts[f"mojibake_{field_name}"] += 1
                context = value[max(0, bad.start() - 15) : bad.end() + 15]
                section.problem(where, f"mojibake in {field_name}", short(context))
        if item.body.attachments and not item.body.has_text and not item.body.broken:
            counts["attachment_only"] += 1
            if not _names_shown(item):
                counts["attachment_only_unnamed"] += 1
                names = ", ".join(item.body.attachments[:3])
                section.problem(where, "attachment-only mail, no attachment name", short(names))
    section.add("html", "events with HTML tags in text", counts["html"])
    section.add(
        "html_loose",
        "  events matching <[a-zA-Z/!][^>]*> (also <user@host>, <http://…>)",
        counts["html_loose"],
    )
    section.add("empty", "events with empty text", counts["empty"])
    for reason, label in EMPTY_REASONS.items():
        section.add(f"empty_{reason}", f"  {label}", reasons[reason])
    section.add("mojibake_text", "events with mojibake in text", counts["mojibake_text"])
    section.add("mojibake_subject", "events with mojibake in subject", counts["mojibake_subject"])
    section.add("attachment_only", "attachment-only mails", counts["attachment_only"])
    section.add(
        "attachment_only_unnamed",
        "  of them with no attachment name in the event",
        counts["attachment_only_unnamed"],
    )
