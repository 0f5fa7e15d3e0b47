"""Damaged mail never raises out of the parsing and mapping functions: mutated messages
(seeded byte flips, truncations, bogus charsets, broken boundaries, mangled headers),
mutated BODYSTRUCTUREs and mutated Gmail JSON. A bug found here is reported (logged), and
an unexpected log fails the test, so "handled by the safety net" does not pass either."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from engine.events import Event
from engine.sources.google.gmail import UnreadableMessage, message_event
from engine.sources.mail.headers import (
    decode_header_value,
    parse_date,
    parse_header_block,
    parse_sender,
)
from engine.sources.mail.imap import HEADER_ITEM, FetchedMessage, ImapSource, message_parts
from engine.sources.mail.text import (
    MimePart,
    attachment_names,
    attachment_summary,
    html_to_text,
    loose_text,
    part_text,
    split_header_params,
    text_parts,
)
from tests.sources.mail_fuzz import SAMPLES, mutated_gmail_messages, mutated_messages

ROUNDS = 400

_PLAIN = (b"text", b"plain", (b"charset", b"utf-8"), None, None, b"quoted-printable", 48, 1)
_HTML = (b"text", b"html", (b"charset", b"utf-8"), None, None, b"base64", 300, 4)
_PDF = (
    *(b"application", b"pdf", (b"name", b"facture.pdf"), None, None, b"base64", 34, None),
    (b"attachment", (b"filename*", b"utf-8''factur%C3%A9.pdf")),
)
_ENVELOPE = (b"Tue, 6 Oct 2026 09:12:00 +0200", b"=?UTF-8?Q?Acta?=", None, None, None, None)
_FORWARDED = (b"message", b"rfc822", None, None, None, b"7bit", 900, _ENVELOPE, _PLAIN, 20)
STRUCTURES: list[Any] = [
    ([_PLAIN, _HTML], b"alternative", (b"boundary", b"alt-7"), None, None, None),
    ([([_PLAIN, _HTML], b"alternative"), _PDF, _FORWARDED], b"mixed", (b"boundary", b"mix")),
    (b"text", b"html", (b"charset", b"windows-1252"), None, None, b"quoted-printable", 120, 2),
    ([([_HTML, (b"image", b"png", None, b"<logo>", None, b"base64", 900)], b"related")], b"mixed"),
]
_ODD: list[Any] = [None, b"", b"\xff\xfe", 0, -5, 2**40, (), [], (b"x",), [(b"y",)], "str"]


def _mutate_structure(node: Any, rng: random.Random, depth: int = 0) -> Any:
    if rng.random() < 0.08:
        return rng.choice(_ODD)
    if isinstance(node, (tuple, list)) and depth < 6:
        items = [_mutate_structure(item, rng, depth + 1) for item in node]
        if items and rng.random() < 0.15:
            items = items[: rng.randrange(len(items))]
        if rng.random() < 0.05:
            items = [items] * 3  # deeper nesting
        return list(items) if isinstance(node, list) else tuple(items)
    return node


def _split(raw: bytes) -> tuple[bytes, bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return head + b"\r\n", body


def _body_part(headers: dict[str, str]) -> MimePart:
    content_type, params = split_header_params(headers.get("content-type", "text/plain"))
    maintype, _, subtype = content_type.partition("/")
    encoding = headers.get("content-transfer-encoding", "7bit").strip().lower()
    return MimePart("1", maintype, subtype, params.get("charset"), encoding)


def _mapping_source() -> ImapSource:
    return ImapSource("mail.example.org", 993, "tester", password="unused")


def test_the_samples_read_as_written() -> None:
    """The fuzz starts from messages that read well, so damage is what the test adds."""
    head, body = _split(SAMPLES[0])
    headers = parse_header_block(head)
    assert decode_header_value(headers["subject"]) == "Reunión del jueves"
    assert parse_sender(headers["from"]) is not None
    assert loose_text(body).startswith("Hola Marta, la reunión pasa a las 10:30.")


def test_mutated_messages_never_raise() -> None:
    rng = random.Random(20261006)
    for raw in mutated_messages(ROUNDS, seed=7):
        head, body = _split(raw)
        headers = parse_header_block(head)
        for value in headers.values():
            assert isinstance(decode_header_value(value), str)
        parse_sender(headers.get("from"))
        parse_date(headers.get("date"))
        part = _body_part(headers)
        partial = rng.random() < 0.5
        assert isinstance(part_text(body, part, partial=partial), str)
        assert isinstance(loose_text(body, partial=partial), str)
        assert isinstance(html_to_text(body.decode("latin-1"), partial=partial), str)


def test_mutated_structures_never_raise() -> None:
    rng = random.Random(314)
    for _ in range(ROUNDS):
        structure = _mutate_structure(rng.choice(STRUCTURES), rng)
        parts = message_parts(structure)
        candidates = text_parts(parts)
        assert all(p.maintype in ("text", "message") for p in candidates)
        attachment_summary(attachment_names(parts))
        for part in parts:
            part_text(rng.randbytes(rng.randrange(200)), part, partial=rng.random() < 0.5)


def test_mapping_mutated_fetch_data_always_gives_an_event() -> None:
    rng = random.Random(99)
    source = _mapping_source()
    times: list[Any] = [datetime(2026, 10, 6, 9, tzinfo=UTC), datetime(2026, 10, 6, 9), None, "x"]
    for uid, raw in enumerate(mutated_messages(ROUNDS, seed=11), start=1):
        head, _ = _split(raw)
        data = {
            HEADER_ITEM.replace(".PEEK", "").encode(): head,
            b"BODYSTRUCTURE": _mutate_structure(rng.choice(STRUCTURES), rng),
            b"INTERNALDATE": rng.choice(times),
            b"FLAGS": rng.choice([(b"\\Seen", b"$Junk"), None, (b"\xff",), ()]),
        }
        message = FetchedMessage(uid, data, parts=message_parts(data[b"BODYSTRUCTURE"]))
        event = source.message_event("INBOX", 7, message)
        assert isinstance(event, Event)
        assert event.refs["uid"] == uid


@pytest.mark.parametrize("seed", range(4))
def test_mutated_gmail_messages_map_or_are_refused_cleanly(seed: int) -> None:
    mapped = 0
    for message in mutated_gmail_messages(ROUNDS // 4, seed=seed):
        try:
            event = message_event(message, "me@gmail.com")
        except UnreadableMessage:
            continue
        assert isinstance(event, Event) and event.id.startswith("gmail:")
        mapped += 1
    assert mapped > ROUNDS // 8  # most damage leaves a message worth storing
