"""Rule changes said in the user's own words, read by the rules reader itself: what it reads
in full is added as said and confirmed with its reading; what it reads only in part is not
added, and the answer says what it could not read (issue 21, item 1)."""

from __future__ import annotations

import pytest

from engine.chat.replies import words as reply_words
from engine.chat.requests import read_request, section_text
from engine.triage.rules.compile import CompiledRule, compile_rules_text
from engine.triage.rules.decision import canonical, without_courtesies
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.parse import ALWAYS, NEVER, parse_rules
from engine.triage.rules.phrasing import phrasing


@pytest.mark.parametrize(
    ("said", "section", "reading"),
    [
        ("LinkedIn can wait", NEVER, "Never notify: from LinkedIn"),
        ("Avísame siempre que me escriba Pedro", ALWAYS, "Always notify: from Pedro"),
        ("Préviens-moi toujours quand Julie m'écrit", ALWAYS, "Always notify: from Julie"),
        ("I don't care about promotions", NEVER, "Never notify: marketing and promotions"),
        # a question that asks for it, all in lower case, with the name after the verb
        ("hey, could you mute linkedin?", NEVER, "Never notify: from linkedin"),
        ("no me avises mas de linkedin", NEVER, "Never notify: from linkedin"),
        (
            "Can you stop notifying me about anything from Harbour & Pine?",
            NEVER,
            "Never notify: anything from Harbour & Pine",
        ),
        (
            "Bitte gar keine Benachrichtigungen mehr von Facebook",
            NEVER,
            "Never notify: from Facebook",
        ),
        ("Sag mir immer Bescheid, wenn Lena schreibt", ALWAYS, "Always notify: from Lena"),
        ("Always tell me when Mario writes", ALWAYS, "Always notify: from Mario"),
        ("Ne me notifie plus les messages de Kevin", NEVER, "Never notify: from Kevin"),
        ("Me avisa de toda mensagem da Renata Prado", ALWAYS, "Always notify: from Renata Prado"),
    ],
)
def test_a_decided_sentence_is_an_instruction(said: str, section: str, reading: str) -> None:
    request = read_request(said)
    assert request.unread == ()
    assert [(s, _in_english(s, w)) for s, w, _ in request.read] == [(section, reading)]
    # said in the request's language (English words where a language has none)
    assert [r for _, _, r in request.read] == [
        explain_rule(_compiled(section, w), language=request.language).reading
        for _, w, _ in request.read
    ]


def test_context_sentences_change_nothing_and_are_not_instructions() -> None:
    request = read_request(
        "please dont notify me about messages from Gary Voss anymore. we've parted ways on "
        "the project and he keeps messaging"
    )
    assert [(s, r) for s, _, r in request.read] == [(NEVER, "Never notify: from Gary Voss")]


@pytest.mark.parametrize(
    "said",
    [
        "thanks!",
        "What do you notify me about?",
        "tell me a joke",
        "Why did you notify me about LinkedIn?",  # a question, not a request
    ],
)
def test_no_decision_no_request(said: str) -> None:
    request = read_request(said)
    assert not request.read and not request.unread


async def test_a_request_read_in_full_is_added_as_said(tiny_engine, workspace) -> None:
    workspace.rules_file.write_text("## Never notify\n- Newsletters\n")
    reply = await tiny_engine.send("LinkedIn can wait")
    assert reply.text == (
        "Done \u2014 I added to Never notify: \u201cLinkedIn can wait\u201d. I read it as "
        "\u201cNever notify: from LinkedIn\u201d."
    )
    never = parse_rules(workspace.rules_file.read_text()).section(NEVER)
    assert [r.text for r in never] == ["Newsletters", "LinkedIn can wait"]


async def test_a_request_read_in_part_is_not_added_and_says_why(tiny_engine, workspace) -> None:
    before = "## Never notify\n- Newsletters\n"
    workspace.rules_file.write_text(before)
    reply = await tiny_engine.send("The neighbours group is all rants. Mute it please, I'll check")
    assert reply.text.startswith("I didn't change your rules: in \u201cMute it please\u201d")
    assert "I can't tell who or what it is about" in reply.text  # "I'll check" is the reason
    assert workspace.rules_file.read_text() == before


async def test_a_message_that_is_no_rule_still_gets_the_honest_answer(tiny_engine) -> None:
    reply = await tiny_engine.send("tell me a joke")
    assert reply.text.startswith("I can't answer that reliably")


def test_a_pronoun_stands_for_the_one_person_named_before() -> None:
    request = read_request(
        "Mr Okafor is my landlord and he's important. If he writes, I want to know."
    )
    assert [(s, said, r) for s, said, r in request.read] == [
        (ALWAYS, "If Mr Okafor writes, I want to know.", "Always notify: from Mr Okafor")
    ]


def test_a_pronoun_after_two_names_stands_for_no_one() -> None:
    request = read_request("Ana and Bea are in the group. If she writes, tell me.")
    assert not request.read


@pytest.mark.parametrize(
    "said",
    ["From now on, mute LinkedIn", "A partir de ahora, silencia el grupo 'Portal 7'"],
)
def test_words_that_open_a_request_decide_nothing(said: str) -> None:
    request = read_request(said)
    assert [s for s, _, _ in request.read] == [NEVER]
    assert not request.read[0][1].lower().startswith(("from now on", "a partir"))


def test_a_capitalised_word_that_opens_a_sentence_is_no_name() -> None:
    assert not read_request("Cuando escriba, avísame.").read


@pytest.mark.parametrize(
    ("said", "written", "reading"),
    [
        (
            "Out-of-office auto-replies are driving me mad. Never notify me about those, "
            "even when they come from a client.",
            "Never notify me about Out-of-office auto-replies, even when they come from a client.",
            "Never notify: automatic replies (out of office)",
        ),
        (
            "Meine Tochter Lena ist gerade im Auslandsjahr in Kanada. Wenn sie schreibt, will "
            "ich das sofort wissen, egal was.",
            "Wenn Lena schreibt, will ich das sofort wissen, egal was.",
            "Always notify: from Lena",
        ),
    ],
)
def test_a_pronoun_stands_for_the_kind_or_the_person_of_the_sentence_before(
    said: str, written: str, reading: str
) -> None:
    """The line written is whole on its own: the pronoun is replaced by what the sentence
    before named (a kind of message, or a person without the word for their role)."""
    request = read_request(said)
    assert request.unread == ()
    assert [(w, _in_english(s, w)) for s, w, _ in request.read] == [(written, reading)]


async def test_a_rule_asked_in_spanish_is_confirmed_in_spanish(tiny_engine, workspace) -> None:
    """The answer and the line's reading are said in the request's language; the line is
    written as the user said it."""
    workspace.rules_file.write_text("## Nunca avisar\n- Instagram\n", encoding="utf-8")
    reply = await tiny_engine.send("no me avises más de LinkedIn, porfa")
    spanish = reply_words("es")
    (rule,) = [
        r for r in compile_rules_text(workspace.rules_file.read_text()) if "Linked" in r.rule.text
    ]
    reading = explain_rule(rule, language="es").reading
    assert reply.text == spanish.text(
        "rule_added",
        section=spanish.table["sections"]["never"],
        rule=spanish.text("quote", text=rule.rule.text),
        reading=spanish.text("quote", text=reading),
    )
    assert reading.startswith(phrasing("es").text("never"))
    assert reply.text.startswith("Hecho")
    assert "Never notify" not in reply.text


def _compiled(section: str, written: str) -> CompiledRule:
    (rule,) = compile_rules_text(section_text(section, written))
    return rule


def _in_english(section: str, written: str) -> str:
    """How the line written reads, in English (the file's reading)."""
    return explain_rule(_compiled(section, written)).reading


def test_a_reason_after_the_instruction_is_not_read_as_part_of_the_rule() -> None:
    said = read_request(
        "dont notify me about messages from Gary Voss, I'll read them when I'm ready"
    )
    assert [r for _, _, r in said.read] == ["Never notify: from Gary Voss"]


def test_a_pronoun_for_a_kind_stands_for_all_that_qualifies_it() -> None:
    said = read_request(
        "Allora: le fatture sopra i 1.000 euro le devo approvare io. Quelle avvisamele sempre."
    )
    ((section, _, reading),) = said.read
    assert section == "always" and "1,000" in reading  # not every invoice


def test_there_stands_for_the_group_named_before() -> None:
    said = read_request(
        "Nel gruppo 'Turni Cardiologia' ci scambiamo i turni. Avvisami di ogni messaggio "
        "che arriva lì."
    )
    assert [r for _, _, r in said.read] == [
        "Avvisa sempre: messaggi WhatsApp nella chat «Turni Cardiologia»"
    ]


def test_a_courtesy_inside_the_instruction_decides_nothing() -> None:
    assert without_courtesies("no me avises mas de linkedin porfa, no estoy") == (
        "no me avises mas de linkedin, no estoy"
    )
    assert without_courtesies("Sag mir bitte immer, wenn") == "Sag mir immer, wenn"
    assert without_courtesies("Emails where someone thanks me") == (
        "Emails where someone thanks me"  # a verb, not a courtesy
    )
    assert without_courtesies("Thanks for the invoices from Anna") == (
        "Thanks for the invoices from Anna"  # what it opens with is the lead-ins' to read
    )


def test_the_decision_in_the_middle_reads_what_is_on_both_sides() -> None:
    assert canonical("Del banco quiero enterarme de todo, menos de la publicidad") == (
        "notify me about Del banco todo, menos de la publicidad"
    )
    assert canonical("Del banco no quiero saber de la publicidad") == (
        "never notify me about Del banco la publicidad"  # a "tell me" after a negation
    )
