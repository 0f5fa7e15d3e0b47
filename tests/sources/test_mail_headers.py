"""Mail headers read the same from IMAP and Gmail: encoded words, and the sender (its address
kept as written, matched whatever its case)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.events import Person
from engine.sources.google.gmail import message_event
from engine.sources.mail.headers import decode_header_value, parse_sender
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
