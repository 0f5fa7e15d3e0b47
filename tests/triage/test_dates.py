"""Dates a line holds on, said the user's way in each language ("el 8 de diciembre", "du 24
décembre au 2 janvier", "vom 24. bis 26. Dezember", "1 e 8 de dezembro", "Christmas Day"),
read as a window of dates, shown in the reading, and matched on those days only. A date said
of a journey ("my flight on 21/12") is the journey's, not the line's. A place named once in
parentheses ("Escola (Agrupamento X): …") is what the word means in the other lines. Names
and places here are made up for these tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.dates import find_dates
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.match import Window
from engine.triage.rules.windows import find_window


@pytest.mark.parametrize(
    ("said", "dates"),
    [
        ("ni el 8 de diciembre que es fiesta", {(12, 8)}),
        ("Nos feriados de 1 e 8 de dezembro nada", {(12, 1), (12, 8)}),
        ("vom 24. bis 26. Dezember nur Ottilie", {(12, 24), (12, 25), (12, 26)}),
        ("Dal 20 al 22 dicembre non ci sono", {(12, 20), (12, 21), (12, 22)}),
        ("from December 30th to January 1st", {(12, 30), (12, 31), (1, 1)}),
        ("Christmas Day - only Ruaidhri", {(12, 25)}),
        ("op oudejaarsavond niks", {(12, 31)}),
        ("am 21.12. nichts", {(12, 21)}),
    ],
)
def test_dates_are_read_in_the_user_s_words(said: str, dates: set[tuple[int, int]]) -> None:
    _, found = find_dates(said)
    assert found == frozenset(dates)


@pytest.mark.parametrize(
    "said",
    [
        "Qualquer mudança no meu voo pra Recife do dia 19/12",
        "Tout ce qui touche à mon vol pour Dakar du 17 décembre",
        "24/7 support emails",
        "Messages de Noël Martin",
        "de 9 a 14h",
    ],
)
def test_what_is_no_date_of_the_line_is_left(said: str) -> None:
    assert find_dates(said)[1] is None


def test_days_and_dates_said_together_are_either() -> None:
    _, window = find_window("el fin de semana, ni el 8 de diciembre")
    assert window is not None
    tuesday_8th = datetime(2026, 12, 8, 11, 0, tzinfo=UTC)
    saturday = datetime(2026, 12, 12, 11, 0, tzinfo=UTC)
    wednesday = datetime(2026, 12, 9, 11, 0, tzinfo=UTC)
    assert window.contains(tuesday_8th) and window.contains(saturday)
    assert not window.contains(wednesday)


def test_a_night_on_a_date_belongs_to_the_date_it_started() -> None:
    window = Window(start=datetime(1, 1, 1, 22).time(), end=datetime(1, 1, 1, 6).time())
    window = Window(window.start, window.end, window.days, frozenset({(12, 24)}))
    assert window.contains(datetime(2026, 12, 25, 2, 0, tzinfo=UTC))
    assert not window.contains(datetime(2026, 12, 26, 2, 0, tzinfo=UTC))


def test_a_dated_line_says_its_dates_and_holds_on_them_only() -> None:
    rules = compile_rules_text(
        "## Custom rules\n"
        "- Escola (Agrupamento da Ribeira): só se for urgente\n"
        "- Nos feriados de 1 e 8 de dezembro nada da escola\n"
    )
    dated = rules[1]
    assert dated.understood, dated.unread
    reading = explain_rule(dated).reading
    assert "1 December" in reading and "8 December" in reading
    assert "Agrupamento da Ribeira" in reading


@pytest.mark.parametrize(
    "said",
    ['El grupo "Liceo 25 de Mayo 1998"', "el grupo Liceo 25 de Mayo 1998"],
)
def test_a_date_inside_a_name_is_the_name_s(said: str) -> None:
    assert find_dates(said)[1] is None
