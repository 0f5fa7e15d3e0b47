"""Constructions the language data writes once ("stop" + "pinging me" + "every time"), the
kinds a line names with a verb (what is shared with the user, the money they receive, a
parcel delivered, a journey that is late), a list of examples after a dash, and a decision
said first with its own negation ("Nunca avisar: …"): each read in the languages it is
written in, never with its decision turned round."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from engine.triage.classifier import classify
from engine.triage.decider import TriageDecider
from engine.triage.language import _composed, alternation, phrases
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.sections import ALWAYS, CUSTOM, NEVER
from tests.factories import make_event


def _one(text: str) -> object:
    (rule,) = compile_rules_text(f"{text}\n")
    return rule


def test_a_construction_is_every_way_of_saying_its_parts() -> None:
    raw = {
        "compose": {"predicates.never_start": [[["stop", "quit"], ["telling me"], ["", "when"]]]}
    }
    assert _composed(raw, "predicates.never_start") == [
        "stop telling me",
        "stop telling me when",
        "quit telling me",
        "quit telling me when",
    ]
    assert "stop pinging me" in phrases("predicates.never_start")


@pytest.mark.parametrize(
    "line",
    [
        "Quit notifying me each time a meeting gets rescheduled",
        "Deja de avisarme cada vez que me mueven una cita",
        "Hör bitte auf, mich bei jeder Terminverschiebung zu nerven",
        "Arrête de me prévenir à chaque fois qu'un rendez-vous est décalé",
        "Para de me avisar toda vez que uma reunião muda de hora",
        "Smetti di avvisarmi ogni volta che spostano un appuntamento",
    ],
)
def test_stopping_the_telling_is_never(line: str) -> None:
    rule = _one(line)
    assert rule.understood and rule.rule.section == NEVER  # type: ignore[attr-defined]
    assert rule.scope.calendar_change  # type: ignore[attr-defined]
    assert rule.scope.topics == ()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "line",
    ["Never notify: webinars", "never notify: webinars", "Nunca avisar: webinars"],
)
def test_a_negated_decision_said_first_is_never(line: str) -> None:
    rule = _one(line)
    assert rule.understood and rule.rule.section == NEVER  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("line", "examples"),
    [
        (
            "Rechnungen bitte immer melden – Gas, Wasser, Telefon, egal",
            ("Gas", "Wasser", "Telefon"),
        ),
        ("please always flag invoices – rent, water, broadband, whatever", ()),
    ],
)
def test_a_list_after_a_dash_gives_examples(line: str, examples: tuple[str, ...]) -> None:
    rule = _one(line)
    assert rule.rule.section == ALWAYS  # type: ignore[attr-defined]
    assert rule.understood  # type: ignore[attr-defined]
    assert "receipt" in rule.scope.kinds  # type: ignore[attr-defined]
    if examples:
        assert rule.scope.examples == examples  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "line",
    [
        "let me know whenever somebody shares a folder or a photo album with me",
        "cuando alguien me comparta un documento, avísame",
        "quando qualcuno mi condivide una cartella, avvisami",
    ],
)
def test_what_is_shared_with_the_user_is_a_kind(line: str) -> None:
    rule = _one(line)
    assert rule.understood and rule.rule.section == ALWAYS  # type: ignore[attr-defined]
    assert rule.scope.kinds == frozenset({"share"})  # type: ignore[attr-defined]
    assert not rule.scope.sender_kinds  # type: ignore[attr-defined]  # "someone" is who shares
    shared = make_event(
        sender={"name": "Ana (via Drive)", "address": "drive-shares@example.net"},
        subject="Folder shared with you: 'Trip 2027'",
        text="Ana Pires shared a folder with you. Open",
    )
    assert "share" in classify(shared).names


@pytest.mark.parametrize(
    ("line", "subject"),
    [
        ("avísame siempre que me llegue un bizum", "Has recibido un Bizum"),
        ("me avisa quando cair um pix", "Você recebeu um Pix de MARIA"),
        ("Pix recebido acima de mil reais: me avisa", "Você recebeu um Pix de MARIA"),
    ],
)
def test_money_received_is_a_kind(line: str, subject: str) -> None:
    rule = _one(line)
    assert rule.understood and rule.rule.section == ALWAYS  # type: ignore[attr-defined]
    assert rule.scope.kinds == frozenset({"money_in"})  # type: ignore[attr-defined]
    paid = make_event(
        sender={"name": "Banco", "address": "avisos@example.com"},
        subject=subject,
        text="R$ 1.500,00 na sua conta.",
    )
    assert "money_in" in classify(paid).names


def test_a_payment_app_said_as_who_writes_is_a_name() -> None:
    rule = _one("## Never notify\n- Notificaciones de Bizum")
    assert rule.understood  # type: ignore[attr-defined]
    assert rule.scope.names == ("Bizum",)  # type: ignore[attr-defined]
    assert not rule.scope.kinds  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "line",
    [
        "tell me when my package has been delivered",
        "mir bescheid sagen wenn ein Paket zugestellt wurde",
        "mi avvisi quando mi consegnano un pacco",
    ],
)
def test_a_parcel_delivered_is_a_shipping_notice(line: str) -> None:
    rule = _one(line)
    assert rule.understood and rule.rule.section == ALWAYS  # type: ignore[attr-defined]
    assert rule.scope.kinds == frozenset({"shipping"})  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "line",
    [
        "Iberia: solo si mi vuelo se retrasa o lo cancelan",
        "Iberia: only if my flight is delayed or cancelled",
        "Iberia: nur wenn mein Flug Verspätung hat oder ausfällt",
    ],
)
def test_a_journey_that_is_late_is_a_change_to_travel(line: str) -> None:
    rule = _one(line)
    assert rule.understood  # type: ignore[attr-defined]
    assert rule.condition.kinds == frozenset({"travel_change"})  # type: ignore[attr-defined]
    assert not rule.condition.any_of and not rule.condition.calendar_change  # type: ignore[attr-defined]
    moved = make_event(
        sender={"name": "Iberia", "address": "avisos@example.org"},
        subject="Información sobre tu reserva",
        text="Tu vuelo IB 3120 de mañana ahora sale a las 18:05.",
    )
    assert "travel_change" in classify(moved).names


def test_a_carriers_marketing_is_no_shipping_notice() -> None:
    promo = make_event(
        sender={"name": "UPS", "address": "news@ups.com"},
        subject="Our best offers this winter",
        text="Save on your next shipment.",
        labels=["INBOX", "CATEGORY_PROMOTIONS"],
        headers={"List-Unsubscribe": "<mailto:off@ups.com>"},
    )
    assert "shipping" not in classify(promo).names


@pytest.mark.parametrize(
    "line",
    [
        "Avísame del resumen diario de ventas de Tiendanube, pero solo en horario de oficina",
        "Le récap hebdomadaire de ma boutique Tiendanube, montre-le-moi, mais seulement en semaine",
        "Die Tiendanube-Berichte will ich sehen, aber nur während der Arbeitszeit",
    ],
)
def test_a_report_shown_only_in_a_window_said_after_its_decision(line: str) -> None:
    rule = _one(line)
    assert rule.understood  # type: ignore[attr-defined]
    assert rule.rule.section in (ALWAYS, CUSTOM)  # type: ignore[attr-defined]
    summary = make_event(
        sender={"name": "Tiendanube", "address": "reports@example.com"},
        subject="Resumen diario de tu tienda: 8 pedidos",
        text="Ayer tu tienda tuvo 8 pedidos.",
        headers={"Auto-Submitted": "auto-generated"},
    )
    assert "report" in classify(summary).names
    tuesday_morning = datetime(2026, 12, 1, 10, 30, tzinfo=UTC)
    sunday_night = datetime(2026, 12, 6, 23, 30, tzinfo=UTC)
    pool = [(summary, tuesday_morning), (summary, sunday_night)]
    inside, outside = TriageDecider.decide_in_code(pool, f"{line}\n")
    assert inside.notify and inside.rule
    assert not outside.notify


def test_a_compound_of_a_name_and_a_kind_names_who_sends_it() -> None:
    rule = _one("## Never notify\n- Lidl-Rechnungen")
    assert rule.understood  # type: ignore[attr-defined]
    assert rule.scope.kinds == frozenset({"receipt"})  # type: ignore[attr-defined]
    assert rule.scope.names == ("Lidl",)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("line", "night", "weekends"),
    [
        ("Client emails can wait till morning", True, False),
        ("Newsletters can wait until Monday", False, True),
        ("Los correos de clientes pueden esperar hasta la mañana", True, False),
    ],
)
def test_can_wait_until_says_when_the_line_holds(line: str, night: bool, weekends: bool) -> None:
    rule = _one(line)
    assert rule.understood and rule.rule.section == NEVER  # type: ignore[attr-defined]
    window = rule.window  # type: ignore[attr-defined]
    assert window is not None
    assert (window.start > window.end) is night
    assert (window.days == frozenset({5, 6})) is weekends


def test_can_wait_until_a_moment_it_cannot_place_is_flagged() -> None:
    rule = _one("Newsletters can wait until I'm back")
    assert not rule.understood  # type: ignore[attr-defined]


@pytest.mark.parametrize("line", ["Urlaub: gar nichts von der Kanzlei", "Vacaciones: nada de Jira"])
def test_a_period_of_the_user_s_life_as_a_label_is_flagged(line: str) -> None:
    rule = _one(line)
    assert not rule.understood  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "line",
    [
        "Parcelforce: only on the day it's actually arriving",
        "Zalando: solo cuando el paquete ya va con el repartidor",
        "GLS: nur am Zustelltag",
        "PostNL: alleen als ze vandaag geleverd worden",
    ],
)
def test_a_delivery_on_its_day_is_a_kind_of_its_own(line: str) -> None:
    rule = _one(f"## Custom rules\n- {line}")
    assert rule.understood  # type: ignore[attr-defined]
    assert rule.condition.kinds == frozenset({"delivery_today"})  # type: ignore[attr-defined]
    today = make_event(
        sender={"name": "Parcels", "address": "noreply@example.com"},
        subject="Your parcel is arriving today",
        text="It will be delivered today between 10:00 and 12:00.",
    )
    assert {"delivery_today", "shipping"} <= set(classify(today).names)


def test_phrases_make_one_tree_of_their_words() -> None:
    said = alternation(["stop telling me", "stop pinging me", "stop telling me when", "stop"])
    assert said == r"stop(?:,?\s+(?:pinging,?\s+me|telling,?\s+me(?:,?\s+when)?))?"
    said_i = alternation(["i", "i'm", "i am"])
    pattern = re.compile(f"^(?:{said_i})" + r"(?![\w'-])")
    found = [pattern.match(t) for t in ("i'm here", "i am here", "i here")]
    assert [m.group(0) if m else None for m in found] == ["i'm", "i am", "i"]


@pytest.mark.parametrize(
    "line",
    [
        "Ni se te ocurra avisarme de Vinted",
        "Sag mir nie Bescheid über Vinted",
        "Tell me never about Vinted",
    ],
)
def test_a_telling_said_with_no_is_never(line: str) -> None:
    assert _one(line).rule.section == NEVER  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("line", "chat"),
    [
        ("The Hillside Choir 2026-27 group", "Hillside Choir 2026-27"),
        ("Grupo Clase 4B", "Clase 4B"),
    ],
)
def test_a_group_s_name_keeps_its_season_or_class(line: str, chat: str) -> None:
    rule = _one(f"## Never notify\n- {line}")
    assert rule.understood  # type: ignore[attr-defined]
    assert chat in (*rule.scope.names, *rule.scope.chats)  # type: ignore[attr-defined]


def test_a_german_compound_bill_is_a_receipt_and_a_call_me_asks() -> None:
    bill = make_event(
        sender={"name": "Stadtwerke", "address": "billing@example.com"},
        subject="Ihre Jahresabrechnung und Abschlagsrechnung",
        text="Betrag 86,00 €.",
    )
    assert "receipt" in classify(bill).names
    mum = make_event(
        sender={"name": "Mamá", "address": "mama@example.org"},
        subject="Hola",
        text="Llámame cuando puedas, es sobre lo del sábado",
    )
    assert "asks" in classify(mum).names
