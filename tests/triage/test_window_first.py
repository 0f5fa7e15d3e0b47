"""A line that says when it applies before its decision ("On weekends, don't …", "Di notte,
dalle 23 alle 7, …"), an alternative that names nobody ("Sofia or the kids"), and a role
said with who it is in passing ("Mis hijos, Pablo y Nerea") — issue 18, items 1 and 2."""

from __future__ import annotations

from datetime import time

import pytest

from engine.triage.rules.compile import CompiledRule, compile_rules_text
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.parse import CUSTOM, NEVER

WEEKEND = frozenset({5, 6})
EVERY_DAY = frozenset(range(7))


def _one(text: str) -> CompiledRule:
    found = compile_rules_text(f"{text}\n")
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("line", "section", "start", "end", "days", "reading"),
    [
        (
            "On weekends, don't notify me about newsletters",
            NEVER,
            None,
            None,
            WEEKEND,
            "On weekends: never notify: newsletters and digests",
        ),
        (
            "Di notte, dalle 22 alle 6, non avvisarmi di niente tranne che per mia madre",
            CUSTOM,
            time(22),
            time(6),
            EVERY_DAY,
            None,
        ),
        (
            "Ab 21 Uhr nur melden, wenn es von Jonas ist",
            CUSTOM,
            time(21),
            time(7),
            EVERY_DAY,
            "Between 21:00 and 07:00: notify anything only if from Jonas; otherwise don't",
        ),
        (
            "Por la noche, a partir de las 10, solo avísame si es de Marta.",
            CUSTOM,
            time(22),
            time(7),
            EVERY_DAY,
            "Between 22:00 and 07:00: notify anything only if from Marta; otherwise don't",
        ),
        (
            "Le week-end, ne me préviens que pour Chloé",
            CUSTOM,
            None,
            None,
            WEEKEND,
            "On weekends: notify anything only if from Chloé; otherwise don't",
        ),
    ],
)
def test_a_window_before_the_decision_is_kept_with_the_rule(
    line: str,
    section: str,
    start: time | None,
    end: time | None,
    days: frozenset[int],
    reading: str | None,
) -> None:
    rule = _one(line)
    assert rule.understood, explain_rule(rule).problem
    assert rule.rule.section == section
    assert rule.window is not None
    assert rule.window.days == days
    if start is not None:
        assert (rule.window.start, rule.window.end) == (start, end)
    if reading is not None:
        assert explain_rule(rule).reading == reading


def test_the_window_never_takes_the_restriction_with_it() -> None:
    """ "Nachts nur melden, wenn …" is an only-if line, not an Always line: "nur" is read."""
    rule = _one("Nachts nur melden, wenn es von Jonas ist")
    assert rule.rule.section == CUSTOM
    assert rule.action == "only"


@pytest.mark.parametrize(
    ("line", "unread"),
    [
        ("Always notify me about Sofia or the kids", ("kids",)),
        ("Always notify me about Tomas and my wife", ("wife",)),
        ("notify me about anything only if from Sofia or the children", ("children",)),
    ],
)
def test_a_role_beside_a_name_is_not_read_as_that_name(line: str, unread: tuple[str, ...]) -> None:
    """Naming Sofia does not account for "the kids": the line is flagged, not narrowed."""
    rule = _one(line)
    assert not rule.understood
    assert rule.unread == unread


def test_a_role_said_with_its_name_is_read_as_the_name() -> None:
    rule = _one("Always notify me about my husband Andrés")
    assert rule.understood
    assert explain_rule(rule).reading == "Always notify: from Andrés"


@pytest.mark.parametrize(
    ("defined", "used", "names"),
    [
        (
            "Mis hijas, Lucía y Alba",
            "Por la noche solo avísame si es de mis hijas.",
            "Lucía or Alba",
        ),
        ("Mia moglie Giulia", "Di notte avvisami solo se è mia moglie", "Giulia"),
        (
            "Anything from my son's school, Escola Riacho (@riacho.edu.br)",
            "On weekends only notify me about Mãe or the school.",
            "Escola Riacho",
        ),
    ],
)
def test_a_role_said_with_who_it_is_defines_it_for_the_other_lines(
    defined: str, used: str, names: str
) -> None:
    rules = compile_rules_text(f"## Always notify\n- {defined}\n\n## Custom rules\n- {used}\n")
    assert [r.understood for r in rules] == [True, True]
    assert names in explain_rule(rules[1]).reading
    assert rules[1].rule.text == used  # the line stays as the user wrote it


def test_a_role_that_is_no_person_defines_nothing() -> None:
    rules = compile_rules_text(
        "## Always notify\n- Our newsletter, Harbour Weekly\n\n## Custom rules\n"
        "- Only notify me about the newsletter if it mentions me\n"
    )
    assert rules[1].rule.reading == ""


@pytest.mark.parametrize(
    ("line", "chat"),
    [
        ("Always notify me about the family group (Casa Ortiz)", "Casa Ortiz"),
        ("Avísame siempre del grupo de la familia (Los Ortiz)", "Los Ortiz"),
        ("Never notify me about the school group (Year 4 Parents)", "Year 4 Parents"),
    ],
)
def test_a_group_named_in_an_aside_is_that_chat(line: str, chat: str) -> None:
    rule = _one(line)
    assert rule.understood
    assert rule.scope.chats == (chat,)


@pytest.mark.parametrize(
    "line", ["Never notify me about the family group", "mute the friends group"]
)
def test_a_group_said_by_who_is_in_it_is_flagged_not_every_group(line: str) -> None:
    """ "the family group" is one chat the line does not name: read as "every group message
    from a person" it would silence every group."""
    rule = _one(line)
    assert not rule.understood


@pytest.mark.parametrize(
    ("line", "topic"),
    [
        ("notify me about Mr Alves only if about the rent", "rent"),
        ("Senhorio (Sr. Alves): só se for sobre a renda", "renda"),
    ],
)
def test_a_condition_about_something_is_its_topic(line: str, topic: str) -> None:
    rule = _one(line)
    assert rule.understood
    assert topic in rule.condition.topics


@pytest.mark.parametrize(
    ("line", "reading"),
    [
        ("je veux être prévenu tout de suite quand Léa écrit", "Always notify: from Léa"),
        ("avvisami subito se scrive Anna", "Always notify: from Anna"),
    ],
)
def test_words_for_right_away_inside_a_line_change_nothing(line: str, reading: str) -> None:
    rule = _one(line)
    assert rule.understood
    assert explain_rule(rule).reading == reading


@pytest.mark.parametrize(
    ("line", "reading"),
    [
        # a name that is a function word elsewhere ("dan" is Dutch for "then")
        ("Anything from Dan (my husband)", "Always notify: anything from Dan"),
        ("Ma sœur Léa", "Always notify: from Léa"),  # "œ" is no word break
        ("Mein Mann Jörg", "Always notify: from Jörg"),  # the role is no part of the name
        ("Meine Tochter Lena", "Always notify: from Lena"),
        ("Frau Okonkwo", "Always notify: from Frau Okonkwo"),  # a title is
        ("Les publicités", "Always notify: marketing and promotions"),  # a plural
    ],
)
def test_names_roles_and_plurals_as_people_write_them(line: str, reading: str) -> None:
    (rule,) = compile_rules_text(f"## Always notify\n- {line}\n")
    assert rule.understood, explain_rule(rule).problem
    assert explain_rule(rule).reading == reading


def test_a_widening_that_names_another_sender_is_read_with_the_line() -> None:
    """ "…, auch diese ELSTER-Benachrichtigungen" was swallowed: the line read as the tax
    office alone, and ELSTER's mail was not covered."""
    rule = _one("Alles vom Finanzamt bitte sofort melden, auch diese ELSTER-Benachrichtigungen.")
    assert rule.understood
    assert explain_rule(rule).reading == "Always notify: anything from Finanzamt or ELSTER"
    small = _one("Anything from Kestrel Bank is important, even the small ones")
    assert explain_rule(small).reading == "Always notify: anything from Kestrel Bank"


def test_a_german_common_noun_is_no_name() -> None:
    """ "Diese automatischen Lesebestätigungen brauche ich nie" read as a Never line about a
    sender called "Diese Lesebestätigungen"; the noun is a kind of its own now (read receipts
    are automatic replies), and "Diese" names no one."""
    rule = _one("Diese automatischen Lesebestätigungen brauche ich nie, auch nicht von Kunden.")
    assert rule.rule.section == NEVER
    assert rule.scope.names == ()
    assert "auto_reply" in rule.scope.kinds


@pytest.mark.parametrize(
    ("line", "start", "end"),
    [
        ("Tussen 22:00 en 07:00 alleen melden als het van Femke is", time(22), time(7)),
        ("Van 23 tot 6 uur alleen melden als het van Femke is", time(23), time(6)),
        ("'s Nachts alleen melden als het van Femke is", time(22), time(7)),
        ("Na 20:00 nieuwsbrieven niet melden", time(20), time(7)),
    ],
)
def test_dutch_windows(line: str, start: time, end: time) -> None:
    rule = _one(line)
    assert rule.understood, explain_rule(rule).problem
    assert rule.window is not None
    assert (rule.window.start, rule.window.end) == (start, end)


@pytest.mark.parametrize(
    ("title", "section"),
    [
        ("Let these through", "always"),
        ("Pode me chamar", "always"),
        ("À laisser passer", "always"),
        ("Time-sensitive", "always"),
        ("Nem pensar", "never"),
        ("Que espere", "never"),
        ("Laat maar", "never"),
        ("Quiet hours", "custom"),  # what is quiet when is said by its lines
    ],
)
def test_headings_in_the_users_own_words(title: str, section: str) -> None:
    from engine.triage.rules.parse import classify_heading

    assert classify_heading(title) == section


@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("Instagram → nunca", NEVER),  # an arrow says it as a colon does
        ("Rechnungen: ja, immer", "always"),  # Portuguese "já" is no filler in German
        ("Amazon: only delivery notices", CUSTOM),
    ],
)
def test_decisions_said_after_an_arrow_or_a_colon(line: str, section: str) -> None:
    rule = _one(line)
    assert rule.understood, explain_rule(rule).problem
    assert rule.rule.section == section


def test_a_long_german_noun_is_no_name_in_any_line() -> None:
    rule = _one("Slack: nur Erwähnungen")
    assert not rule.understood
    assert rule.unread == ("Erwähnungen",)
    assert explain_rule(_one("Anything from Carl Jung is important")).reading == (
        "Always notify: anything from Carl Jung"
    )


@pytest.mark.parametrize(
    ("line", "chats"),
    [
        ('El grupo de WhatsApp "Padres 4ºA"', ("Padres 4ºA",)),  # was "from 4ºA in groups"
        ('El grupo de WhatsApp "Padres del cole"', ("Padres del cole",)),  # was a subject
        ("the WhatsApp group 'Year 5 Parents'", ("Year 5 Parents",)),  # not also "WhatsApp"
        ('Il gruppo WhatsApp "Condominio Via Nizza 3"', ("Condominio Via Nizza 3",)),
    ],
)
def test_a_quoted_group_after_its_whatsapp_words_is_that_chat(
    line: str, chats: tuple[str, ...]
) -> None:
    (rule,) = compile_rules_text(f"## Always notify\n- {line}\n")
    assert rule.understood
    assert rule.scope.chats == chats


def test_an_aside_after_an_instruction_in_prose_is_talk_and_a_list_goes_on() -> None:
    rules = compile_rules_text(
        "Trabajo desde casa. Las newsletters y las ofertas pueden esperar, no las necesito "
        "en el momento. Por la noche, entre las 23 y las 7, no me avises de nada salvo que sea "
        "mi hermano Luis.\n"
    )
    assert [(r.rule.section, r.understood) for r in rules] == [(NEVER, True), (CUSTOM, True)]
    assert rules[0].rule.text == "Las newsletters y las ofertas pueden esperar"
    assert rules[1].window is not None and rules[1].window.start == time(23)
    (listed,) = compile_rules_text(
        "Please don't ping me for GitHub notifications, for recruiters, or for anything else.\n"
    )
    assert not listed.understood  # "or for anything else" goes on with the list


def test_a_window_first_reads_the_rest_as_it_would_read_alone() -> None:
    """ "work email" after "On weekends," was read as a topic ("about work"); it is flagged,
    as it is without the window (the reader cannot know which mail is work mail)."""
    rule = _one("On weekends, don't notify me about work email unless it's from Alison.")
    assert not rule.understood
    assert rule.unread == ("work",)


@pytest.mark.parametrize(
    ("line", "reading"),
    [
        ("Meine Chefin, Dr. Anke Roth", "Always notify: from Dr. Anke Roth"),  # not "or Chefin"
        ("Ma compagne, Nadia", "Always notify: from Nadia"),
        ("O meu marido, Rui", "Always notify: from Rui"),  # "O" is an article, not "or"
        ("Mensagens da D. Fernanda (creche)", "Always notify: from D. Fernanda"),  # a title
        ("Kita Sonnenblume", "Always notify: from Kita Sonnenblume"),  # an institution's name
        ("Oma", "Always notify: from Oma"),  # a role said as a name stays one
    ],
)
def test_a_role_beside_a_name_is_no_second_sender(line: str, reading: str) -> None:
    (rule,) = compile_rules_text(f"## Always notify\n- {line}\n")
    assert rule.understood, explain_rule(rule).problem
    assert explain_rule(rule).reading == reading


@pytest.mark.parametrize(
    ("line", "chat", "reading_has"),
    [
        ('Appgroep "Familie Smit": stil, behalve als mama iets stuurt', "Familie Smit", "except"),
        ('Appgroep "Buurt West": alleen als iemand me noemt', "Buurt West", "mention you"),
    ],
)
def test_dutch_groups_exceptions_and_mentions(line: str, chat: str, reading_has: str) -> None:
    rule = _one(line)
    assert rule.understood, explain_rule(rule).problem
    assert chat in rule.scope.chats
    assert reading_has in explain_rule(rule).reading
    assert "Appgroep" not in explain_rule(rule).reading  # a word for the group, no sender


@pytest.mark.parametrize(
    "line",
    [
        "Always notify me about Studio Moretti, except their newsletter",
        "Dallo Studio Moretti voglio sempre tutto, tranne la loro newsletter",
    ],
)
def test_an_exception_to_an_always_line_is_left_out_not_made_the_only_thing(line: str) -> None:
    """It read as "notify from Studio Moretti only if newsletters": the one thing excepted
    was the one thing notified."""
    from engine.triage.rules.match import Match

    rule = _one(line)
    assert rule.understood
    assert rule.condition == Match()  # notified: everything it names …
    assert "newsletter" in rule.negated.kinds  # … except what it excepts


@pytest.mark.parametrize(
    ("line", "section", "start"),
    [
        ("Lieferando bitte nie mehr melden.", NEVER, None),  # read as an Always
        ("la nuit, de minuit à 7h, coupe tout sauf les alertes de sécurité", CUSTOM, time(0)),
        ("Zwischen Mitternacht und 6 Uhr nur melden, wenn es von Anna ist", CUSTOM, time(0)),
    ],
)
def test_negated_endings_and_midnight(line: str, section: str, start: time | None) -> None:
    rule = _one(line)
    assert rule.understood, explain_rule(rule).problem
    assert rule.rule.section == section
    if start is not None:
        assert rule.window is not None and rule.window.start == start


def test_a_type_word_joined_to_a_name_is_that_institution() -> None:
    """ "… en gemeente Amsterdam" names the municipality; "… and the school" names no one."""
    assert _one("Belastingdienst en gemeente Amsterdam: altijd").understood
    (school,) = compile_rules_text("## Always notify\n- Mãe, Pai or the school\n")
    assert school.unread == ("school",)


@pytest.mark.parametrize(
    ("line", "start", "end", "days"),
    [
        (
            "During office hours (8 to 5, Mon–Thu), never notify me about the 'Running Club' group",
            "08:00",
            "17:00",
            {0, 1, 2, 3},
        ),
        ("Während der Bürozeiten keine Nachrichten aus der Gruppe 'Chor' melden", "09:00", "18:00",
         {0, 1, 2, 3, 4}),
        ("En horario laboral (de 8 a 15, lunes a jueves) no me avises de Rafa", "08:00", "15:00",
         {0, 1, 2, 3}),
        ("Tijdens kantooruren geen meldingen van de groep 'Buren'", "09:00", "18:00",
         {0, 1, 2, 3, 4}),
        ("de 11 de la noche a 6 de la mañana no me avises de nada de Rafa", "23:00", "06:00",
         set(range(7))),
    ],
)  # fmt: skip
def test_working_hours_and_hours_said_with_the_part_of_the_day(
    line: str, start: str, end: str, days: set[int]
) -> None:
    rule = _one(line)
    assert rule.understood, explain_rule(rule).problem
    assert rule.rule.section == "never"
    window = rule.window
    assert window is not None
    assert (window.start.strftime("%H:%M"), window.end.strftime("%H:%M")) == (start, end)
    assert set(window.days) == days


def test_none_of_with_a_notify_verb_says_never() -> None:
    assert _one("Keine Mails von Jonas melden").rule.section == "never"
    assert _one("Geen mails van Jan melden").rule.section == "never"
    assert _one("Mails von Jonas: melden").rule.section == "always"


@pytest.mark.parametrize(
    ("line", "reading"),
    [
        ("Brightline invoices can wait",
         "Never notify: receipts, invoices and order confirmations from Brightline"),
        ("Brightline invoices and payment confirmations can wait",
         "Never notify: receipts, invoices and order confirmations from Brightline"),
        ("Receipts (Amazon, Uber): never",
         "Never notify: receipts, invoices and order confirmations; examples given: Amazon"),
        ("Tomas always gets through, whatever time it is", "Always notify: from Tomas"),
        ("messages from Ines are fine on weekdays", "On weekdays: always notify: from Ines"),
        ("recruiter messages on LinkedIn are fine during working hours (weekdays, 9 to 6)",
         "Between 09:00 and 18:00 on weekdays: always notify: recruiters and hiring from LinkedIn"),
    ],
)  # fmt: skip
def test_a_sender_before_its_kind_and_a_window_after_the_decision(line: str, reading: str) -> None:
    rule = _one(line)
    assert rule.understood, explain_rule(rule).problem
    assert explain_rule(rule).reading == reading


@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("Publicidad y boletines, nunca.", "never"),
        ("Mails von Jonas, niemals", "never"),
        ("Anything from Ana, always", "always"),
        ('Del grupo "Vecinos 4ºA" no quiero nada', "never"),
        ("Da Marco non voglio niente", "never"),
    ],
)
def test_a_decision_said_last_after_a_comma_or_as_wanting_nothing(line: str, section: str) -> None:
    rule = _one(line)
    assert rule.understood, explain_rule(rule).problem
    assert rule.rule.section == section
