"""Lines in the project's own style that a blind set found unread: a quiet-hours "nothing at
all" line, a service named in a line, a declined transaction, a group whose WhatsApp name
carries an emoji, lists of what fails."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.triage.classifier import classify
from engine.triage.rules.compile import compile_rules_text
from tests.factories import make_event


def test_nothing_at_all_between_hours_is_a_quiet_window_with_its_exception():
    (rule,) = compile_rules_text(
        "## Never notify\n- Nothing at all between 10pm and 6:30am, except messages from my "
        "husband Liam\n"
    )
    assert rule.understood, rule.unread
    assert rule.scope.anything and rule.window is not None
    liam = make_event(sender={"name": "Liam", "address": "liam@home.example"})
    night = datetime(2026, 12, 2, 23, 30, tzinfo=UTC)
    assert rule.in_window(liam, night) and rule.excluded(liam, night, classify(liam))


def test_a_service_named_in_a_line_is_what_the_message_must_name():
    (rule,) = compile_rules_text(
        "## Always notify\n- PagerDuty alerts for the payments-api service\n"
    )
    assert rule.understood, rule.unread
    assert set(rule.scope.topics) == {"payments", "api"}


@pytest.mark.parametrize(
    "line",
    [
        "Emails from HDFC Bank only if a transaction is declined",
        "Payments: a card payment, payout or subscription fails",
    ],
)
def test_what_fails_is_a_billing_problem(line: str):
    section = "## Custom rules\n- " if "only if" in line else "## Always notify\n- "
    (rule,) = compile_rules_text(f"{section}{line}\n")
    assert rule.understood, rule.unread
    assert "billing_problem" in (rule.condition.kinds | rule.scope.kinds)


def test_a_group_is_found_whatever_emoji_its_name_carries():
    (rule,) = compile_rules_text('## Never notify\n- The WhatsApp group "Cobalt BLR Fun"\n')
    event = make_event(
        source="whatsapp",
        event_type="whatsapp.message",
        sender={"name": "Kiran", "address": "+91 98450 00000"},
        subject=None,
        chat={"id": "1203@g.us", "name": "Cobalt BLR Fun 🎉", "is_group": True},
        mentions_me=True,
    )
    assert rule.applies(event, datetime(2026, 12, 2, 9, tzinfo=UTC), classify(event))


def test_everything_else_waits_while_a_line_of_the_file_is_unread():
    from engine.triage.policy import decide_by_rules

    rules = compile_rules_text(
        "# Notify me\n- Client requests: a prospect wants a quote for the florbles\n"
        "# Don't notify\n- Everything else: don't notify\n"
    )
    assert not rules[0].understood and rules[1].catch_all
    question = make_event(text="Could you send me a quote for the florbles today?")
    now = datetime(2026, 12, 2, 9, tzinfo=UTC)
    assert decide_by_rules(question, now, rules) is None  # the heuristics decide


def test_an_item_at_the_end_of_a_list_is_no_catch_all():
    (rule,) = compile_rules_text(
        '## Always notify\n- "Sakura Homes" when it\'s about a water shut-off, an inspection '
        "or anything else I have to be home for\n"
    )
    assert not rule.catch_all


@pytest.mark.parametrize(
    ("heading", "section"),
    [
        ("Let these interrupt me", "always"),
        ('Keep these in "Other" and stay quiet', "never"),
        ("Bother me for", "always"),
        ("Silencio", "never"),
        ("Wichtig", "always"),
    ],
)
def test_headings_in_the_users_words(heading: str, section: str):
    from engine.triage.rules.parse import classify_heading

    assert classify_heading(heading) == section


def test_meeting_responses_are_a_kind():
    (rule,) = compile_rules_text("## Never notify\n- Meeting responses from Outlook\n")
    assert rule.scope.kinds == {"calendar_reply"}
    reply = make_event(subject="Accepted: Friday design review", text="")
    assert classify(reply).has("calendar_reply")


def test_a_list_repeating_its_preposition_is_a_list_of_alternatives():
    (rule,) = compile_rules_text(
        "Please don't ping me for GitHub notifications of any kind, for recruiters, or for "
        "anything from Substack.\n"
    )
    assert rule.rule.section == "never" and rule.understood, rule.unread
    assert len(rule.scope.any_of) == 3
    (tom,) = compile_rules_text("## Always notify\n- Tom, on WhatsApp, about anything at all.\n")
    assert not tom.scope.any_of and tom.scope.names == ("Tom",)


def test_only_interrupt_me_if_is_a_condition():
    (rule,) = compile_rules_text(
        "LinkedIn: only interrupt me if a person sends me a direct message there.\n"
    )
    assert rule.understood and rule.action == "only"


@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("Zalando, Shein y El Corte Inglés: nunca, ni ofertas ni envíos", "never"),
        (
            "Dolores Ruiz (dr@olmo.example), mi jefa: siempre, también si me escribe por WhatsApp",
            "always",
        ),
        ("Tomás Oliveira, meu sócio: sempre, seja no WhatsApp ou por e-mail", "always"),
        ("Grupos de WhatsApp: silenciados, a não ser que me marquem", "never"),
        ("Todo lo que llegue de @olmo.example: avísame siempre, es mi trabajo", "always"),
    ],
)
def test_what_follows_an_answer_is_read_with_the_line(line: str, section: str):
    (rule,) = compile_rules_text(f"{line}\n")
    assert rule.rule.section == section
    assert rule.understood, rule.unread


@pytest.mark.parametrize(
    "line",
    [
        "Messages from DHL and PostNL about parcels: never",
        "Mails von DHL und PostNL über Pakete: nie",
        "Berichten van DHL en PostNL over pakketjes: nooit",
    ],
)
def test_what_follows_a_list_of_senders_is_said_of_all_of_them(line: str):
    (rule,) = compile_rules_text(f"{line}\n")
    assert rule.understood, rule.unread
    assert not rule.scope.any_of  # never "from DHL, or any shipping notice"
    assert "shipping" in rule.scope.kinds and {"DHL", "PostNL"} <= set(rule.scope.names)


@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("VIP, altijd melden: mijn vrouw Eva (WhatsApp en mail)", "always"),
        ("Inlogcodes en verificatiecodes: nooit", "never"),
        ("Temu en AliExpress gaan rechtstreeks de prullenbak in", "never"),
    ],
)
def test_dutch_is_a_language_of_the_data(line: str, section: str):
    (rule,) = compile_rules_text(f"{line}\n")
    assert rule.rule.section == section and rule.understood, rule.unread


def test_a_list_ending_in_anything_else_is_flagged_not_broadened():
    (rule,) = compile_rules_text(
        "Please don't ping me for GitHub notifications, for recruiters, or for anything else.\n"
    )
    assert not rule.understood
    assert {"anything", "else"} <= set(rule.unread)


def test_bulk_mail_is_a_kind():
    (rule,) = compile_rules_text("## Never notify\n- Bulk mail\n")
    assert rule.understood and "bulk" in rule.scope.kinds


def test_a_label_before_a_leading_answer_must_be_read_too():
    (vip,) = compile_rules_text("VIP, altijd melden: mijn vrouw Eva\n")
    assert vip.rule.section == "always" and vip.understood
    (foo,) = compile_rules_text("Foo Bar, always: Anna\n")  # "Foo Bar" would be dropped
    assert not foo.understood and "always" in foo.unread  # flagged, never shown as talk
