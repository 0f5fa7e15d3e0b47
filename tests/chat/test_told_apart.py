"""A chat request that tells something and asks something: the part told is set aside as
context and named in the answer, the part asked is read on its own; a possessive or a
pronoun stands for the person told about; the rules file's definitions are used (issue 21,
item 1)."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER


@pytest.mark.parametrize(
    ("said", "section", "written", "told"),
    [
        (
            "Quit the choir in June, the 'Altos & Sopranos' group doesn't matter to me anymore.",
            NEVER,
            "the 'Altos & Sopranos' group doesn't matter to me anymore.",
            "Quit the choir in June.",
        ),
        (
            "Nel gruppo 'Calcetto Martedì' decidiamo tutto all'ultimo, quindi avvisami di ogni "
            "messaggio che arriva lì.",
            ALWAYS,
            None,
            "Nel gruppo 'Calcetto Martedì' decidiamo tutto all'ultimo.",
        ),
        (
            "no me avises mas de instagram, me distrae un montón",
            NEVER,
            "no me avises mas de instagram",
            "me distrae un montón",
        ),
        (
            "my brother Ivo is moving this week so anything he sends me, tell me straight away",
            ALWAYS,
            "anything Ivo sends me, tell me straight away.",
            "my brother Ivo is moving this week.",
        ),
    ],
)
def test_what_is_told_is_set_aside_and_what_is_asked_is_read(
    said: str, section: str, written: str | None, told: str
) -> None:
    request = read_request(said)
    assert request.unread == ()
    assert [s for s, _, _ in request.read] == [section]
    if written is not None:
        assert request.read[0][1] == written
    assert told in request.talk


@pytest.mark.parametrize(
    "said",
    [
        # what comes before names what the rule is about: it is no context to drop
        "Todo lo que mande la academia Velázquez, avisos incluidos, quiero verlo en el momento.",
        # a condition is part of the rule, never context
        "Wenn sie schreibt, will ich das sofort wissen",
    ],
)
def test_a_clause_the_rule_needs_is_not_set_aside(said: str) -> None:
    request = read_request(said)
    assert request.read == ()


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        (
            "Mi vecino Rufo me manda memes todo el día. No quiero notificaciones suyas.",
            "No avisar nunca: de Rufo",
        ),
        (
            "Yannick du service achats m'écrit pour rien. Ne me notifie plus ses messages.",
            "Ne jamais prévenir : envoyés par Yannick",
        ),
        ("Gary keeps texting me. Mute his messages.", "Never notify: from Gary"),
        (
            "a bia (ex-colega) vive a pedir-me coisas... não me notifiques as mensagens dela",
            "Nunca avisar: de Bia",
        ),
        (
            "piero (il mio ex) continua a scrivermi. non voglio notifiche dei suoi messaggi",
            "Non avvisare mai: da Piero",
        ),
    ],
)
def test_a_possessive_stands_for_the_person_told_about(said: str, reading: str) -> None:
    request = read_request(said)
    assert request.unread == ()
    assert [(s, r) for s, _, r in request.read] == [(NEVER, reading)]


def test_the_rules_file_says_who_a_role_is() -> None:
    rules = "## Always notify\n- Mis hijos, Pablo y Nerea\n"
    said = "Por la noche, a partir de las 11, solo avísame si es de mis hijos."
    assert read_request(said).read == ()  # alone, "mis hijos" is nobody in particular
    request = read_request(said, rules)
    assert [s for s, _, _ in request.read] == [CUSTOM]
    assert "Pablo o Nerea" in request.read[0][2]
    assert request.read[0][1] == said  # written as said: the file says who they are


async def test_the_answer_names_what_was_set_aside_and_the_file_uses_its_definitions(
    tiny_engine, workspace
) -> None:
    workspace.rules_file.write_text("## Avisar siempre\n- Mis hijos, Pablo y Nerea\n")
    reply = await tiny_engine.send(
        "Mañana empiezo un turno de noche. Por la noche, a partir de las 11, solo avísame si "
        "es de mis hijos."
    )
    assert reply.text.startswith("Hecho")
    assert "«Mañana empiezo un turno de noche»" in reply.text  # named as set aside
    written = workspace.rules_file.read_text(encoding="utf-8")
    assert "- Por la noche, a partir de las 11, solo avísame si es de mis hijos." in written
    assert "turno" not in written
    reading = [r for r in compile_rules_text(written) if "noche" in r.rule.text]
    assert [r.understood for r in reading] == [True]


def test_two_instructions_about_one_person_are_two_lines() -> None:
    request = read_request("Frau Keller vom Vermieter ist wichtig, ihre Mails bitte immer melden.")
    assert request.unread == ()
    assert [s for s, _, _ in request.read] == [ALWAYS, ALWAYS]


def test_a_german_article_said_as_a_pronoun_stands_for_the_person() -> None:
    request = read_request(
        "Jens Albrecht schreibt mir ständig wegen seiner Angebote. Ich will keine "
        "Benachrichtigungen mehr, wenn der schreibt."
    )
    assert [(s, r) for s, _, r in request.read] == [
        (NEVER, "Nie benachrichtigen: von Jens Albrecht")
    ]


@pytest.mark.parametrize(
    ("said", "section", "reading"),
    [
        (
            "Comprei uma cadeira na Loja Pinho Claro e agora eles não param de me mandar coisa. "
            "Não quero mais ser avisada de nada deles.",
            NEVER,
            "Nunca avisar: qualquer coisa de Loja Pinho Claro",
        ),
        (
            "A obra só se combina pelo grupo 'Reforma Rua Sete'. Me avisa de toda mensagem "
            "desse grupo.",
            ALWAYS,
            "Avisar sempre: mensagens do WhatsApp na conversa “Reforma Rua Sete”",
        ),
        (
            "Coupe-moi tout ce qui vient d'Etsy.",
            NEVER,
            "Ne jamais prévenir : tous les messages envoyés par Etsy",
        ),
    ],
)
def test_who_a_word_stands_for_is_found_before_it(said: str, section: str, reading: str) -> None:
    request = read_request(said)
    assert request.unread == ()
    assert [(s, r) for s, _, r in request.read] == [(section, reading)]


@pytest.mark.parametrize(
    "said",
    [
        # the part before says what the rule is about: dropping it would widen the rule
        "Per le email dell'agenzia Rossi: avvisami solo se c'è qualcosa da firmare.",
        "Qualsiasi cambio sul treno – orario, binario, cancellazione – dimmelo sempre.",
        # who "ils" are is in the part before, which names nothing the reader knows
        "Les analyses du cabinet, je veux être prévenu quand elles arrivent.",
    ],
)
def test_a_part_that_says_what_the_rule_is_about_is_never_set_aside(said: str) -> None:
    request = read_request(said)
    assert request.read == ()


def test_a_question_that_is_an_order_is_read_as_one() -> None:
    request = read_request("Silencia o grupo 'Vizinhos do 3º' pra mim? É só corrente o dia todo.")
    assert [s for s, _, _ in request.read] == [NEVER]


def test_the_person_said_with_who_they_are_is_the_one_a_possessive_stands_for() -> None:
    request = read_request(
        "Mia figlia Irene è in gita a Firenze con la classe: qualsiasi messaggio suo, avvisami."
    )
    assert [(s, r) for s, _, r in request.read] == [(ALWAYS, "Avvisa sempre: da Irene")]


@pytest.mark.parametrize("said", ["tell me something nice", "tell me something nice, number 3"])
def test_small_talk_in_lower_case_is_no_rule_about_a_sender(said: str) -> None:
    """ "nice" in lower case, after "something", is nobody: it was read as "from nice"."""
    assert read_request(said).read == ()


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("linkedin can wait", "Never notify: from linkedin"),
        ("mute linkedin", "Never notify: from linkedin"),
        ("i dont want notifications from rappi", "Never notify: from rappi"),
    ],
)
def test_a_name_in_lower_case_is_read_where_it_says_who(said: str, reading: str) -> None:
    assert [r for _, _, r in read_request(said).read] == [reading]


def test_a_spanish_se_is_no_condition() -> None:
    """ "que luego se me pasan los pagos" is the user's reason ("se" is "if" only in
    Portuguese and Italian)."""
    request = read_request(
        "A partir de ahora, las facturas de más de 800 € me las notificas siempre, que luego "
        "se me pasan los pagos."
    )
    assert [s for s, _, _ in request.read] == [ALWAYS]
    assert request.talk == ("que luego se me pasan los pagos.",)


@pytest.mark.parametrize(
    ("said", "section"),
    [
        ("found a flat!! you can stop telling me about Rightmove", NEVER),
        ("Ya puedes volver a avisarme del grupo Quinta del 99", ALWAYS),
        ("Plus de notifs pour La Cave de Margaux svp", NEVER),
        ("il gruppo 'Calcetto Giovedì' voglio vederlo sempre", ALWAYS),
        ("já vendi o carro, podes deixar de me avisar da Standvirtual", NEVER),
        ("Die Kleinanzeigen-Mails musst du mir nicht mehr melden.", NEVER),
    ],
)
def test_more_ways_to_say_a_decision(said: str, section: str) -> None:
    assert [s for s, _, _ in read_request(said).read] == [section]


def test_a_capitalised_possessive_is_no_sender() -> None:
    request = read_request("Herr Brandt schreibt oft. Seine Mails will ich bitte immer sehen.")
    assert [r for _, _, r in request.read] == ["Immer benachrichtigen: E-Mails von Herr Brandt"]


@pytest.mark.parametrize(
    ("message", "reading"),
    [
        (
            "our neighbour mrs okoro waters the plants, pls always tell me when she writes",
            "Always notify: from Mrs Okoro",
        ),
        (
            "Mi vecino, el Sr. Ibáñez, riega las plantas. Avísame siempre que me escriba.",
            "Avisar siempre: de Sr. Ibáñez",
        ),
        (
            "Abbiamo una nuova baby-sitter, si chiama Giulia Ferri. Se mi scrive avvisami sempre.",
            "Avvisa sempre: da Giulia Ferri",
        ),
        (
            "Mein Patenkind Lena ist im Ausland 🌍 Wenn sie schreibt, sag mir immer Bescheid.",
            "Immer benachrichtigen: von Lena",
        ),
    ],
)
def test_the_person_a_story_introduces_is_who_the_request_is_about(
    message: str, reading: str
) -> None:
    request = read_request(message)
    assert [r for _, _, r in request.read] == [reading], request.unread


@pytest.mark.parametrize(
    "message",
    [
        "silencia el grupo 'Vecinos Bloque 4' del todo, ni aunque me etiqueten",
        "mute the 'Five-a-side' group completely, even mentions",
        "Schalte die Gruppe 'Chor Alt' komplett stumm, auch @-Erwähnungen",
        "silenzia il gruppo 'Calcetto' anche con le menzioni",
    ],
)
def test_muting_a_group_even_when_it_mentions_me_reads_whole(message: str) -> None:
    request = read_request(message)
    assert len(request.read) == 1 and not request.unread, request.unread
    section, _, _ = request.read[0]
    assert section == "never"


@pytest.mark.parametrize(
    ("message", "reading"),
    [
        (
            "je veux plus aucune notif de paul girard",
            "Ne jamais prévenir : envoyés par Paul Girard",
        ),
        ("mute jonas weber", "Never notify: from Jonas Weber"),
    ],
)
def test_a_name_typed_in_lower_case_after_a_word_for_who_is_a_name(
    message: str, reading: str
) -> None:
    request = read_request(message)
    assert [r for _, _, r in request.read] == [reading], request.unread


def test_lower_case_words_that_are_no_name_stay_unread() -> None:
    assert not read_request("tell me something nice").read


@pytest.mark.parametrize(
    ("message", "reading", "told"),
    [
        (
            "always notify me about package deliveries - I keep missing the drivers",
            "Always notify: shipping and delivery notices",
            "I keep missing the drivers",
        ),
        (
            "No me avises de nada de Panadería Trigo, pedí una tarta y no paran de escribirme",
            "No avisar nunca: cualquier cosa de Panadería Trigo",
            "pedí una tarta y no paran de escribirme",
        ),
    ],
)
def test_a_reason_after_the_request_is_talk_even_when_it_names_things(
    message: str, reading: str, told: str
) -> None:
    request = read_request(message)
    assert [r for _, _, r in request.read] == [reading], request.unread
    assert told in request.talk[0]
