"""Faithful or flagged: a rules line is applied only when every word of it was read; a line
with words left over is shown with what was read and what was not, and no decision comes
from it on the built-in model. And the mechanisms that let more wordings be read: a
decision after a colon or at the end of a sentence, paragraphs, definitions anywhere in the
file, a brand named by a label."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from engine.triage.policy import decide_by_rules
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.explain import NOT_UNDERSTOOD, explain, file_notes
from engine.triage.rules.parse import parse_rules
from tests.factories import make_event

NOW = datetime.fromisoformat("2026-03-04T10:00:00+01:00")


def decide(rules: str, **event: Any) -> bool | None:
    verdict = decide_by_rules(make_event(**event), NOW, compile_rules_text(rules))
    return None if verdict is None else verdict.notify


def mail(name: str, address: str, subject: str, text: str = "") -> dict[str, Any]:
    return {"sender": {"name": name, "address": address}, "subject": subject, "text": text}


POOL = [
    mail("Ana Ruiz", "ana@ruiz.example", "¿Comemos el jueves?", "Dime si puedes."),
    mail("Banco Sur", "avisos@bancosur.example", "Tu extracto de marzo", "Ya disponible."),
    mail("Tienda Moda", "news@moda.example", "Rebajas -50%", "Solo hoy."),
    mail(
        "Colegio", "secretaria@sanjuan-escuela.example", "Reunión de padres", "El martes a las 18h."
    ),
    mail("LinkedIn", "jobs-noreply@linkedin.com", "5 new jobs for you", "Apply now."),
]


@pytest.mark.parametrize(
    ("line", "section", "unread"),
    [
        ("Correos de la tintorería", "Never notify", ("tintorería",)),
        ("Courriels du pressing", "Never notify", ("pressing",)),
        ("Emails where someone thanks me", "Custom rules", ("thanks",)),
        ("Anything my kids' school sends is important", "Always notify", ("kids", "school")),
        ("linkedin only if a recruiter quotes a salary", "Custom rules", ("quotes", "salary")),
    ],
)
def test_a_narrow_line_whose_object_is_not_read_is_flagged_never_broadened(
    line: str, section: str, unread: tuple[str, ...]
) -> None:
    rules = f"## {section}\n- {line}\n"
    (explained,) = explain(rules)
    assert not explained.understood
    assert set(unread) <= set(explained.unread)
    assert explained.sentence.startswith(NOT_UNDERSTOOD)
    assert all(f"\u201c{w}\u201d" in explained.sentence for w in unread)
    # applied to nothing on the built-in model: no message of a varied pool is decided by it
    assert [decide(rules, **m) for m in POOL] == [None] * len(POOL)


def test_the_partly_read_line_says_what_the_rest_reads() -> None:
    (explained,) = explain("## Never notify\n- Correos de la tintorería\n")
    assert explained.sentence == (
        f"{NOT_UNDERSTOOD} (I can't read \u201ctintorería\u201d; "
        "the rest reads \u201cNever notify: emails\u201d)"
    )
    assert explained.to_json()["unread"] == ["tintorería"]


@pytest.mark.parametrize(
    ("line", "reading", "decided"),
    [
        (
            "LinkedIn only if a recruiter mentions a salary",
            "Notify from LinkedIn only if recruiters and hiring about salary; otherwise don't",
            [None, None, None, None, False],  # LinkedIn's job list names no salary
        ),
        (
            "Kita Sonnenblume, wenn es um Abholung oder Krankheit geht",
            "Notify: from Kita Sonnenblume mentioning abholung or krankheit",
            [None] * len(POOL),
        ),
    ],
)
def test_what_a_line_says_a_message_mentions_is_its_topic(
    line: str, reading: str, decided: list[bool | None]
) -> None:
    """ "mentions a salary", "wenn es um … geht": the object is kept as the line's topic,
    so the line is read whole and decides only the messages it names."""
    rules = f"## Custom rules\n- {line}\n"
    (explained,) = explain(rules)
    assert explained.understood, explained.sentence
    assert explained.sentence == reading
    assert [decide(rules, **m) for m in POOL] == decided
    said = mail(
        "LinkedIn", "inmail@linkedin.com", "A recruiter sent you a message", "The salary is 90k."
    )
    if decided[-1] is False:
        assert decide(rules, **said) is True


def test_a_line_read_whole_is_applied() -> None:
    rules = "## Never notify\n- Correos de Tienda Moda\n"
    (explained,) = explain(rules)
    assert explained.understood, explained.sentence
    assert decide(rules, **POOL[2]) is False
    assert decide(rules, **POOL[0]) is None


def test_words_in_an_exclusion_are_accounted_for_too() -> None:
    (explained,) = explain("## Never notify\n- Newsletters, except the zorblat ones\n")
    assert not explained.understood
    assert "zorblat" in explained.unread


@pytest.mark.parametrize(
    ("rules", "section"),
    [
        ("ShowingTime confirmations: no.\n", "never"),
        ("Messages from ShowingTime: never\n", "never"),
        ("Messages from ShowingTime: yes\n", "always"),
        ("Messages from ShowingTime can wait.\n", "never"),
        ("Anything from ShowingTime is important.\n", "always"),
        ("I don't want to hear about ShowingTime anymore.\n", "never"),
        ("I want to know about messages from ShowingTime.\n", "always"),
        ("Los correos de ShowingTime pueden esperar.\n", "never"),
        ("Alles von ShowingTime ist wichtig.\n", "always"),
        ("Les messages de ShowingTime peuvent attendre.\n", "never"),
        ("As mensagens do ShowingTime são importantes.\n", "always"),
        ("I messaggi di ShowingTime possono aspettare.\n", "never"),
    ],
)
def test_a_decision_said_at_the_end_or_after_a_colon_in_any_language(
    rules: str, section: str
) -> None:
    (rule,) = parse_rules(rules).rules
    assert rule.section == section
    (explained,) = explain(rules)
    assert explained.understood, explained.sentence
    assert "ShowingTime" in explained.what


def test_a_paragraph_is_read_sentence_by_sentence() -> None:
    text = (
        "I run a small estate agency. ShowingTime confirmations: no. Cancelled showings: yes.\n"
        "Newsletters can wait, but anything from my accountant Tomas Herrera is important.\n"
    )
    parsed = parse_rules(text)
    assert [(r.line_number, r.section, r.text) for r in parsed.rules] == [
        (1, "never", "ShowingTime confirmations: no."),
        (1, "always", "Cancelled showings: yes."),
        (2, "never", "Newsletters can wait"),
        (2, "always", "anything from my accountant Tomas Herrera is important."),
    ]
    assert parsed.notes == [(1, "I run a small estate agency.")]
    assert [n.line_number for n in file_notes(text)] == [1]
    lines = explain(text)
    assert all(line.understood for line in lines), [line.sentence for line in lines]
    assert decide(text, **mail("Tomas Herrera", "tomas@th.example", "VAT")) is True
    assert decide(text, **mail("Weekly", "news@w.example", "Digest", "unsubscribe")) is False


def test_a_role_defined_anywhere_in_the_file_is_read_where_it_is_used() -> None:
    text = (
        "## Always notify\n"
        "- Anything from my assistant.\n"
        "- WhatsApp messages from my partner\n"
        "- Sanne (my partner)\n"
        "## Never notify\n"
        "- Newsletters\n"
        "My assistant means Dolores Ruiz (dolores@ruiz-asesores.example).\n"
    )
    parsed = parse_rules(text)
    assert [r.line_number for r in parsed.rules] == [2, 3, 4, 6]  # the definition is no rule
    first = explain(text)[0]
    assert first.understood
    assert "dolores@ruiz-asesores.example" in first.sentence
    assert decide(text, **mail("D. Ruiz", "dolores@ruiz-asesores.example", "Agenda")) is True
    notes = file_notes(text)
    assert [(n.line_number, n.sentence) for n in notes] == [
        (4, "\u201cmy partner\u201d means Sanne (used in line 3)"),
        (
            7,
            "\u201cMy assistant\u201d means Dolores Ruiz (dolores@ruiz-asesores.example) "
            "(used in line 2)",
        ),
    ]


def test_a_name_and_a_role_defined_by_an_equals_sign() -> None:
    text = "## Always notify\n- WhatsApp messages from my mother\nMam = my mother\n"
    (explained,) = explain(text)
    assert explained.understood
    assert "Mam" in explained.sentence


def test_a_brand_as_a_label_says_whose_messages_the_description_means() -> None:
    rules = "## Always notify\n- GitHub: someone @mentions me or requests my review\n"
    (explained,) = explain(rules)
    assert explained.understood
    assert "GitHub" in explained.sentence
    review = mail("Ana (GitHub)", "notifications@github.com", "Review requested", "ana asked")
    assert decide(rules, **review) is True
    other = mail("Ana Ruiz", "ana@ruiz.example", "Please review my draft", "Can you?")
    assert decide(rules, **other) is None


@pytest.mark.parametrize(
    ("line", "read_as"),
    [
        ("Newsleters and promotons", ("newsletters", "promotions")),
        ("Recipts from Amazon", ("receipts",)),
        ("Securty alerts", ("security",)),
    ],
)
def test_a_typo_of_a_known_word_is_read_as_that_word_and_said(
    line: str, read_as: tuple[str, ...]
) -> None:
    (explained,) = explain(f"## Never notify\n- {line}\n")
    assert explained.understood, explained.sentence
    for word in read_as:
        assert f"read as \u201c{word}\u201d" in explained.sentence


def test_a_real_word_is_never_corrected_into_another() -> None:
    text = "## Always notify\n- Emails about pills\n## Never notify\n- Redes sociales\n"
    assert all("read as" not in line.sentence for line in explain(text))


@pytest.mark.parametrize(
    ("line", "reading"),
    [
        (
            "Von 20 bis 7 Uhr gar nichts, außer Miriam",
            "Between 20:00 and 07:00: never notify: anything — except from Miriam",
        ),
        (
            "Nothing from 8pm to 7am, except Anna",
            "Between 20:00 and 07:00: never notify: anything — except from Anna",
        ),
        (
            "Nada entre las 22 y las 7, salvo Marta",
            "Between 22:00 and 07:00: never notify: anything — except from Marta",
        ),
    ],
)
def test_quiet_hours_said_as_nothing_but_someone(line: str, reading: str) -> None:
    """ "nothing" (in any language) in a Never line is every message; a time window is not a
    sender ("from 8pm"); a lone name after "außer" is whom the line excepts, in German too."""
    (explained,) = explain(f"## Never notify\n- {line}\n")
    assert explained.understood, explained.sentence
    assert explained.sentence == reading


def test_a_name_an_aside_introduces_is_a_name_in_german() -> None:
    (explained,) = explain("## Immer\n- Miriam (meine Frau), per Mail oder WhatsApp\n")
    assert explained.understood, explained.sentence
    assert "from Miriam" in explained.sentence
    # a capitalised noun that is all a German clause says besides its kinds stays a noun
    (noun,) = explain("## Immer\n- E-Mails von Kunden zu laufenden Projekten\n")
    assert "Projekten" not in noun.sentence.split("(")[0]
