"""Mail headers read the same from IMAP and Gmail: encoded words, and the sender (its address
kept as written, matched whatever its case)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.events import Person
from engine.sources.google.gmail import message_event
from engine.sources.mail.headers import (
    KEPT_HEADERS,
    decode_header_bytes,
    decode_header_value,
    parse_date,
    parse_header_block,
    parse_sender,
)
from engine.triage.classifier.kinds import classify
from engine.triage.rules.compile import compile_rules_text
from tests.factories import make_event


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [
        ("=?utf-8?b?w6k=?= plain", "é plain"),
        ("a =?UTF-8?Q?=C3=A9?=\r\n =?UTF-8?Q?=C3=A9?= b", "a éé b"),
        ("=?utf-8*en?q?hi?=", "hi"),
        ("=?gb2312?B?xOO6ww==?=", "你好"),
        ("=?UTF-8?B?/w==?=", "\ufffd"),  # a bad byte in declared UTF-8
        ("=?x-nonsense?B?/w==?=", "ÿ"),  # unknown charset, not UTF-8: Latin-1
        ("no words", "no words"),
    ],
)
def test_decode_header_value(raw: str, decoded: str) -> None:
    assert decode_header_value(raw) == decoded


@pytest.mark.parametrize(
    ("value", "name", "address"),
    [
        ('"Doe, John" <John.Doe@Example.org>', "Doe, John", "John.Doe@Example.org"),
        ("=?ISO-8859-1?Q?Andr=E9?= <andre@example.fr>", "André", "andre@example.fr"),
        ("plain@example.org", None, "plain@example.org"),
        ("Undisclosed recipients", "Undisclosed recipients", None),
        ("undisclosed-recipients:;", "undisclosed-recipients:;", None),
        ("Anna <anna>", "Anna", None),  # no mail address in it: only the name is kept
    ],
)
def test_senders_are_parsed_and_decoded(value: str, name: str | None, address: str | None) -> None:
    assert parse_sender(value) == Person(name=name, address=address)


@pytest.mark.parametrize("value", [None, "", "   "])
def test_no_sender(value: str | None) -> None:
    assert parse_sender(value) is None


def test_gmail_keeps_the_address_as_written() -> None:
    headers = [{"name": "From", "value": "John Doe <John.Doe@Example.org>"}]
    event = message_event(
        {"id": "x1", "internalDate": "0", "payload": {"headers": headers}}, "me@gmail.com"
    )
    assert event.sender == Person(name="John Doe", address="John.Doe@Example.org")


@pytest.mark.parametrize("written", ["john.doe@example.org", "JOHN.DOE@EXAMPLE.ORG"])
def test_rules_match_addresses_whatever_their_case(written: str) -> None:
    (rule,) = compile_rules_text(f"## Never notify\n- Emails from {written}\n")
    event = make_event(sender={"name": "John Doe", "address": "John.Doe@Example.org"})
    assert rule.applies(event, datetime(2026, 11, 10, 9, tzinfo=UTC), classify(event))
    other = make_event(sender={"name": "Jane Doe", "address": "Jane.Doe@Example.org"})
    assert not rule.applies(other, datetime(2026, 11, 10, 9, tzinfo=UTC), classify(other))


@pytest.mark.parametrize("charset", ["utf-16", "UTF-16", "utf-32"])
def test_a_part_in_utf16_without_its_bom_is_read_not_an_error(charset: str) -> None:
    from engine.sources.mail.headers import decode_bytes

    codec = "utf-32-le" if "32" in charset else "utf-16-le"
    assert decode_bytes("Юникод and more".encode(codec), charset) == "Юникод and more"
    assert isinstance(decode_bytes(b"\x00\xd8odd", charset), str)  # never raises


# --- raw header blocks, one field at a time ---------------------------------------------


def test_one_stray_byte_spoils_only_its_own_header() -> None:
    raw = (
        "From: Юникод Тест <unicode@example.org>\r\n".encode()
        + b"Subject: caf\xe9 cr\xe8me\r\n"  # Latin-1, in a block that is otherwise UTF-8
        + "X-Note: Grüße\r\n".encode()
        + b"Reply-To: =?UTF-8?Q?Z=C3=B6e?=\r\n <zoe@example.org>\r\n"
    )
    headers = parse_header_block(raw)
    assert headers == {
        "from": "Юникод Тест <unicode@example.org>",
        "subject": "café crème",
        "x-note": "Grüße",
        "reply-to": "=?UTF-8?Q?Z=C3=B6e?= <zoe@example.org>",
    }


@pytest.mark.parametrize(
    ("raw", "charset", "text"),
    [
        (b"plain ascii", None, "plain ascii"),
        ("Юникод запрещен".encode() + b"\xf1", None, "Юникод запрещен\ufffd"),  # mostly UTF-8
        ("Заявка".encode("cp1251"), "windows-1251", "Заявка"),  # the message's charset
        ("Заявка".encode("koi8-r"), "koi8-r", "Заявка"),
        (b"\x93quoted\x94 \x80 5", None, "\u201cquoted\u201d \u20ac 5"),  # Windows-1252
        (b"\x81\x8d", None, "\x81\x8d"),  # no Windows-1252 character: Latin-1
        (b"caf\xe9", "zlib", "café"),  # a "charset" that is no text encoding is ignored
    ],
)
def test_decode_header_bytes(raw: bytes, charset: str | None, text: str) -> None:
    assert decode_header_bytes(raw, charset) == text


def test_a_header_block_uses_its_declared_charset_for_raw_bytes() -> None:
    raw = (
        b"Subject: " + "Привет".encode("koi8-r") + b"\r\n"
        b'Content-Type: text/plain;\r\n\tcharset="koi8-r"\r\n'
    )
    assert parse_header_block(raw)["subject"] == "Привет"


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        ("Wed, 20 Sep 1995 00:19:00 (EDT) -0400", "1995-09-20T00:19:00-04:00"),
        ("Wed, 20 Sep 1995 00:19:00 -0400 (EDT)", "1995-09-20T00:19:00-04:00"),
        ("Tue, 1 Jul 2003 10:52:37 EDT", "2003-07-01T10:52:37-04:00"),
        ("1 Jul 2003 10:52 PST", "2003-07-01T10:52:00-08:00"),
        ("Tue, 22 Jan 2002 14:35:28 UT", "2002-01-22T14:35:28+00:00"),
        ("Tue, 1 Jul 2003 10:52:37 CET", "2003-07-01T10:52:37+00:00"),  # unknown: as -0000
        ("Tue, 1 Jul 2003 10:52:37 -0000", "2003-07-01T10:52:37+00:00"),
        ("(sent (from home)) Mon, 5 Oct 2026 12:00:00 +0200", "2026-10-05T12:00:00+02:00"),
    ],
)
def test_dates_keep_their_zone(value: str, iso: str) -> None:
    when = parse_date(value)
    assert when is not None and when.isoformat() == iso


@pytest.mark.parametrize("value", [None, "", "garbage", "Wed, 15 Dec 2010 59:10 -0500", "<HR>"])
def test_unreadable_dates_are_none(value: str | None) -> None:
    assert parse_date(value) is None


@pytest.mark.parametrize("charset", ["zlib", "base64", "hex"])
def test_an_encoded_word_in_a_bogus_charset_is_read_not_an_error(charset: str) -> None:
    assert decode_header_value(f"=?{charset}?Q?caf=C3=A9?= ok") == "café ok"


def test_gmail_keeps_the_same_headers_as_imap() -> None:
    headers = [{"name": name, "value": f"value of {name}"} for name in KEPT_HEADERS]
    headers.append({"name": "X-Mailer", "value": "not kept"})
    event = message_event(
        {"id": "x2", "internalDate": "0", "payload": {"headers": headers}}, "me@gmail.com"
    )
    assert event.headers == {name: f"value of {name}" for name in KEPT_HEADERS}
