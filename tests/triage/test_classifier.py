"""The event classifier, table-driven: an event → the kinds it has (each with evidence) and
the kinds it must not have. Senders, companies and wordings here are made up for these tests,
in the six languages the lexicon reads. How fast it classifies is measured, not asserted:
``python bench/triage_case_speed.py`` (milliseconds per event)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.triage.classifier import classify, is_spam
from tests.factories import make_event


def mail(name: str, address: str, subject: str, text: str = "", **extra: Any) -> dict[str, Any]:
    return {"sender": {"name": name, "address": address}, "subject": subject, "text": text, **extra}


def chat(name: str, text: str, *, group: str | None = None, mention: bool = False) -> dict:
    return {
        "source": "whatsapp",
        "event_type": "whatsapp.message",
        "sender": {"name": name, "address": "+34600000000"},
        "subject": None,
        "text": text,
        "chat": {"id": "c", "name": group or name, "is_group": group is not None},
        "mentions_me": mention,
    }


CASES: list[tuple[str, dict[str, Any], set[str], set[str]]] = [
    # people writing directly: asking, time-sensitive, or neither
    (
        "person asks (en)",
        mail("Nora Lindt", "nora.lindt@gmail.com", "Keys?", "Do you still have my spare keys?"),
        {"person", "asks"},
        {"automated", "receipt"},
    ),
    (
        "person asks (de, no question mark)",
        mail(
            "Jonas Weber", "j.weber@weber-bau.de", "Pläne", "Bitte schick mir die Pläne bis morgen."
        ),
        {"person", "asks"},
        {"automated"},
    ),
    (
        "person FYI (it)",
        mail(
            "Paolo Neri", "paolo.neri@libero.it", "Foto", "Ti mando le foto di ieri. Un abbraccio!"
        ),
        {"person"},
        {"asks", "urgent", "automated"},
    ),
    (
        "person says no reply is needed",
        mail("Ida Holm", "ida@holm.se", "Ladder", "Returned the ladder. No need to reply!"),
        {"person"},
        {"asks"},
    ),
    (
        "person, time-sensitive (fr)",
        mail("Luc Morel", "luc.morel@orange.fr", "Ce soir", "Le rendez-vous est annulé, urgent."),
        {"person", "urgent"},
        {"automated"},
    ),
    # who sends: systems, services on a person's behalf, bots, role addresses, lists
    (
        "no-reply address",
        mail("Acme Cloud", "no-reply@acmecloud.example", "Your storage is almost full"),
        {"automated", "noreply", "account"},
        {"person"},
    ),
    (
        "a person through a code host",
        mail(
            "Ravi Menon",
            "notifications@github.com",
            "[acme/api] Fix retry loop (PR #12)",
            "@you could you take a look?",
            headers={"List-Id": "acme/api <api.acme.github.com>"},
        ),
        {"person", "automated", "dev"},
        {"bot", "mailing_list"},
    ),
    (
        "a bot account",
        mail("renovate[bot]", "notifications@github.com", "[acme/api] Update dependency x"),
        {"bot", "automated", "dev"},
        {"person"},
    ),
    (
        "role address is not a person",
        mail("Nordwind HR", "hr@nordwind.example", "Reminder: expenses due Friday"),
        {"organisation"},
        {"person"},
    ),
    (
        "brand name at its own domain",
        mail("Zalon", "zalon@mail.zalon.example", "New in: winter coats", "Shop now"),
        {"automated", "promotion"},
        {"person"},
    ),
    (
        "mailing-list post by a person",
        mail(
            "Mia Sorensen",
            "mia@sorensen.dk",
            "Re: [dev-list] release plan",
            "I agree with the plan.",
            headers={"List-Id": "<dev-list.example.org>", "Precedence": "list"},
        ),
        {"person", "mailing_list", "bulk"},
        {"dev"},
    ),
    # bulk mail without headers: marketing and newsletters by their wording and addresses
    (
        "marketing without headers (es)",
        mail(
            "Moda Sol",
            "ofertas@mail.modasol.example",
            "Rebajas: hasta -40%",
            "Solo hasta el domingo.",
        ),
        {"promotion"},
        {"person", "receipt"},
    ),
    (
        "newsletter by its address (it)",
        mail("Il Foglio", "newsletter@ilfoglio.example", "Le notizie di martedì"),
        {"newsletter"},
        {"person"},
    ),
    (
        "newsletter headers",
        mail(
            "Tech Weekly",
            "hello@techweekly.example",
            "Tech Weekly #88",
            headers={"List-Unsubscribe": "<mailto:u@techweekly.example>"},
        ),
        {"newsletter", "bulk"},
        {"person"},
    ),
    # receipts, billing problems, shipping: specific kinds
    (
        "receipt worded as a status (en)",
        mail("Ledgerly", "billing@ledgerly.example", "Payment received: INV-88", "Thanks!"),
        {"receipt"},
        {"billing_problem", "shipping"},
    ),
    (
        "receipt (de)",
        mail("Baumarkt", "rechnung@baumarkt.example", "Ihre Rechnung Nr. 123"),
        {"receipt"},
        {"billing_problem"},
    ),
    (
        "billing problem, not a receipt (en)",
        mail("Hostly", "billing@hostly.example", "Payment failed for invoice 77", "Card declined."),
        {"billing_problem"},
        {"receipt"},
    ),
    (
        "billing problem (es)",
        mail(
            "Luz Norte",
            "no-reply@luznorte.example",
            "Recibo devuelto",
            "Tu recibo ha sido devuelto.",
        ),
        {"billing_problem"},
        {"receipt"},
    ),
    (
        "billing problem (fr)",
        mail("Banque Azur", "noreply@banqueazur.example", "Rejet de prélèvement"),
        {"billing_problem"},
        set(),
    ),
    (
        "billing problem (pt)",
        mail("Conselho", "financeiro@conselho.example", "Anuidade – boleto vencido"),
        {"billing_problem"},
        set(),
    ),
    (
        "shipping (pt)",
        mail("Correios", "rastreamento@correios.example", "Objeto saiu para entrega"),
        {"shipping"},
        {"receipt"},
    ),
    (
        "shipping beats the order it is part of (it)",
        mail("Shopit", "spedizione@shopit.example", "Il tuo ordine è stato spedito"),
        {"shipping"},
        {"receipt"},
    ),
    # security and account notices
    (
        "security alert (de)",
        mail("Kontoteam", "account-security-noreply@example.com", "Ungewöhnliche Anmeldeaktivität"),
        {"security"},
        {"account"},
    ),
    (
        "security alert (it)",
        mail("Servizi", "no-reply@servizi.example", "Avviso di sicurezza critico"),
        {"security"},
        set(),
    ),
    (
        "service notice",
        mail("Cloudy", "no-reply@cloudy.example", "Updates to our Terms of Service"),
        {"account"},
        {"security"},
    ),
    # travel
    (
        "travel change",
        mail(
            "Air Nord", "noreply@airnord.example", "Flight AN 12 is delayed", "New departure 17:55"
        ),
        {"travel", "travel_change"},
        {"receipt"},
    ),
    (
        "booking confirmation is a receipt",
        mail("Rail Sud", "noreply@railsud.example", "Your booking confirmation", "Train to Lyon"),
        {"receipt", "travel"},
        {"travel_change"},
    ),
    # work tools
    (
        "CI failure",
        mail("BuildBot", "builds@ci.example", "Build #2203 FAILED: api (develop)"),
        {"dev"},
        {"person"},
    ),
    (
        "project tracker",
        mail("Tracker", "jira@acme.atlassian.net", "[JIRA] (OPS-7) assigned to you"),
        {"tracker"},
        set(),
    ),
    (
        "monitoring alert",
        mail("Watcher", "alert@watch.example", "[Warn] Disk usage above 80% on db-2"),
        {"monitoring"},
        {"incident"},
    ),
    (
        "on-call page",
        mail("Pager", "no-reply@pager.example", "[#55] Triggered: api 5xx", "Escalation policy: A"),
        {"incident"},
        {"monitoring"},
    ),
    # other kinds
    (
        "recruiter writing personally",
        mail(
            "Jo Kim",
            "jo@talentfind.example",
            "Senior SRE role — quick chat?",
            "Would you be open to a chat about a Senior SRE role at a fintech?",
        ),
        {"person", "hiring"},
        set(),
    ),
    (
        "sales pitch",
        mail(
            "Sam Reyes",
            "sam@saasco.example",
            "Cut your cloud bill by 30%?",
            "Teams like yours save a lot. Do you have 20 minutes on Friday?",
        ),
        {"person", "sales"},
        set(),
    ),
    (
        "legal (pt)",
        mail("Cartório", "escrituras@cartorio.example", "Minuta da escritura"),
        {"legal"},
        set(),
    ),
    (
        "government by domain",
        mail("Tax Office", "noreply@tax.gov.example.gov", "New message in your inbox"),
        {"government"},
        set(),
    ),
    ("review", mail("Rated", "no-reply@rated.example", "Nouvel avis ★★★☆☆"), {"review"}, set()),
    (
        "conference (de)",
        mail("Messe", "info@messe.example", "Jetzt Ticket sichern mit Frühbucherrabatt"),
        {"event_invite"},
        set(),
    ),
    (
        "social network label",
        mail(
            "Linkto",
            "messages@linkto.example",
            "You have 3 new messages",
            labels=["CATEGORY_SOCIAL"],
        ),
        {"social"},
        set(),
    ),
    (
        "product update",
        mail("Drawly", "announcements@drawly.example", "Introducing Drawly Slides"),
        {"product_update"},
        set(),
    ),
    (
        "party size is a booking (fr)",
        mail("Anne Roy", "anne.roy@gmail.com", "Dîner", "Nous serions 12 pour dîner vendredi ?"),
        {"person", "booking", "asks"},
        set(),
    ),
    # spoofed senders
    (
        "look-alike domain asking to pay",
        mail("ParcelGo", "support@parcelgo-redelivery.example", "Customs fee", "Pay 1.99 here."),
        {"phishing"},
        set(),
    ),
    (
        "gift-card request",
        mail("Ana Boss", "ana.boss@gmail.com", "Favor", "Buy 5 gift cards and send me the codes."),
        {"phishing"},
        set(),
    ),
    # WhatsApp and calendar
    ("direct chat asks", chat("Mum", "¿Vienes a cenar hoy?"), {"person", "asks", "urgent"}, set()),
    (
        "group chatter",
        chat("Ben", "Who took the keys?", group="Flatmates"),
        {"person", "group_chatter"},
        {"asks"},
    ),
    (
        "group mention asks",
        chat("Ben", "@you can you bring the keys?", group="Flatmates", mention=True),
        {"person", "asks"},
        {"group_chatter"},
    ),
    (
        "moved meeting",
        {
            "source": "calendar",
            "event_type": "calendar.updated",
            "subject": "Sync",
            "calendar": {
                "start": "2026-11-11T10:00:00+00:00",
                "previous_start": "2026-11-10T10:00:00+00:00",
            },
        },
        {"calendar", "calendar_change"},
        {"person"},
    ),
]


@pytest.mark.parametrize(
    ("event", "kinds", "not_kinds"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_event_kinds(event: dict[str, Any], kinds: set[str], not_kinds: set[str]) -> None:
    found = classify(make_event(**event))
    assert kinds <= found.names, found.describe()
    assert not (not_kinds & found.names), found.describe()
    assert all(found.evidence(k) for k in found.names)  # every kind says why


def case(name: str) -> dict[str, Any]:
    return next(event for title, event, _, _ in CASES if title == name)


def test_evidence_names_what_was_seen() -> None:
    found = classify(make_event(**case("billing problem (es)")))
    assert any("recibo devuelto" in why for why in found.evidence("billing_problem"))
    assert classify(make_event(**case("no-reply address"))).evidence("noreply") == (
        "no-reply address no-reply@acmecloud.example",
    )


def test_spam_is_a_label_or_a_phishing_sender() -> None:
    assert is_spam(classify(make_event(labels=["SPAM"])))
    assert is_spam(classify(make_event(**case("look-alike domain asking to pay"))))
    assert not is_spam(classify(make_event()))
