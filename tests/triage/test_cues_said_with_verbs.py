"""A failed charge and a sign-in the user did not make, as services write them in each
language, often with a verb rather than a fixed phrase ("we could not collect", "konden niet
afschrijven", "a été rejeté"). Senders and wordings are made up for these tests."""

from __future__ import annotations

import pytest

from engine.triage.classifier import classify
from tests.factories import make_event


def _mail(subject: str, text: str) -> dict[str, object]:
    return {
        "sender": {"name": "Servicio", "address": "avisos@servicio-ejemplo.example"},
        "subject": subject,
        "text": text,
    }


@pytest.mark.parametrize(
    ("subject", "text"),
    [
        ("Sobre tu cuota", "No hemos podido cobrar la cuota de diciembre. Actualiza tu tarjeta."),
        ("Aviso", "El pago de tu pedido ha sido rechazado por tu banco."),
        ("Einzug", "Der Einzug Ihrer Rechnung war nicht möglich."),
        ("Lastschrift", "Ihre Lastschrift über 20 EUR wurde zurückgebucht."),
        ("Échec du prélèvement", "Merci de régulariser votre situation."),
        ("Votre facture", "Le prélèvement de 30 € a été rejeté par votre banque."),
        ("Mensalidade", "Não conseguimos cobrar a sua mensalidade deste mês."),
        ("Aviso", "O débito direto de 20 € foi devolvido."),
        ("Carta", "Il pagamento di 40 EUR presso il negozio è stato rifiutato."),
        ("Betaling mislukt", "Controleer je rekening."),
        ("Premie", "We konden de premie van december niet afschrijven."),
        ("Auto-debit failed", "Your bill could not be processed due to insufficient balance."),
    ],
)
def test_a_failed_charge_is_a_billing_problem(subject: str, text: str) -> None:
    assert classify(make_event(**_mail(subject, text))).has("billing_problem")


@pytest.mark.parametrize(
    ("subject", "text"),
    [
        ("Solicitud de restablecimiento de contraseña", "Si no has sido tú, revisa tu cuenta."),
        ("Nuevo acceso desde un dispositivo desconocido", "Se accedió a tu cuenta hoy."),
        ("Demande de réinitialisation du mot de passe", "Si ce n'est pas vous, contactez-nous."),
        ("Neues Gerät registriert", "Falls Sie das nicht waren, sperren Sie Ihren Zugang."),
        ("Tentativa de início de sessão bloqueada", "Se não foi você, altere a palavra-passe."),
        ("Beveiligingsmelding", "Er is ingelogd op je account vanaf een nieuw apparaat."),
        ("Accesso da un dispositivo sconosciuto", "Se non sei stato tu, cambia la password."),
    ],
)
def test_a_sign_in_or_reset_is_a_security_alert(subject: str, text: str) -> None:
    assert classify(make_event(**_mail(subject, text))).has("security")


@pytest.mark.parametrize(
    ("subject", "text"),
    [
        ("Tu pedido ha sido enviado", "Llegará mañana."),
        ("Ihre Rechnung", "Der Betrag wird am 5. per Lastschrift eingezogen."),
        ("Votre facture", "Le prélèvement de 30 € sera effectué le 5."),
        ("Je factuur", "We schrijven het bedrag over vijf dagen af."),
    ],
)
def test_an_ordinary_bill_is_no_billing_problem(subject: str, text: str) -> None:
    assert not classify(make_event(**_mail(subject, text))).has("billing_problem")


@pytest.mark.parametrize(
    ("subject", "text"),
    [
        ("Zugausfall: ICE 1000 heute", "Ihre Verbindung nach Köln fällt aus."),
        ("Il tuo treno è soppresso", "A causa dello sciopero il treno FR 1000 è soppresso."),
        ("Vertraging op uw reis", "Uw trein naar Utrecht heeft 20 minuten vertraging."),
        ("Zugausfall: ICE 1000", "Ihre Rückfahrt nach Köln fällt aus."),
        ("Your flight to Lisbon is delayed", "Your flight now departs at 18:05."),
    ],
)
def test_a_change_to_a_trip_is_told(subject: str, text: str) -> None:
    from datetime import UTC, datetime

    from engine.triage.policy import heuristic

    event = make_event(**_mail(subject, text), headers={"Auto-Submitted": "auto-generated"})
    assert classify(event).has("travel_change")
    assert heuristic(event, datetime(2026, 12, 7, 9, tzinfo=UTC)).notify


@pytest.mark.parametrize(
    ("subject", "text"),
    [
        ("Compra recusada", "Sua compra de R$ 45,00 foi recusada por limite insuficiente."),
        ("Overdraft warning", "Your current account is €84.10 overdrawn."),
    ],
)
def test_a_refused_purchase_or_an_overdraft_is_a_billing_problem(subject: str, text: str) -> None:
    assert classify(make_event(**_mail(subject, text))).has("billing_problem")


def test_a_disruption_on_a_line_is_not_the_users_trip() -> None:
    from datetime import UTC, datetime

    from engine.triage.policy import heuristic

    event = make_event(
        **_mail(
            "Storing Utrecht–Amersfoort", "Tussen Utrecht en Amersfoort rijden minder treinen."
        ),
        headers={"Auto-Submitted": "auto-generated"},
    )
    assert not heuristic(event, datetime(2026, 12, 7, 9, tzinfo=UTC)).notify
