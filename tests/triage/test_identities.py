"""Who the rules file says people are, and messages that borrow those names: phone numbers,
definitions written the way people write them, look-alike addresses and numbers, and the
scams that ride on a name (issue 18's held-out misses, issue 20's look-alikes)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.triage.classifier import classify
from engine.triage.decider import Decision, TriageDecider
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.definitions import read_definition
from engine.triage.senders import KnownSenders, _fits
from tests.factories import make_event

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


def whatsapp(name: str, number: str, text: str, *, group: bool = False) -> dict:
    digits = "".join(ch for ch in number if ch.isdigit())
    return {
        "id": f"whatsapp:3EB0{abs(hash((name, number, text))) % 10**12:012d}",
        "source": "whatsapp",
        "event_type": "whatsapp.message",
        "sender": {"name": name, "address": number},
        "subject": None,
        "text": text,
        "chat": {
            "id": "120363@g.us" if group else f"{digits}@s.whatsapp.net",
            "name": "Family" if group else name,
            "is_group": group,
        },
    }


async def decide(model, workspace, rules: str, *events: dict) -> list[Decision]:
    outcomes = await TriageDecider(model, workspace).decide_each(
        [make_event(**e) for e in events], NOW, rules_text=rules
    )
    assert all(isinstance(o, Decision) for o in outcomes)
    return outcomes  # type: ignore[return-value]


# phone numbers --------------------------------------------------------------------------


def test_a_phone_number_in_a_line_is_the_contacts_identity():
    (rule,) = compile_rules_text("## Always notify\n- Anything from +49 171 555-0392\n")
    assert rule.understood
    assert rule.scope.addresses == ("+491715550392",)
    kinds = classify(make_event(**whatsapp("Gisela", "+49 171 5550392", "Hallo!")))
    assert rule.applies(make_event(**whatsapp("Gisela", "+49 171 5550392", "Hallo!")), NOW, kinds)
    other = make_event(**whatsapp("Gisela", "+49 171 5550393", "Hallo!"))
    assert not rule.applies(other, NOW, classify(other))


# definitions as people write them --------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "role", "names"),
    [
        ("Vorweg: „die Chefin“ ist Dr. Henrike Vogt (hv@vogt-hafen.example).", "chefin", "Vogt"),
        ("Antes de nada: «mi gestora» es Marta Ruiz (m@ruiz-gestion.example).", "gestora", "Ruiz"),
        ('Who\'s who: "my assistant" means Hollie Brandt (hb@hb.example).', "assistant", "Brandt"),
        ("„Oma“ ist meine Großmutter Gisela, sie schreibt nur von +49 171 5550392.", "oma", "+49"),
        ("Pablo es mi hermano; me escribe desde el +34 655 418 207.", "hermano", "+34"),
    ],
)
def test_a_definition_is_read_with_a_lead_in_quotes_an_article_or_a_number(
    sentence: str, role: str, names: str
):
    found = read_definition(sentence, 3)
    assert found is not None and found.only
    assert found.key == role
    assert names in found.aside


def test_a_definition_inside_a_paragraph_is_used_by_the_other_lines():
    rules = (
        "Vorweg: „die Chefin“ ist Dr. Henrike Vogt (h.vogt@vogt-hafen.example). „Oma“ ist "
        "meine Großmutter, sie schreibt von +49 171 5550392.\n\n"
        "## Wichtig\n- Alles von der Chefin, auch wenn es nur ein kurzes Danke ist.\n"
        "- Oma – immer, egal was sie schreibt.\n"
    )
    boss, oma = compile_rules_text(rules)
    assert boss.understood and "h.vogt@vogt-hafen.example" in boss.scope.addresses
    assert oma.understood and "+491715550392" in oma.scope.addresses


# widening and description ----------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "Paketbenachrichtigungen, egal von welchem Paketdienst.",
        "Eventbrite and Meetup, even for events I've booked.",
        "Boletines y newsletters, incluso los de estudios de arquitectura que sigo.",
        "Nada de la tintorería «Lavandería Nácar».",
        '"Lens & Co" camera shop newsletters or sales',
    ],
)
def test_words_that_only_widen_or_describe_are_accounted_for(line: str):
    (rule,) = compile_rules_text(f"## Never notify\n- {line}\n")
    assert rule.understood, rule.unread


def test_a_word_describing_a_name_is_not_matched_itself():
    (rule,) = compile_rules_text("## Never notify\n- Nada de la tintorería «Lavandería Nácar».\n")
    shop = make_event(sender={"name": "Lavandería Nácar", "address": "hola@nacar.example"})
    other = make_event(
        sender={"name": "Tintorería Sol", "address": "hola@sol.example"},
        text="Tu ropa de la tintorería está lista.",
    )
    assert rule.applies(shop, NOW, classify(shop))
    assert not rule.applies(other, NOW, classify(other))


# borrowed names --------------------------------------------------------------------------

NINA = "## Always notify\n- Anything from Nina (nina@harbour-prints.example)\n"


async def test_an_email_borrowing_a_name_the_rules_give_an_address_for_is_not_notified(
    model, workspace
):
    spoof = {
        "sender": {"name": "Nina – Harbour Prints", "address": "nina@harbourprints-pay.example"},
        "subject": "Overdue invoice – new bank details",
        "text": "Our bank details have changed. Please pay the overdue invoice today.",
    }
    real = {"sender": {"name": "Nina", "address": "nina@harbour-prints.example"}, "text": "Thanks!"}
    fake, genuine = await decide(model, workspace, NINA, spoof, real)
    assert fake.notify is False
    assert fake.reason.startswith("possibly an impersonation")
    assert "harbour-prints.example" in fake.reason
    assert genuine.notify is True


@pytest.mark.parametrize(
    "name",
    ["NINA", "Nina ", "Nina.", "Nina\u200b", "Nina (Accounts)", "Nina via DocuSign", "Dr. Nina"],
)
def test_a_borrowed_name_is_caught_however_it_is_written(name: str):
    known = KnownSenders.from_rules(compile_rules_text(NINA))
    event = make_event(sender={"name": name, "address": "nina@other-prints.example"})
    assert known.impostor(event) is not None
    assert known.stated(event)


def test_a_known_domain_fits_its_subdomains_but_not_a_bare_suffix():
    assert _fits("mail.herrera-lutz.example", "herrera-lutz.example")
    assert _fits("herrera-lutz.example", "mail.herrera-lutz.example")
    assert not _fits("example", "herrera-lutz.example")
    assert not _fits("es", "herrera-lutz.es")


async def test_a_whatsapp_push_name_from_another_number_is_not_the_contact(model, workspace):
    rules = "## Always notify\n- Oma (+49 171 5550392), egal was sie schreibt\n"
    real = whatsapp("Oma", "+49 171 5550392", "Guten Morgen!")
    other = whatsapp("Oma", "+49 157 33829014", "Kannst du mich anrufen?")
    genuine, fake = await decide(model, workspace, rules, real, other)
    assert genuine.notify is True
    assert fake.notify is False and "another number" in fake.reason


@pytest.mark.parametrize(
    "text",
    [
        "Hallo, hier ist Oma, das ist meine neue Nummer. Kannst du mir 780 € überweisen?",
        "Hola hija, se me cayó el cel, este es mi número nuevo. ¿Me puedes depositar 3,500?",
        "Oi amor, mudei de número, esse aqui é o novo. Consegue me fazer um Pix de R$ 1.800?",
        "Hi, it's me, this is my new number. Can you send me money for a taxi?",
    ],
)
def test_a_new_number_asking_for_money_is_a_scam(text: str):
    kinds = classify(make_event(**whatsapp("+49 157 33829014", "+49 157 33829014", text)))
    assert kinds.has("phishing")


def test_a_new_number_without_money_is_no_scam():
    kinds = classify(
        make_event(**whatsapp("Ana", "+34 600 000 001", "Hola, este es mi número nuevo, guárdalo"))
    )
    assert not kinds.has("phishing")


@pytest.mark.parametrize(
    ("sender", "text", "scam"),
    [
        (
            {"name": "Jana Keller", "address": "jana@keller-physio.example"},
            "Kannst du schnell 4 Amazon-Gutscheine kaufen und mir die Codes schicken?",
            True,
        ),
        (
            {"name": "Northwind Bank", "address": "security@fjordbank-account-verify.example"},
            "Your account has been placed on hold. Verify your identity within 24 hours.",
            True,
        ),
        (
            {"name": "Toy Shop", "address": "news@toyshop.example"},
            "Gift cards make the perfect present this Christmas.",
            False,
        ),
        (
            {"name": "Northwind Bank", "address": "alerts@northwind.example"},
            "A new sign-in to your account. If this wasn't you, change your password.",
            False,
        ),
    ],
)
def test_scams_are_told_by_what_they_ask_and_where_from(sender: dict, text: str, scam: bool):
    assert classify(make_event(sender=sender, subject="Hello", text=text)).has("phishing") is scam


# kinds that are language data: automatic replies, sign-in codes ------------------------


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("Out-of-office replies", "auto_reply"),
        ("Respuestas automáticas de «fuera de la oficina».", "auto_reply"),
        ("Abwesenheitsnotizen", "auto_reply"),
        ("Login codes and 2FA codes: no.", "login_code"),
        ("Codici di verifica", "login_code"),
    ],
)
def test_a_data_kind_is_read_in_each_language(line: str, kind: str):
    (rule,) = compile_rules_text(f"## Never notify\n- {line}\n")
    assert rule.understood, rule.unread
    assert rule.scope.kinds == {kind}


@pytest.mark.parametrize(
    ("subject", "headers", "kind"),
    [
        ("Automatic reply: Q3 numbers", {}, "auto_reply"),
        ("Abwesenheitsnotiz: Angebot", {}, "auto_reply"),
        ("Re: invoice", {"Auto-Submitted": "auto-replied"}, "auto_reply"),
        ("Your verification code is 481 223", {}, "login_code"),
        ("Tu código de verificación", {}, "login_code"),
    ],
)
def test_a_data_kind_is_told_from_the_message(subject: str, headers: dict, kind: str):
    assert classify(make_event(subject=subject, headers=headers, text="Hello")).has(kind)


def test_an_exclusion_without_a_comma_is_not_read_as_more_of_the_line():
    (rule,) = compile_rules_text(
        "## Always notify\n- Anything from my manager Dana Whitfield: important, but not her "
        "out-of-office auto replies.\n"
    )
    assert rule.understood
    assert "auto_reply" not in rule.scope.kinds
    assert any("auto_reply" in x.kinds for x in rule.exclusions)


@pytest.mark.parametrize("answer", ["always tell me", "always tell me, whoever sends them"])
def test_an_answer_of_several_words_keeps_the_topic(answer: str):
    (rule,) = compile_rules_text(
        f"## Always notify\n- Emails regarding my visa application: {answer}\n"
    )
    assert rule.understood and "visa" in rule.scope.topics


# how sentences say their decision --------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "section", "reading"),
    [
        ("Keep Yelp notifications away from me.", "never", "Yelp"),
        ('The "your order has shipped" emails I can live without.', "never", "shipped"),
        ("Wave Riders Aquatics I want to hear from no matter what.", "always", "Wave Riders"),
        ("Anything from Dana Okafor should come through right away.", "always", "Dana Okafor"),
        ("Meeting invites from sales reps: never, I'll book those myself.", "never", "invitations"),
        (
            "Orders from Pinecrest Supply matter only when a payment failed.",
            "custom",
            "Pinecrest",
        ),
    ],
)
def test_a_sentence_says_its_decision_around_its_subject(line: str, section: str, reading: str):
    (rule,) = compile_rules_text(f"{line}\n")
    assert rule.rule.section == section
    assert rule.understood, rule.unread
    from engine.triage.rules.explain import explain_rule

    assert reading in explain_rule(rule).sentence


def test_two_decided_halves_of_a_sentence_are_two_rules_but_the_rest_is_not():
    two = compile_rules_text(
        "Orders from Pinecrest Supply: always; the routine shipping emails I can live without.\n"
    )
    assert [r.rule.section for r in two] == ["always", "never"]
    one = compile_rules_text(
        "Client feedback: notify me only when it mentions a deadline; the rest can wait.\n"
    )
    assert len(one) == 1


@pytest.mark.parametrize(
    ("line", "sender", "hit"),
    [
        ("Emails from Mr Okafor", "Chidi Okafor", True),
        ("Mails von Frau Okonkwo", "Adaeze Okonkwo", True),
        ("Correos del Sr. Ibarra", "Luis Ibarra", True),
        ("Emails from Mr Okafor", "Chidi Nwosu", False),
    ],
)
def test_a_title_before_a_surname_need_not_be_in_the_name(line: str, sender: str, hit: bool):
    (rule,) = compile_rules_text(f"## Always notify\n- {line}\n")
    event = make_event(sender={"name": sender, "address": "x@okafor-home.example"})
    assert rule.applies(event, NOW, classify(event)) is hit


def test_an_address_in_a_list_of_people_is_only_its_own_names():
    rules = (
        "## Always notify\n"
        "- Our growers Finca Las Nubes and Molino Verde, and Odile (odile@tostadores.example)\n"
    )
    known = KnownSenders.from_rules(compile_rules_text(rules))
    grower = make_event(sender={"name": "Molino Verde", "address": "pedidos@molinoverde.example"})
    spoof = make_event(sender={"name": "Odile", "address": "odile@elsewhere.example"})
    assert known.impostor(grower) is None  # no one else's address is Molino Verde's
    assert known.impostor(spoof) is not None
