"""Each extractor of a rule clause on its own: (text, conditions found, text left)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import time, timedelta
from typing import Any

import pytest

from engine.triage.classifier import fold
from engine.triage.rules import extract
from engine.triage.rules.extract import Extracted, parse_fragment
from engine.triage.rules.match import Match, Window
from engine.triage.rules.names import name_list
from engine.triage.rules.windows import find_window

WEEKEND = frozenset({5, 6})


def M(**fields: Any) -> Match:
    """A Match, with sets given as plain sets."""
    return Match(**{k: frozenset(v) if isinstance(v, set) else v for k, v in fields.items()})


def left(text: str) -> str:
    return " ".join(text.split())


def check(extractor: Callable[[str], Extracted], text: str, found: Match, rest: str) -> None:
    got, remaining = extractor(text)
    assert got == found
    assert left(remaining) == rest


# literals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found", "rest"),
    [
        ("Emails from 'Anna Berg'", M(names=("Anna Berg",)), "Emails from"),
        ("Messages in the “Book Club” chat", M(chats=("Book Club",)), "Messages in the chat"),
        (
            'Emails with "Invoice due" in the subject',
            M(subject_phrases=("Invoice due",)),
            "Emails with in the subject",
        ),
        (
            "Emails with the title «Payslip»",
            M(subject_phrases=("Payslip",)),
            "Emails with the title",
        ),
        ('Emails from "Bob <bob@x.com>"', M(names=("Bob <bob@x.com>",)), "Emails from bob@x.com"),
        ("Bob's emails, Carol's too", M(), "Bob's emails, Carol's too"),
        ("Emails from Anna", M(), "Emails from Anna"),
    ],
)
def test_quoted(text: str, found: Match, rest: str) -> None:
    check(extract.quoted, text, found, rest)


@pytest.mark.parametrize(
    ("text", "found", "rest"),
    [
        ("Emails from Bob@Example.com", M(addresses=("bob@example.com",)), "Emails from"),
        ("a@x.org or b.c+d@y.co.uk", M(addresses=("a@x.org", "b.c+d@y.co.uk")), "or"),
        ("Anything from example.org", M(), "Anything from example.org"),
    ],
)
def test_addresses(text: str, found: Match, rest: str) -> None:
    check(extract.addresses, text, found, rest)


@pytest.mark.parametrize(
    ("text", "found", "rest"),
    [
        (
            "Anything from @acme.com or Example.ORG",
            M(domains=("acme.com", "example.org")),
            "Anything from or",
        ),
        (
            "Emails from anyone at herrera-lutz.es",
            M(domains=("herrera-lutz.es",)),
            "Emails from anyone at",
        ),
        ("Emails from Dr. Smith", M(), "Emails from Dr. Smith"),
    ],
)
def test_domains(text: str, found: Match, rest: str) -> None:
    check(extract.domains, text, found, rest)


@pytest.mark.parametrize(
    ("text", "notes", "rest"),
    [
        (
            "Newsletters (Substack, Medium) on weekdays",
            ("Substack, Medium",),
            "Newsletters on weekdays",
        ),
        (
            "Anything from Priya (my manager) or Raj (saved as Rajesh)",
            ("my manager", "saved as Rajesh"),
            "Anything from Priya or Raj",
        ),
        ("No asides here", (), "No asides here"),
    ],
)
def test_asides(text: str, notes: tuple[str, ...], rest: str) -> None:
    got, remaining = extract.asides(text)
    assert got == notes
    assert left(remaining) == rest


# keywords: read from folded text and left in it ------------------------------------------------

KEYWORD_CASES = [
    (extract.sources, "emails and whatsapp chats", M(sources={"email", "whatsapp"})),
    (extract.sources, "standups and 1:1s", M(sources={"calendar"})),
    (extract.sources, "e-mail-ish things", M()),
    (extract.event_kinds, "reminders", M(event_types={"calendar.reminder"})),
    (extract.event_kinds, "invitations to new meetings", M(event_types={"calendar.created"})),
    (extract.event_kinds, "meetings", M()),
    (extract.group_or_direct, "group messages", M(group=True)),
    (extract.group_or_direct, "direct messages from groups", M(group=False)),
    (extract.group_or_direct, "messages", M()),
    (extract.mentions, "when someone mentions me", M(mentions_me=True)),
    (extract.mentions, "if i am @-mentioned", M(mentions_me=True)),
    (extract.mentions, "if i am tagged", M(mentions_me=True)),
    (extract.mentions, "messages", M()),
    (extract.added_today, "meetings added today", M(added_today=True)),
    (extract.added_today, "meetings today", M()),
    (
        extract.calendar_changes,
        "cancelled meetings",
        M(calendar_change=True, event_types={"calendar.cancelled"}),
    ),
    (extract.calendar_changes, "cancelled or moved meetings", M(calendar_change=True)),
    (
        extract.calendar_changes,
        "meetings that are postponed",
        M(calendar_change=True, event_types=frozenset({"calendar.updated"})),
    ),
    (extract.calendar_changes, "meetings", M()),
    (extract.recurring, "weekly meetings", M(recurring=True)),
    (extract.recurring, "meetings", M()),
    (extract.place, "in-person meetings", M(in_person=True)),
    (extract.place, "zoom calls", M(video=True)),
    (extract.place, "in person meetings, not video calls", M(in_person=True)),
    (extract.place, "meetings", M()),
    (extract.anything, "anything from anna", M(anything=True)),
    (extract.anything, "all notifications", M(anything=True)),
    (extract.anything, "all emails", M()),
]


@pytest.mark.parametrize(
    ("extractor", "low", "found"),
    KEYWORD_CASES,
    ids=[f"{e.__name__}: {t}" for e, t, _ in KEYWORD_CASES],
)
def test_keywords(extractor: Callable[[str], Extracted], low: str, found: Match) -> None:
    check(extractor, low, found, low)


KIND_CASES = [
    ("newsletters and promotions", M(kinds={"newsletter", "promotion"}), "and"),
    ("ci bots", M(kinds={"dev"}, sender_kinds={"bot"}), ""),
    ("a real person", M(sender_kinds={"person"}), "a"),
    ("Billing problems and security alerts", M(kinds={"billing_problem", "security"}), "and"),
    ("Recibos y facturas", M(kinds={"receipt"}), "y"),
    ("Rechnungen, Quittungen und Mahnungen", M(kinds={"receipt", "billing_problem"}), ", und"),
    ("factures et reçus de paiement", M(kinds={"receipt"}), "et"),
    ("notas fiscais e comprovantes", M(kinds={"receipt"}), "e"),
    ("ricevute e fatture", M(kinds={"receipt"}), "e"),
    ("emails from clients asking a question", M(sender_kinds={"person"}, asks=True), "emails from"),
    ("notifications from apps and tools", M(sender_kinds={"automated"}), "notifications from and"),
    ("iFood, Rappi and other delivery apps", M(), "iFood, Rappi and other delivery apps"),
    ("automated booking confirmations", M(kinds={"receipt", "booking"}, automated=True), ""),
    ("la Seguridad Social", M(), "la Seguridad Social"),
    ("a table for 8 people", M(), "a table for 8 people"),
    ("meetings in person", M(), "meetings in person"),
]


@pytest.mark.parametrize(("text", "found", "rest"), KIND_CASES, ids=[t for t, _, _ in KIND_CASES])
def test_kind_words(text: str, found: Match, rest: str) -> None:
    check(extract.kind_words, text, found, rest)


# phrases --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found", "rest"),
    [
        (
            "Emails with URGENT in the subject",
            M(subject_phrases=("URGENT",)),
            "Emails with in the subject",
        ),
        (
            "Emails with ACTION REQUIRED in the title",
            M(subject_phrases=("ACTION REQUIRED",)),
            "Emails with in the title",
        ),
        ("Emails with urgent in the subject", M(), "Emails with urgent in the subject"),
    ],
)
def test_subject_in_capitals(text: str, found: Match, rest: str) -> None:
    check(extract.subject_in_capitals, text, found, rest)


@pytest.mark.parametrize(
    ("text", "found", "rest"),
    [
        ("Messages in the Book Club group", M(chats=("Book Club",)), "Messages in the group"),
        (
            "Anything in the Family WhatsApp chat",
            M(chats=("Family",)),
            "Anything in the WhatsApp chat",
        ),
        ("Messages in the family group", M(), "Messages in the family group"),
        ("Mute the Book Club group", M(chats=("Book Club",)), "Mute the group"),
        ("Silencia el grupo Familia Ruiz", M(chats=("Familia Ruiz",)), "Silencia el grupo"),
        (
            "Mets en sourdine le groupe Parents CM1",
            M(chats=("Parents CM1",)),
            "Mets en sourdine le groupe",
        ),
        ("Silencia o grupo dos vizinhos", M(), "Silencia o grupo dos vizinhos"),
    ],
)
def test_named_chat(text: str, found: Match, rest: str) -> None:
    check(extract.named_chat, text, found, rest)


@pytest.mark.parametrize(
    ("text", "found", "rest"),
    [
        (
            "Emails about the Acme launch from Acme",
            M(topics=("acme", "launch")),
            "Emails from Acme",
        ),
        (
            "Anything about Mãe, Pai or the school",
            M(names=("Mãe", "Pai")),
            "Anything about Mãe, Pai or the school",
        ),
        (
            "Emails regarding tax returns, always",
            M(topics=("tax", "returns")),
            "Emails , always",
        ),
        ("Emails from Anna", M(), "Emails from Anna"),
        # a verb that says what the message mentions, and what it lists (articles are not
        # topics); a mention of the user is not a topic
        (
            "LinkedIn only if a recruiter mentions a fee, a day rate or a salary.",
            M(topics=("fee", "rate", "salary"), topic_min=1),
            "LinkedIn only if a recruiter .",
        ),
        (
            "Correos que mencionen una multa o un requerimiento",
            M(topics=("multa", "requerimiento"), topic_min=1),
            "Correos",
        ),
        ("unless someone mentions me", M(), "unless someone mentions me"),
        ("only @mentions or hotfix", M(), "only @mentions or hotfix"),
        # a frame that holds the topic, where the verb comes last
        (
            "Kita Sonnenblume, wenn es um Abholung oder Krankheit geht",
            M(topics=("abholung", "krankheit"), topic_min=1),
            "Kita Sonnenblume, wenn",
        ),
        (
            "De school, alleen als het over ophalen of een ziek kind gaat",
            M(topics=("ophalen", "ziek"), topic_min=1),
            "De school, alleen als",
        ),
        # the topic ends where a time window starts
        (
            "only when it mentions a deadline within the next two days",
            M(topics=("deadline",), topic_min=2),
            "only when it within the next two days",
        ),
    ],
)
def test_about(text: str, found: Match, rest: str) -> None:
    check(extract.about, text, found, rest)


@pytest.mark.parametrize(
    ("text", "found", "rest"),
    [
        ("Security alerts from Google", M(), "Security alerts from Google"),  # a kind
        (
            "The payslips from Payroll",
            M(topics=("payslips",), topic_min=1),
            "The payslips from Payroll",
        ),
        ("Boss updates from Acme", M(), "Boss updates from Acme"),
        ("Invoices from Stripe", M(), "Invoices from Stripe"),
        ("Anything from Anna", M(), "Anything from Anna"),
    ],
)
def test_topic_at_head(text: str, found: Match, rest: str) -> None:
    check(extract.topic_at_head, text, found, rest)


def test_topic_at_head_defers_to_a_topic_already_found() -> None:
    found, _ = extract.topic_at_head("The payslips from Payroll", M(topics=("tax",)))
    assert found == M()


@pytest.mark.parametrize(
    ("low", "found"),
    [
        ("reminders for the dentist appointment", M(topics=("dentist",))),
        ("meetings called sprint planning", M(topics=("sprint", "planning"))),
        ("invitations about the board review", M(topics=("board", "review"))),
        ("reminders", M()),
    ],
)
def test_topic_of_events(low: str, found: Match) -> None:
    check(extract.topic_of_events, low, found, low)
    assert extract.topic_of_events(low, M(topics=("tax",)))[0] == M()


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Meetings that start within 2 hours", M(starts_within=timedelta(hours=2))),
        ("Events in the next 30 minutes", M(starts_within=timedelta(minutes=30))),
        ("Anything happening in less than an hour", M(starts_within=timedelta(hours=1))),
        ("Appointments within two days", M(starts_within=timedelta(days=2))),
        ("Deadlines in a week", M(starts_within=timedelta(weeks=1))),
        ("Meetings during the next 2 hours", M()),  # no word says it is about a start
        ("Meetings that start soon", M()),
    ],
)
def test_starts_within(text: str, found: Match) -> None:
    check(lambda t: extract.starts_within(t, fold(t)), text, found, left(text))


@pytest.mark.parametrize(
    ("text", "found", "rest"),
    [
        (
            "Emails from Lucia Vidal, Tomas Herrera and Herrera & Lutz",
            M(names=("Lucia Vidal", "Tomas Herrera", "Herrera & Lutz")),
            "Emails from , and",
        ),
        ("Calls from Colégio Santa Cruz", M(names=("Colégio Santa Cruz",)), "Calls from"),
        (
            "Emails from the Van der Berg family",
            M(names=("Van der Berg",)),
            "Emails from the family",
        ),
        ("Meetings on Monday in March", M(), "Meetings on Monday in March"),
        ("Emails from anyone", M(), "Emails from anyone"),
    ],
)
def test_names(text: str, found: Match, rest: str) -> None:
    check(extract.names, text, found, rest)


@pytest.mark.parametrize(
    ("text", "seen", "topic_phrase", "found"),
    [
        (
            "Emails with Payslip from Payroll",
            M(subject_phrases=("payslip",)),
            "",
            M(names=("Payroll",)),
        ),
        ("Emails from Acme", M(topics=("acme", "launch")), "the Acme launch", M()),
        ("Emails from Acme", M(), "the Acme launch", M(names=("Acme",))),
    ],
)
def test_names_leave_out_what_is_already_read(
    text: str, seen: Match, topic_phrase: str, found: Match
) -> None:
    assert extract.names(text, seen, topic_phrase)[0] == found


@pytest.mark.parametrize(
    ("notes", "seen", "quoted", "found"),
    [
        (
            ("e.g. Substack, Medium",),
            M(kinds={"newsletter"}),
            False,
            M(examples=("Substack", "Medium")),
        ),
        (("like Dependabot or Renovate",), M(), False, M(names=("Dependabot", "Renovate"))),
        (("like Dependabot or Renovate",), M(names=("GitHub",)), False, M()),
        (("Anna, Bob", "like Carl or Dora"), M(), False, M(names=("Anna", "Bob"))),
        (("my manager",), M(), False, M()),
        (("saved as Marco",), M(), False, M(names=("Marco",))),
        (("saved as Marco",), M(), True, M()),
    ],
)
def test_aside_names(notes: tuple[str, ...], seen: Match, quoted: bool, found: Match) -> None:
    assert extract.aside_names(notes, seen, quoted=quoted) == found


# putting them together -------------------------------------------------------------------------


def test_combine_joins_sets_appends_lists_and_keeps_what_was_set() -> None:
    a = M(sources={"email"}, names=("Anna",), group=True, topic_min=1)
    b = M(sources={"calendar"}, names=("Bob",), recurring=True)
    assert extract.combine(a, b) == M(
        sources={"email", "calendar"},
        names=("Anna", "Bob"),
        group=True,
        recurring=True,
        topic_min=1,
    )
    assert extract.combine(a, M()) == a


@pytest.mark.parametrize(
    ("found", "low", "settled"),
    [
        (M(group=True, chats=("Family",)), "", M(sources={"whatsapp"}, chats=("Family",))),
        (
            M(group=False, chats=("Family",)),
            "",
            M(sources={"whatsapp"}, group=False, chats=("Family",)),
        ),
        (M(sources={"email"}, mentions_me=True), "", M(sources={"whatsapp"}, mentions_me=True)),
        (M(recurring=True), "", M()),
        (M(recurring=True, sources={"calendar"}), "", M(recurring=True, sources={"calendar"})),
        (
            M(recurring=True, starts_within=timedelta(hours=1)),
            "",
            M(recurring=True, starts_within=timedelta(hours=1), sources={"calendar"}),
        ),
        (M(video=True), "", M(video=True, sources={"calendar"})),
        (M(calendar_change=True), "", M(calendar_change=True, sources={"calendar"})),
        (
            M(names=("Anna", "Anna", ""), topics=("tax", "tax")),
            "",
            M(names=("Anna",), topics=("tax",)),
        ),
        (
            M(sender_kinds={"automated"}, names=("Dependabot", "Anna")),
            "ci bots",
            M(sender_kinds={"automated"}, names=("Anna",)),
        ),
        (
            M(sender_kinds={"automated"}, names=("Dependabot",)),
            "ci systems",
            M(sender_kinds={"automated"}, names=("Dependabot",)),
        ),
    ],
)
def test_settle(found: Match, low: str, settled: Match) -> None:
    assert extract.settle(found, low) == settled


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Messages in the “Book Club” chat", M(sources={"whatsapp"}, chats=("Book Club",))),
        ("Emails about the Acme launch from Acme", M(sources={"email"}, topics=("acme", "launch"))),
        ("Recurring video calls", M(sources={"calendar"}, video=True)),
        ("Weekly meetings", M(sources={"calendar"}, recurring=True)),
        ("Group messages that mention me", M(sources={"whatsapp"}, group=True, mentions_me=True)),
        (
            "Newsletters (e.g. Substack, Medium)",
            M(kinds={"newsletter"}, examples=("Substack", "Medium")),
        ),
        ("WhatsApp from my husband (saved as Marco)", M(sources={"whatsapp"}, names=("Marco",))),
        ("whatever feels unimportant", M()),
    ],
)
def test_parse_fragment_runs_the_extractors_in_order(text: str, found: Match) -> None:
    assert parse_fragment(text).read_part == found


# the time window and names helpers the extractors share -----------------------------------------


@pytest.mark.parametrize(
    ("text", "rest", "window"),
    [
        ("Anything between 22:00 and 07:00", "Anything", Window(time(22), time(7))),
        ("Emails after 6pm on weekends", "Emails", Window(time(18), time(7), WEEKEND)),
        (
            "Messages before 9 a.m. on weekdays",
            "Messages",
            Window(time(0), time(9), frozenset(range(5))),
        ),
        ("Group chatter at night", "Group chatter", Window(time(22), time(7))),
        ("Anything on Mondays", "Anything", Window(days={0})),
        ("Meetings that start after 5pm", "Meetings that start after 5pm", None),
        ("Emails from Anna", "Emails from Anna", None),
    ],
)
def test_find_window(text: str, rest: str, window: Window | None) -> None:
    remaining, found = find_window(text)
    assert found == window
    assert left(remaining) == rest


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Facebook and Instagram", ["Facebook", "Instagram"]),
        ("Herrera & Lutz", ["Herrera & Lutz"]),
        ("Anna/Bob; Carol", ["Anna", "Bob", "Carol"]),
        ("Emails on Friday in May", []),
    ],
)
def test_name_list(text: str, names: list[str]) -> None:
    assert name_list(text) == names
