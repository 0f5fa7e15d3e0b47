"""Times said the way people say them: hours in words ("zwischen acht und sechs", "half
negen", "nine till half five", "a partir de las once", "'s avonds na tienen"), a window
joined to days by "and" ("after 8pm and at the weekend": either), a window after "but not"
(the other hours or days), a day as an exception ("menos ao domingo"), and a window with
"nothing" after it ("Christmas Day and Boxing Day: nothing at all"). Names are made up."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.windows import find_window


@pytest.mark.parametrize(
    ("said", "start", "end"),
    [
        ("alleen op werkdagen tussen half negen en zes", time(8, 30), time(18, 0)),
        ("nur Mo–Fr zwischen acht und sechs", time(8, 0), time(18, 0)),
        ("zwischen halb sieben und halb neun", time(6, 30), time(8, 30)),
        ("only during working hours, nine till half five", time(9, 0), time(17, 30)),
        ("De noche, a partir de las once", time(23, 0), time(7, 0)),
        ("'s avonds na tienen", time(22, 0), time(7, 0)),
        ("Na half zeven 's avonds", time(18, 30), time(7, 0)),
        ("from ten at night to six in the morning", time(22, 0), time(6, 0)),
        ("dalle otto e mezza alle sei", time(8, 30), time(18, 0)),
    ],
)
def test_hours_said_in_words_are_the_window(said: str, start: time, end: time) -> None:
    _, window = find_window(said)
    assert window is not None
    assert (window.start, window.end) == (start, end)


@pytest.mark.parametrize(
    "said",
    [
        "de las tres empresas solo Lidia",  # three companies, not three o'clock
        "after two weeks only Lidia",
    ],
)
def test_a_number_of_things_is_no_hour(said: str) -> None:
    _, window = find_window(said)
    assert window is None


def _one(text: str) -> tuple[bool, str]:
    rule = compile_rules_text(text)[0]
    return rule.understood, explain_rule(rule).reading


@pytest.mark.parametrize(
    "line",
    [
        "Werk (@werkplaats.example) alleen op werkdagen tussen half negen en zes",
        "From ten at night to six in the morning: only Odile and Vigil Alarms",
        "'s Avonds na achten alleen Bram",
        "Depois das 20h só me avises se for a Teodora",
    ],
)
def test_lines_with_hours_in_words_are_understood(line: str) -> None:
    understood, reading = _one(f"## Custom rules\n- {line}\n")
    assert understood, reading
    assert "between" in reading.lower()


def test_only_after_a_window_stays_only() -> None:
    """ "Depois das 20h só me avises se …": "só" is the line's, not the window's."""
    _, reading = _one("## Custom rules\n- Depois das 20h só me avises se for a Teodora\n")
    assert reading.startswith("Between 20:00 and 07:00: notify anything only if from Teodora")


def test_hours_and_the_weekend_are_either() -> None:
    rule = compile_rules_text(
        "## Custom rules\n- Na half zeven 's avonds en in het weekend alleen Bram en Lieke\n"
    )[0]
    assert rule.understood
    assert rule.window is not None
    saturday_noon = datetime(2026, 12, 12, 12, 0, tzinfo=UTC)
    monday_evening = datetime(2026, 12, 14, 21, 0, tzinfo=UTC)
    monday_noon = datetime(2026, 12, 14, 12, 0, tzinfo=UTC)
    assert rule.window.contains(saturday_noon)
    assert rule.window.contains(monday_evening)
    assert not rule.window.contains(monday_noon)
    assert "or on weekends" in explain_rule(rule).reading


def test_hours_and_a_named_day_are_either() -> None:
    rule = compile_rules_text("## Custom rules\n- Dopo le 20 e la domenica: solo Ilaria\n")[0]
    assert rule.understood
    assert rule.window is not None
    assert rule.window.contains(datetime(2026, 12, 13, 11, 0, tzinfo=UTC))  # a Sunday
    assert not rule.window.contains(datetime(2026, 12, 14, 11, 0, tzinfo=UTC))


def test_a_window_after_but_not_is_the_other_hours() -> None:
    rule = compile_rules_text(
        "## Always notify\n- Personen die ik ken: ja, maar niet tussen 22:00 en 7:00\n"
    )[0]
    assert rule.window is not None
    assert (rule.window.start, rule.window.end) == (time(7, 0), time(22, 0))


def test_a_day_after_but_not_is_the_other_days() -> None:
    rule = compile_rules_text(
        "## Always notify\n- Vergaderingen die verplaatst worden — ja, maar niet op zondag\n"
    )[0]
    assert rule.understood
    assert rule.window is not None
    assert rule.window.days == frozenset(range(6))


def test_a_bare_never_before_a_window_is_the_decision() -> None:
    rule = compile_rules_text("## Custom rules\n- Anselm: never between 22:00 and 7:00\n")[0]
    assert rule.rule.section == "never"
    assert rule.window is not None
    assert (rule.window.start, rule.window.end) == (time(22, 0), time(7, 0))


def test_a_day_as_an_exception_is_read() -> None:
    understood, reading = _one(
        "## Always notify\n- A minha chefe, a Dra. Urbana Teles, pode sempre, menos ao domingo\n"
    )
    assert understood
    assert reading.endswith("except on Sundays")


def test_nothing_after_a_window_is_never() -> None:
    rules = compile_rules_text(
        "## Quiet time\nAfter nine at night and all day Sunday: only Odile. Christmas Day and "
        "Boxing Day: nothing at all, not even Odile.\n"
    )
    assert [r.rule.section for r in rules] == ["custom", "never"]
    assert all(r.understood for r in rules)
    never = rules[1]
    assert never.window is not None and never.window.dates == frozenset({(12, 25), (12, 26)})
    assert never.scope.anything


@pytest.mark.parametrize(
    "line", ["Nothing from 8pm to 7am, except Anselm", "Von 20 bis 7 Uhr gar nichts, außer Anselm"]
)
def test_nothing_in_a_window_except_someone_notifies_only_them(line: str) -> None:
    """In a custom section too: at night only Anselm, not everyone but Anselm."""
    rule = compile_rules_text(f"## Custom rules\n- {line}\n")[0]
    assert rule.understood
    assert rule.condition.names == ("Anselm",)
    assert rule.negated.empty


@pytest.mark.parametrize(
    ("line", "said"),
    [("Am Wochenende Ruhe", "On weekends"), ("Nachts nein", "Between 22:00 and 07:00")],
)
def test_a_no_after_a_window_is_never(line: str, said: str) -> None:
    rule = compile_rules_text(f"## Custom rules\n- {line}\n")[0]
    assert rule.rule.section == "never"
    assert explain_rule(rule).reading == f"{said}: never notify: anything"


def test_a_need_nothing_ending_is_never() -> None:
    rule = compile_rules_text("## Custom rules\n- Erinnerungen brauch ich keine.\n")[0]
    assert (rule.rule.section, explain_rule(rule).reading) == ("never", "Never notify: reminders")


def test_a_preposition_said_with_the_window_is_no_no() -> None:
    """ "só no horário comercial": "no" is "in the", not a Never during working hours."""
    rule = compile_rules_text(
        "## Custom rules\n- Email do trampo (@fabrica.example) só no horário comercial, 9h às "
        "18h de segunda a sexta.\n"
    )[0]
    assert rule.rule.section == "custom"
    assert rule.action == "only"
    assert rule.condition.within is not None
    assert rule.condition.within.days == frozenset(range(5))


@pytest.mark.parametrize(
    "line",
    [
        "Work email (@mill.example) only during working hours. Otherwise it can wait",
        "Work email (@mill.example) only during working hours, otherwise they can wait",
    ],
)
def test_otherwise_it_can_wait_after_only_is_the_only(line: str) -> None:
    rule = compile_rules_text(f"## Custom rules\n- {line}\n")[0]
    assert rule.understood, rule.unread
    assert rule.action == "only"
    assert not rule.condition.names
