"""Events named by what they are called, changes to them said with a verb, a "nothing" or a
"no" before what a line is about, and the verbs of a message arriving: each read in every
language it is written in, never with its decision turned round."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.sections import ALWAYS, NEVER
from tests.factories import make_event


def _one(line: str) -> object:
    (rule,) = compile_rules_text(f"- {line}\n")
    return rule


@pytest.mark.parametrize(
    ("line", "topic"),
    [
        ("no me avises cuando cancelen las clases de pilates", "pilates"),
        ("Never notify me when the yoga class is cancelled", "yoga"),
        ("Quand le point hebdo est déplacé, pas besoin de me prévenir", "hebdo"),
        ("Quando annullano la lezione di inglese non serve che mi avvisi", "inglese"),
        ("Ne me notifie plus les annulations de cours", "cours"),
        ("Wenn das Training abgesagt wird, nicht melden", "Training"),
    ],
)
def test_a_change_to_an_event_named_by_what_it_is_called(line: str, topic: str) -> None:
    rule = _one(line)
    assert rule.understood and rule.rule.section == NEVER  # type: ignore[attr-defined]
    assert rule.scope.calendar_change  # type: ignore[attr-defined]
    assert rule.scope.topics == (topic,)  # type: ignore[attr-defined]


def test_meetings_alone_are_every_event_not_a_topic() -> None:
    rule = _one("tell me when meetings are moved")
    assert rule.understood and rule.rule.section == ALWAYS  # type: ignore[attr-defined]
    assert rule.scope.topics == ()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "line",
    [
        "Vom Sportverein bitte nichts mehr melden",
        "Sportverein: nichts mehr melden",
        "Keine Newsletter",
        "Geen nieuwsbrieven van Bol",
        "Nessuna newsletter",
        "Aucune pub",
        "Ningún correo de LinkedIn",
        "Am Wochenende keine Erinnerungen an Termine bitte",
        "Keine Erinnerungen an Termine am Wochenende",
    ],
)
def test_nothing_or_no_before_the_subject_is_never(line: str) -> None:
    rule = _one(line)
    assert rule.rule.section == NEVER, rule  # type: ignore[attr-defined]
    assert not rule.scope.anything  # type: ignore[attr-defined]
    assert "Nessuna" not in rule.scope.names  # type: ignore[attr-defined]


def test_everything_before_the_telling_stays_always() -> None:
    rule = _one("Von Lisa will ich alles melden")
    assert rule.rule.section == ALWAYS  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Préviens-moi toujours quand je reçois un mail de Camille Lefèvre", "Camille Lefèvre"),
        ("Avísame siempre que recibe correo de Marta Gil", "Marta Gil"),
        ("Sag mir immer Bescheid, wenn ich eine Mail von Jonas Weber bekomme", "Jonas Weber"),
        ("Dallo Studio Moretti voglio sempre tutto", "Studio Moretti"),
    ],
)
def test_the_verbs_of_a_message_arriving_say_no_more_than_the_message(line: str, name: str) -> None:
    rule = _one(line)
    assert rule.understood and rule.rule.section == ALWAYS  # type: ignore[attr-defined]
    assert rule.scope.names == (name,)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("rules", "names", "kinds"),
    [
        # a label that names a sender before one kind: that sender's messages of that kind
        ("## Never notify\n- Amazon: shipping notices\n", ("Amazon",), {"shipping"}),
        ("## Never notify\n- CTT: avisos de entrega\n", ("CTT",), {"shipping"}),
        # a kind said with "de" before the senders is what they send, not one more sender
        (
            "## Never notify\n- Confirmações de encomenda da Worten e do Continente\n",
            ("Worten", "Continente"),
            {"shipping"},
        ),
        # a sender said right after the kind sends it; it is no example
        ("## Never notify\n- Les confirmations de commande Vinted\n", ("Vinted",), {"receipt"}),
    ],
)
def test_a_sender_beside_a_kind_narrows_it(
    rules: str, names: tuple[str, ...], kinds: set[str]
) -> None:
    (rule,) = compile_rules_text(rules)
    assert rule.understood
    assert rule.scope.names == names
    assert kinds <= set(rule.scope.kinds)
    assert not rule.scope.sender_kinds - {"person", "automated"}
    assert rule.scope.examples == ()


def test_a_label_over_a_listed_category_stays_a_title() -> None:
    (rule,) = compile_rules_text(
        "- Vendors: sales outreach, partnership pitches and webinar invitations — never notify.\n"
    )
    assert rule.scope.names == () and rule.scope.any_of == ()


def test_a_kind_after_a_person_stays_one_more_sender() -> None:
    (rule,) = compile_rules_text("## Always notify\n- Nachrichten von Anna und vom Paketdienst\n")
    assert rule.scope.names == ("Anna",)
    assert "shipping" in rule.scope.sender_kinds


def test_a_quoted_word_in_lower_case_is_what_the_message_says() -> None:
    (rule,) = compile_rules_text('## Never notify\n- DocuSign "completed" emails: no\n')
    assert rule.scope.names == ("DocuSign",)
    assert rule.scope.subject_phrases == ("completed",)


def test_after_an_evening_hour_goes_on_through_the_night() -> None:
    (rule,) = compile_rules_text("- After 9pm, only emails from Dana get through.\n")
    assert rule.window is not None
    assert (rule.window.start, rule.window.end) == (time(21), time(7))


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("Reviews: new Google or Yelp reviews, good or bad", ("Google", "Yelp")),
        ("Project tracker: Jira and Linear issue updates — never notify.", ("Jira", "Linear")),
    ],
)
def test_names_listed_before_a_kind_all_send_it(line: str, names: tuple[str, ...]) -> None:
    (rule,) = compile_rules_text(f"## Never notify\n- {line}\n")
    assert set(rule.scope.names) == set(names)
    assert rule.scope.examples == ()


def test_a_senders_confirmations_are_what_the_message_must_say() -> None:
    (rule,) = compile_rules_text("## Never notify\n- ShowingTime confirmations: no\n")
    assert rule.understood and rule.scope.names == ("ShowingTime",)
    assert "confirmed" in rule.scope.topics and rule.scope.topic_min == 1


@pytest.mark.parametrize(
    ("rules", "sources"),
    [
        ("## Always notify\n- Mia sorella Chiara, anche su WhatsApp\n", frozenset()),
        (
            "## Always notify\n- Anything from Aiko: aiko@example.org or WhatsApp "
            "+81 90 4411 2783\n",
            frozenset({"email", "whatsapp"}),
        ),
    ],
)
def test_a_channel_said_as_one_more_restricts_nothing(rules: str, sources: frozenset[str]) -> None:
    (rule,) = compile_rules_text(rules)
    assert rule.understood and rule.scope.sources == sources


def test_after_my_a_title_that_is_a_role_says_who_she_is() -> None:
    (rule,) = compile_rules_text("## Always notify\n- Meine Frau Petra\n")
    assert rule.scope.names == ("Petra",)
    (rule,) = compile_rules_text("## Always notify\n- Frau Okonkwo\n")
    assert rule.scope.names == ("Frau Okonkwo",)


def test_an_aside_that_says_when_the_user_reads_is_no_window() -> None:
    (rule,) = compile_rules_text(
        '## Never notify\n- Grupo "Condomínio Jardim das Flores" (leio tudo à noite)\n'
    )
    assert rule.understood and rule.window is None
    (rule,) = compile_rules_text("## Always notify\n- Messages from Ana (Mo–Fr 8–17 Uhr)\n")
    assert rule.window is not None and rule.window.start == time(8)


def test_and_other_things_it_cannot_name_flag_the_line() -> None:
    (rule,) = compile_rules_text("## Never notify\n- iFood, Rappi and other delivery apps\n")
    assert not rule.understood and "apps" in rule.unread
    (rule,) = compile_rules_text("## Never notify\n- DHL, Hermes and other couriers\n")
    assert rule.understood


def test_nor_adds_to_a_never_line_and_neither_opens_one() -> None:
    (rule,) = compile_rules_text(
        "## Never notify\n- Pas de notification pour les newsletters, ni pour les codes de "
        "connexion.\n"
    )
    assert {"newsletter", "login_code"} <= set(rule.scope.kinds) | {
        k for m in rule.scope.any_of for k in m.kinds
    }
    assert rule.exclusions == ()
    (rule,) = compile_rules_text("- Ni ofertas ni boletines\n")
    assert rule.understood and rule.rule.section == NEVER


def test_the_rest_from_one_sender_is_not_the_rest_of_everything() -> None:
    (rule,) = compile_rules_text(
        "## Never notify\n- Todo lo demás de Brenda puede esperar a que llegue a la oficina.\n"
    )
    assert rule.catch_all and not rule.scope.anything
    assert rule.scope.names == ("Brenda",)


@pytest.mark.parametrize(
    ("line", "names", "understood"),
    [
        (
            "Qualquer coisa da escola da Bia (Colégio Monteiro Lobato)",
            ("Colégio Monteiro Lobato",),
            True,
        ),
        (
            "Anything from my daughter Mia's school, Bondi Public School",
            ("Bondi Public School",),
            True,
        ),
        # whose school it is names no sender: the school is not named, so the line is flagged
        ("Anything from the school of my son Pablo", (), False),
    ],
)
def test_whose_school_it_is_does_not_write(
    line: str, names: tuple[str, ...], understood: bool
) -> None:
    (rule,) = compile_rules_text(f"## Always notify\n- {line}\n")
    assert rule.scope.names == names and rule.understood is understood


def test_a_label_that_is_a_proper_name_sends_what_its_body_says() -> None:
    (rule,) = compile_rules_text(
        "## Always notify\n- St Aidan's Primary: anything about the boys\n"
    )
    assert rule.scope.names == ("St Aidan's Primary",)
    (rule,) = compile_rules_text("## Always notify\n- Team chatter: anything about lunch\n")
    assert rule.scope.names == ()


@pytest.mark.parametrize(
    ("line", "chat"),
    [
        ("WhatsApp-Gruppe „Elternabend Füchse“, außer jemand erwähnt mich", "Elternabend Füchse"),
        (
            "El grupo de WhatsApp de los vecinos («Comunidad Finca Roja»), salvo que alguien "
            "me mencione.",
            "Comunidad Finca Roja",
        ),
    ],
)
def test_a_group_named_after_its_words_is_that_chat(line: str, chat: str) -> None:
    (rule,) = compile_rules_text(f"## Never notify\n- {line}\n")
    assert rule.understood and rule.scope.chats == (chat,) and rule.scope.names == ()


def test_a_senders_app_is_that_sender_not_any_automated_one() -> None:
    (rule,) = compile_rules_text("- deja de avisarme de los accesos de la app de ING\n")
    assert rule.understood and rule.rule.section == NEVER
    assert rule.scope.names == ("ING",) and rule.scope.automated is True
    assert "automated" not in rule.scope.sender_kinds
    assert "security" in rule.scope.kinds


@pytest.mark.parametrize(
    "line",
    [
        "Les accusés de réception automatiques",
        "Read receipts",
        "Leesbevestigingen",
        "Conferme di lettura",
    ],
)
def test_read_receipts_are_automatic_replies(line: str) -> None:
    (rule,) = compile_rules_text(f"## Never notify\n- {line}\n")
    assert rule.understood and "auto_reply" in rule.scope.kinds


def test_as_soon_as_it_lands_changes_nothing() -> None:
    (rule,) = compile_rules_text("- Flag any invoice over £1,000 to me as soon as it lands\n")
    assert rule.understood and rule.scope.min_amount == 1000


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("Herr Albers von der Hausverwaltung", ("Herr Albers",)),
        ("Mails von Herrn Krüger aus der Buchhaltung", ("Herrn Krüger",)),
        ("Ursula von der Leyen", ("Ursula von der Leyen",)),
        ("Mails von Anna und von der Hausverwaltung", ("Anna", "Hausverwaltung")),
        # a capitalised word for mail is nobody: the place after it is who sends
        ("E-Mails von der Reinigung", ("Reinigung",)),
    ],
)
def test_where_a_person_works_is_who_they_are(line: str, names: tuple[str, ...]) -> None:
    (rule,) = compile_rules_text(f"## Always notify\n- {line}\n")
    assert rule.scope.names == names


def test_a_never_catch_all_beside_unread_never_lines_still_applies() -> None:
    from engine.triage.policy import decide_by_rules

    rules = compile_rules_text(
        "## Always notify\n- Anna Weber\n## Never notify\n- Zap the flibber\n- Everything else\n"
    )
    friend = make_event(
        source="whatsapp",
        event_type="whatsapp.message",
        sender={"name": "Erin", "address": "+34600000001"},
        subject=None,
        text="Dinner tonight?",
        chat={"id": "34600000001@s.whatsapp.net", "name": "Erin", "is_group": False},
    )
    decided = decide_by_rules(friend, datetime(2026, 12, 7, 9, tzinfo=UTC), rules)
    assert decided is not None and decided.notify is False
    # an unread line of another section could be what "else" leaves out: not applied
    rules = compile_rules_text(
        "## Always notify\n- Zap the flibber\n## Never notify\n- Everything else\n"
    )
    assert decide_by_rules(friend, datetime(2026, 12, 7, 9, tzinfo=UTC), rules) is None
