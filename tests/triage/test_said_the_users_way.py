"""Readings of what people write the way they write it: an "only if" that opens a line is
about its own subject; hours in words and with a spaced "h"; a family title or a short
first name before a name; a group's name without its year; words that describe an address
in parentheses; a decision after an arrow and before a list."""

from __future__ import annotations

from datetime import time

import pytest

from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.match import _name_hit, _same_chat
from engine.triage.rules.windows import find_window


def test_an_only_if_that_opens_a_line_is_about_its_subject() -> None:
    """ "only if a recruiter mentions a salary" decides recruiters' messages, not all."""
    (rule,) = compile_rules_text("only if a recruiter mentions a salary\n")
    assert not rule.scope.anything and "hiring" in rule.scope.kinds
    assert "salary" in rule.condition.topics


@pytest.mark.parametrize(
    "line",
    [
        "## Custom rules\n- Only notify me about emails from Anselm\n",  # nothing else at all
        "Before 8am only tell me about things from the Family group.\n",  # the time is it
        "Only notify me if someone mentions me\n",  # anyone is no subject
    ],
)
def test_an_only_that_restricts_everything_stays_so(line: str) -> None:
    (rule,) = compile_rules_text(line)
    assert rule.scope.anything or rule.window is not None


@pytest.mark.parametrize(
    ("said", "start", "end"),
    [
        ("From ten at night to six in the morning", time(22, 0), time(6, 0)),
        ("Après 22 h et avant 6 h", time(22, 0), time(6, 0)),
        ("de 8 h 30 à 17 h", time(8, 30), time(17, 0)),
        ("ma solo lun–ven 8:30–18:30.", time(8, 30), time(18, 30)),
        ("só em dia útil das 8h às 18h", time(8, 0), time(18, 0)),
    ],
)
def test_hours_as_people_write_them(said: str, start: time, end: time) -> None:
    _, window = find_window(said)
    assert window is not None and (window.start, window.end) == (start, end)


def test_two_and_five_said_without_a_time_of_day_are_no_hours() -> None:
    assert find_window("one of the two")[1] is None


@pytest.mark.parametrize(
    ("said", "sender", "same"),
    [
        ("Auntie Bev", "Bev Hollis", True),
        ("Coach Marisol", "Marisol Vega", True),
        ("Fede Carrizo", "Federico Carrizo", True),
        ("Fede Carrizo", "Fede Lopez", False),
    ],
)
def test_titles_and_short_first_names(said: str, sender: str, same: bool) -> None:
    assert _name_hit(said, sender) is same


@pytest.mark.parametrize(
    ("said", "chat", "same"),
    [
        ("Year 11 Reunion", "Year 11 Reunion 2016 🎉", True),
        ("Book Club", "Book Club Organisers", False),
        ("Family", "Family 2016", False),
    ],
)
def test_a_group_named_without_its_year(said: str, chat: str, same: bool) -> None:
    assert _same_chat(said, chat) is same


def test_words_before_an_address_in_parentheses_describe_it() -> None:
    (rule,) = compile_rules_text(
        "## Always notify\n- Direction de l'école (direction@lycee-exemple.fr) : toujours\n"
    )
    assert rule.understood, rule.unread


def test_a_decision_after_an_arrow_before_its_list() -> None:
    (rule,) = compile_rules_text("VIP → notifica sempre: Ettore Bassani (il capo), Gemma\n")
    assert rule.rule.section == "always" and rule.understood
    assert "Ettore Bassani" in explain_rule(rule).reading


def test_the_post_office_alone_is_the_company_not_every_email() -> None:
    """ "Correios: não" names the post office; read as every e-mail it would silence them
    all. Said of whose ("Correos de mi jefa") the word is the source."""
    (rule,) = compile_rules_text("Correios: não\n")
    assert rule.rule.section == "never" and "Correios" in rule.scope.names
    (mine,) = compile_rules_text("## Siempre\n- Correos de Ana Ruiz\n")
    assert "email" in mine.scope.sources and "Correos" not in mine.scope.names


def test_hours_told_before_an_only_are_when_it_holds() -> None:
    """ "9pm to 4:30am I'm asleep. Only Dad and Kirra get through.": the "only" holds at
    those hours, not all day; the file keeps the user's words."""
    (rule,) = compile_rules_text("9pm to 4:30am I'm asleep. Only Tobias and Kirra get through.\n")
    assert rule.rule.text == "Only Tobias and Kirra get through."
    assert rule.window is not None and (rule.window.start, rule.window.end) == (
        time(21, 0),
        time(4, 30),
    )


@pytest.mark.parametrize(
    ("line", "examples"),
    [
        ("Mute the Ashby Family group unless it's urgent, like someone's ill", "someone's ill"),
        (
            "Silencia el grupo Portal 9 salvo que sea algo urgente tipo cortes de luz",
            "cortes de luz",
        ),
    ],
)
def test_examples_of_a_condition_are_shown_not_read_as_more(line: str, examples: str) -> None:
    (rule,) = compile_rules_text(f"{line}\n")
    assert rule.understood, rule.unread
    assert rule.condition.urgent and examples in rule.condition.examples


def test_a_like_that_gives_no_example_stays_in_the_condition() -> None:
    (rule,) = compile_rules_text("Only notify me about emails if they look like a real person\n")
    assert not rule.condition.examples


@pytest.mark.parametrize(
    ("line", "reading"),
    [
        ("Todo lo de mamá, por WhatsApp o por correo", "from your mother"),
        ("Ma blonde Rosalie pis ma fille Élodie", "from Rosalie or Élodie"),
        ('Grupos de WhatsApp, tirando o "Grupo Plantão Norte"', "except from Grupo Plantão Norte"),
        ("Le groupe WhatsApp « Parents 5e A », sauf si on m'identifie", "except WhatsApp"),
    ],
)
def test_words_said_the_users_way_are_read(line: str, reading: str) -> None:
    """A parent after "from" ("de mamá"), Québec's "pis" for "and" and "ma blonde" for a
    partner, Portuguese "tirando" for "except", "on m'identifie" for a mention."""
    (rule,) = compile_rules_text(f"## Always notify\n- {line}\n")
    assert rule.understood, rule.unread
    assert reading in explain_rule(rule).reading


def test_not_even_a_mention_keeps_the_whole_group_silent() -> None:
    """ "nooit, ook niet als ik genoemd word": a Never that holds even when the user is
    mentioned, not a Never on the mentions alone."""
    (rule,) = compile_rules_text(
        '## Never notify\n- De appgroep "Buurt Oosterpark" — nooit, ook niet als ik genoemd word\n'
    )
    assert rule.understood
    assert "mention" not in explain_rule(rule).reading


def test_until_further_notice_is_no_exception() -> None:
    """German "bis auf" is "except", but "bis auf Weiteres" is "until further notice"."""
    (rule,) = compile_rules_text(
        "## Never notify\n- Bis auf Weiteres keine Mails von Firma Holz (@holz.example)\n"
    )
    assert "except" not in explain_rule(rule).reading
