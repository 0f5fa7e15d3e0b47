"""Rule understanding: which lines are rules and what they decide (headings and lines in six
languages, lines that say their own decision), each line's understanding in plain words, and
the semantics of catch-alls, exclusions, specific kinds and alternatives."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from engine.triage.policy import decide_by_rules
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.explain import NOT_UNDERSTOOD, explain
from engine.triage.rules.parse import classify_heading, parse_rules
from tests.factories import make_event

NOW = datetime.fromisoformat("2026-11-10T12:00:00+01:00")  # a Tuesday, noon


def decide(rules: str, now: datetime = NOW, **event: Any) -> bool | None:
    """notify / drop by the rules, or None when no line decides (the heuristics would)."""
    verdict = decide_by_rules(make_event(**event), now, compile_rules_text(rules))
    return None if verdict is None else verdict.notify


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


FRIEND = mail("Ola Berg", "ola.berg@gmail.com", "Dinner?", "Are you free on Friday?")
RECEIPT = mail("Shoply", "orders@shoply.example", "Your order confirmation #551")
BILLING = mail("Hostly", "billing@hostly.example", "Payment failed", "Your card was declined.")
SECURITY = mail("Idp", "no-reply@idp.example", "New sign-in from an unknown device")
APP_NOTICE = mail("Boardly", "notifications@boardly.example", "Tom commented on your board")
SHIPPING = mail("ParcelCo", "no-reply@parcelco.example", "Your parcel is out for delivery")


# which lines are rules, under which decision -------------------------------------------------


@pytest.mark.parametrize(
    ("title", "section"),
    [
        ("Always notify", "always"),
        ("Never notify", "never"),
        ("Don't notify me about", "never"),
        ("Notify me", "always"),
        ("Custom rules", "custom"),
        ("Quiet hours", "custom"),
        ("Avísame", "always"),
        ("No me avises", "never"),
        ("Benachrichtigen", "always"),
        ("Nicht benachrichtigen", "never"),
        ("À signaler", "always"),
        ("À ignorer", "never"),
        ("Notificar", "always"),
        ("Não notificar", "never"),
        ("Avvisami", "always"),
        ("Da ignorare", "never"),
        ("Notification preferences", None),
    ],
)
def test_headings_in_six_languages(title: str, section: str | None) -> None:
    assert classify_heading(title) == section


def test_label_lines_open_sections_and_descriptive_lines_under_them_are_rules() -> None:
    text = (
        "Notify:\nStudents: my students asking me something.\n\n"
        "Ignore:\nJournals: calls for papers.\n"
    )
    rules = parse_rules(text).rules
    assert [(r.section, r.text.split(":")[0]) for r in rules] == [
        ("always", "Students"),
        ("never", "Journals"),
    ]


def test_lines_outside_the_sections_count_only_when_they_say_their_decision() -> None:
    text = (
        "# Notification preferences\n"
        "I'm a consultant; my calendar is my life.\n"
        "Work first: I freelance and my clients pay the rent.\n"
        "## Always notify\n- Emails from Ana Ruiz\n\n"
        "Never notify me about WhatsApp messages from my sister Lorena.\n"
        "Avísame siempre que llegue algo de la pediatra, la Dra. Ruiz (consulta-ruiz.es).\n"
        "Between 22:00 and 07:00, only notify me about messages from Andrés.\n"
        "Newsletters and digests — never notify.\n"
        "Bauherren: E-Mails von Bauherren und Kunden — immer benachrichtigen.\n"
    )
    rules = parse_rules(text).rules
    assert [r.section for r in rules] == ["always", "never", "always", "custom", "never", "always"]
    assert rules[1].text.startswith("Never notify me about WhatsApp")


# each line's understanding, in plain words -----------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "sentence"),
    [
        (
            "## Never notify\n- Newsletters and promotions\n",
            "Never notify: newsletters and digests, or marketing and promotions",
        ),
        (
            "## Always notify\n- Emails from Tomas Herrera (tomas@herrera.example)\n",
            "Always notify: emails from Tomas Herrera or tomas@herrera.example",
        ),
        (
            "## No me avises\n- Recibos y facturas: confirmaciones de pedido.\n",
            "Never notify: receipts, invoices and order confirmations",
        ),
        (
            "Zahlungsprobleme: Mahnungen, Rücklastschriften, abgelehnte Karten "
            "— benachrichtigen.\n",
            "Always notify: billing problems (failed payments, declined cards, overdue bills)",
        ),
        (
            "### À ignorer\n- Avis clients : nouveaux avis Google ou Yelp.\n",
            "Never notify: customer reviews; examples given: Google, Yelp",
        ),
        (
            "## Não notificar\n- Entregas: rastreamento de transportadoras.\n",
            "Never notify: shipping and delivery notices",
        ),
        (
            "## Da ignorare\n- Offerte, sconti e newsletter\n",
            "Never notify: newsletters and digests, or marketing and promotions",
        ),
        (
            "## Never notify\n- WhatsApp group messages unless someone mentions me\n",
            "Never notify: WhatsApp messages in groups — except WhatsApp messages from a person "
            "that mention you",
        ),
        (
            "Between 22:00 and 07:00, only notify me about messages from Andrés.\n",
            "Between 22:00 and 07:00: notify anything only if from Andrés; otherwise don't",
        ),
        (
            "Meetings: invitations and changes for meetings starting in the next 24 hours — "
            "notify; for anything later — never notify.\n",
            "Notify new invitations or changes only if starting within 24 hours; otherwise don't",
        ),
        (
            "## Don't notify\n- Other: anything that fits no other category.\n",
            "Never notify: anything — only when no other line applies",
        ),
        (
            "## Always notify\n- when the moon is blue and bananas\n",
            f"{NOT_UNDERSTOOD} (I can't read "
            "\u201cmoon\u201d, \u201cblue\u201d, \u201cbananas\u201d)",
        ),
        (
            "## Always notify\n- Anything from my boss\n",
            f"{NOT_UNDERSTOOD} (who is “my boss”? Add their name or e-mail address)",
        ),
    ],
)
def test_each_line_is_explained_in_plain_words(rules: str, sentence: str) -> None:
    (line,) = explain(rules)
    assert line.sentence == sentence


def test_explanations_are_plain_data_for_a_settings_page() -> None:
    (flagged,) = explain("## Always notify\n- when the moon is blue\n", capable_model=True)
    assert flagged.applied_by == "model" and flagged.sentence.startswith("⚠ not understood")
    obj = flagged.to_json()
    assert obj["understood"] is False and obj["line"] == 2 and obj["section"] == "always"
    assert obj["explanation"] == flagged.sentence
    (ok,) = explain("## Never notify\n- Receipts\n")
    assert ok.applied_by == "code" and ok.decision == "Never notify"


# semantics ------------------------------------------------------------------------------------

DESCRIPTIVE = """# Notification preferences
## Notify me
- Billing problems: failed payments, declined cards, overdue invoices.
- Security: sign-in alerts and password changes.
## Don't notify
- Receipts: order confirmations and paid invoices.
- Automated alerts: notifications from apps and tools. Billing problems and security alerts \
are not in this category.
- Other: anything that fits no other category.
"""


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (RECEIPT, False),  # its own line
        (BILLING, True),  # excluded from "automated alerts", named by its own line
        (SECURITY, True),
        (APP_NOTICE, False),  # automated alerts
        (FRIEND, False),  # fits no other line: the catch-all
    ],
    ids=["receipt", "billing", "security", "app notice", "friend"],
)
def test_a_descriptive_file(event: dict[str, Any], expected: bool) -> None:
    assert decide(DESCRIPTIVE, **event) is expected


def test_a_catch_all_with_a_condition_speaks_only_when_no_other_line_does() -> None:
    rules = (
        "Receipts: paid invoices — never notify.\n"
        "Everything else: anything that fits no other category — notify only if a person "
        "wrote it and it needs a reply from me; otherwise don't.\n"
    )
    assert decide(rules, **FRIEND) is True
    assert (
        decide(rules, **mail("Ola Berg", "ola.berg@gmail.com", "Photos", "Here you go!")) is False
    )
    assert decide(rules, **APP_NOTICE) is False
    assert decide(rules, **RECEIPT) is False


CLIENTES = "## Avísame\n- Clientes: correos de mis clientes (personas, no sistemas) con dudas.\n"


@pytest.mark.parametrize(
    ("rules", "event", "expected"),
    [
        (
            "## notify:\n- people: someone writing to me personally. do not use for automated "
            "notifications, even ones that address me by name.\n",
            mail("Ravi Menon", "notifications@github.com", "[a/b] Ravi commented (#3)", "Ravi?"),
            None,
        ),
        (
            "Systemmeldungen: automatische Meldungen von Software und Diensten — nie "
            "benachrichtigen. Nicht für Sicherheitswarnungen verwenden.\n",
            SECURITY,
            None,
        ),
        (
            "Systemmeldungen: automatische Meldungen von Software und Diensten — nie "
            "benachrichtigen. Nicht für Sicherheitswarnungen verwenden.\n",
            APP_NOTICE,
            False,
        ),
        (
            CLIENTES,
            mail("Boardly", "no-reply@boardly.example", "¿Tienes preguntas?", "¿Nos cuentas?"),
            None,
        ),
        (
            CLIENTES,
            mail("Marta Gil", "marta.gil@gmail.com", "Duda", "¿Me confirmas el plazo?"),
            True,
        ),
        (
            "### À ignorer\n- Factures et reçus : factures fournisseurs, sauf s'il y a un problème "
            "de paiement.\n",
            BILLING,
            None,
        ),
    ],
    ids=[
        "do not use for",
        "nicht für (security)",
        "nicht für (app)",
        "no sistemas",
        "personas",
        "sauf",
    ],
)
def test_what_a_line_does_not_cover_is_left_out(
    rules: str, event: dict[str, Any], expected: bool | None
) -> None:
    assert decide(rules, **event) is expected


def test_a_never_line_can_say_to_notify_its_exception() -> None:
    rules = (
        "### À ignorer\n- Groupe « Équipe » : les bavardages du groupe ; si quelqu'un me "
        "mentionne, signale-le.\n"
    )
    assert decide(rules, **chat("Manon", "Qui a les clés ?", group="Équipe")) is False
    assert decide(rules, **chat("Manon", "@Claire ça va ?", group="Équipe", mention=True)) is True


def test_a_generic_line_gives_way_to_a_line_naming_the_events_kind() -> None:
    rules = "Shipping: delivery updates — notify.\nAutomated notifications — never notify.\n"
    assert decide(rules, **SHIPPING) is True
    assert decide(rules, **APP_NOTICE) is False


def test_never_still_wins_over_always() -> None:
    rules = (
        "## Always notify\n- Anything from my boss Karen Holt\n"
        "## Never notify\n- Emails from GitHub, Jira or any other automated tool\n"
    )
    via_jira = mail("Karen Holt (Jira)", "jira@acme.atlassian.net", "[JIRA] assigned to you")
    assert decide(rules, **via_jira) is False
    assert decide(rules, **mail("Karen Holt", "karen.holt@acme.example", "Deck", "Slides?")) is True


def test_a_sender_after_from_narrows_the_kinds_before_it() -> None:
    rules = "CI: build failures and pull request reviews from GitHub — never notify.\n"
    ci = mail("GitHub", "notifications@github.com", "[a/b] Run failed: CI - main")
    two_factor = mail("GitHub", "noreply@github.com", "[GitHub] Two-factor authentication disabled")
    assert decide(rules, **ci) is False
    assert decide(rules, **two_factor) is None


def test_items_naming_other_senders_are_alternatives() -> None:
    rules = "Between 23:00 and 06:30, only notify me about flight changes and messages from Nina\n"
    night = datetime.fromisoformat("2026-11-10T23:30:00+01:00")
    delay = mail("Air Nord", "noreply@airnord.example", "Flight AN 12 is delayed")
    assert decide(rules, night, **delay) is True
    assert decide(rules, night, **chat("Nina", "Landed!")) is True
    assert decide(rules, night, **FRIEND) is False
    assert decide(rules, NOW, **FRIEND) is None  # outside the window


def test_a_threshold_on_how_many_people() -> None:
    rules = (
        "### À signaler\n"
        "- Réservations de groupe : demandes de réservation pour 8 personnes ou plus.\n"
        "### À ignorer\n- Réservations ordinaires : réservations pour moins de 8 personnes.\n"
    )
    big = mail("Bookit", "no-reply@bookit.example", "Nouvelle réservation : 10 personnes")
    small = mail("Bookit", "no-reply@bookit.example", "Nouvelle réservation : 2 pers. ce soir")
    assert decide(rules, **big) is True
    assert decide(rules, **small) is False


def test_a_parent_is_known_by_how_they_are_saved() -> None:
    rules = "## Avísame\n- Familia: mensajes de WhatsApp de mi madre o de Javi.\n"
    assert decide(rules, **chat("Mamá", "¿Comes en casa?")) is True
    assert decide(rules, **chat("Javi", "Llego tarde")) is True
    assert decide(rules, **chat("Pedro", "Hola")) is None


def test_time_windows_are_read_in_the_users_time_zone() -> None:
    rules = "## Custom rules\n- Between 22:00 and 07:00 only notify me about messages from Ana\n"
    late = datetime.fromisoformat("2026-11-10T23:05:00+01:00")
    written_elsewhere = dict(FRIEND, time="2026-11-10T17:05:00-05:00")  # 23:05 for the user
    assert decide(rules, late, **written_elsewhere) is False


@pytest.mark.parametrize(
    ("rules", "sentence"),
    [
        (
            "## Reglas especiales\n- Entre las 23:00 y las 07:00 solo avísame de mensajes de "
            "Laura Pérez\n",
            "Between 23:00 and 07:00: notify anything only if from Laura Pérez; otherwise don't",
        ),
        (
            "## Reglas\n- Invitaciones de calendario solo si empiezan en las próximas 24 horas\n",
            "Notify new invitations only if starting within 24 hours; otherwise don't",
        ),
        (
            "## Règles\n- Le week-end, seulement les messages de ma mère\n",
            "On weekends: notify anything only if from your mother (saved as Mum, Mom, Mummy, "
            "…); otherwise don't",
        ),
        (
            "## Mai\n- Notifiche automatiche di app e servizi, tranne i problemi di pagamento\n",
            "Never notify: from an automated sender — except billing problems (failed payments, "
            "declined cards, overdue bills)",
        ),
        (
            "## Never notify\n- WhatsApp messages from unknown numbers\n",
            f"{NOT_UNDERSTOOD} (who is “unknown numbers”? Name them or their address)",
        ),
        (
            "## Custom rules\n- Weekdays 9-17 only: emails from clients\n",
            "Between 09:00 and 17:00 on weekdays: notify anything only if emails from a person; "
            "otherwise don't",
        ),
        (
            "People: direct messages from people asking me for a reply — notify.\n",
            "Always notify: from a person writing to you directly asking you something",
        ),
    ],
)
def test_conditional_lines_in_other_languages_and_shapes(rules: str, sentence: str) -> None:
    (line,) = explain(rules)
    assert line.sentence == sentence


def test_a_line_that_says_only_if_is_conditional_even_when_it_starts_with_notify() -> None:
    rules = "## Always notify\n- Notify me about invoices only if they are overdue\n"
    (line,) = explain(rules)
    assert line.section == "custom" and line.decision == "Notify only if"
    receipt = mail("Ledgerly", "billing@ledgerly.example", "Your invoice INV-3 is available")
    assert decide(rules, **receipt) is False


def test_conditions_joined_by_or_are_alternatives() -> None:
    rules = (
        "## Custom rules\n"
        "- Group chats: notify me only when someone mentions me or asks a question\n"
    )
    asked = chat("Ben", "Is anyone free tonight?", group="Flat")
    assert decide(rules, **asked) is False  # a question to the group, not to the user
    assert decide(rules, **chat("Ben", "@you hi", group="Flat", mention=True)) is True
    assert decide(rules, **chat("Ben", "hi all", group="Flat")) is False


def test_emails_that_need_no_reply_are_a_persons_fyis() -> None:
    rules = "## Don't notify\n- FYI: emails that don't need a response.\n"
    assert (
        decide(rules, **mail("Ola Berg", "ola@berg.example", "Photos", "Here they are.")) is False
    )
    assert decide(rules, **FRIEND) is None  # asks something
    assert decide(rules, **SECURITY) is None  # a system's notice is not a person's FYI
