"""Amounts of money in messages and in rule lines ("invoices over 300 euros")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.triage.classifier import classify
from engine.triage.classifier.amounts import amounts_in, limit_in, spelled_number
from engine.triage.classifier.text import fold
from engine.triage.rules.compile import compile_rules_text
from tests.factories import make_event

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Pague 1.800 € hoy", [1800.0]),
        ("R$ 96,000 em aberto", [96000.0]),
        ("a charge of $512.00", [512.0]),
        ("Frais de 214 $ impayés", [214.0]),
        ("wire €18,400 today", [18400.0]),
        ("total: 45,90 EUR", [45.9]),
        ("order #1234 of 12 items", []),
    ],
)
def test_an_amount_is_a_number_beside_a_currency(text: str, found: list[float]):
    assert amounts_in(fold(text)) == found


@pytest.mark.parametrize(
    ("said", "value"),
    [("300", 300), ("trescientos", 300), ("cinco mil", 5000), ("two hundred", 200), ("mil", 1000)],
)
def test_a_number_may_be_spelled_in_words(said: str, value: int):
    assert spelled_number(said) == value


def test_a_duration_is_no_amount():
    assert limit_in(fold("more than two hours before it starts")) is None


@pytest.mark.parametrize(
    "line",
    [
        "Facturas de la luz (Eléctrica Turia): solo si el importe pasa de trescientos euros.",
        "Electricity bills from Volta Power: only if the amount is over 300 euros.",
    ],
)
def test_an_only_if_amount_line_is_read_and_applied(line: str):
    (rule,) = compile_rules_text(f"## Custom rules\n- {line}\n")
    assert rule.understood, rule.unread
    assert rule.condition.min_amount == 300
    name = "Eléctrica Turia" if "Turia" in line else "Volta Power"
    sender = {"name": name, "address": "facturas@luz.example"}
    big = make_event(sender=sender, subject="Factura", text="Importe: 412,30 €")
    small = make_event(sender=sender, subject="Factura", text="Importe: 48,10 €")
    assert rule.applies(big, NOW, classify(big)) and rule.verdict(big, NOW, classify(big))
    assert rule.applies(small, NOW, classify(small))
    assert not rule.verdict(small, NOW, classify(small))
