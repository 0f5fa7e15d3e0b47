"""Clearly spam, recognised: the provider's verdict, a failed authentication under a
claimed name, and what only scams say (each with its second sign), never notified under
any Always line; and the real mail beside them that must stay real (issue 19, item 5).

Every message here is invented, in the shapes real spam takes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from engine.triage.classifier import classify, is_spam
from engine.triage.decider import Decision, TriageDecider
from tests.factories import make_event

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


def mail(
    name: str | None,
    address: str | None,
    subject: str,
    text: str,
    *,
    headers: dict[str, str] | None = None,
    labels: list[str] | None = None,
    refs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "id": f"imap:me@qorvath.example:<{abs(hash((address, subject, text))) % 10**9}@x>",
        "source": "email",
        "event_type": "email.received",
        "sender": {"name": name, "address": address},
        "subject": subject,
        "text": text,
        "labels": labels or ["INBOX"],
        "headers": headers or {},
        "refs": refs or {},
    }


def spam_reason(event: dict[str, Any]) -> str | None:
    kinds = classify(make_event(**event))
    return "; ".join(kinds.evidence("phishing")) if is_spam(kinds) else None


async def decide(model, workspace, rules: str, *events: dict[str, Any]) -> list[Decision]:
    outcomes = await TriageDecider(model, workspace).decide_each(
        [make_event(**e) for e in events], NOW, rules_text=rules
    )
    assert all(isinstance(o, Decision) for o in outcomes)
    return outcomes  # type: ignore[return-value]


QUESTION = "Hi, could you send me the signed copy before Friday? Thanks, Lena"


# the provider's verdict ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"headers": {"X-Spam-Flag": "YES"}}, "X-Spam-Flag: YES"),
        ({"headers": {"X-Spam-Status": "Yes, score=7.2 required=5.0"}}, "X-Spam-Status: Yes"),
        ({"labels": ["SPAM", "UNREAD"]}, "labelled it SPAM"),
        ({"labels": ["INBOX", "$Junk"]}, "flagged it as junk"),
        ({"refs": {"folder": "INBOX.Junk"}}, "junk folder \u201cINBOX.Junk\u201d"),
        ({"refs": {"folder": "Correo no deseado"}}, "junk folder"),
        ({"subject": "*****SPAM***** Re: the signed copy"}, "subject is tagged as spam"),
        ({"subject": "[SPAM] Re: the signed copy"}, "subject is tagged as spam"),
    ],
)
def test_the_providers_verdict_makes_it_spam(overrides: dict[str, Any], reason: str) -> None:
    event = mail("Lena Marsh", "lena@marsh-studio.example", "Re: the signed copy", QUESTION)
    assert spam_reason(event) is None
    assert reason in (spam_reason({**event, **overrides}) or "")


def test_a_spam_filters_own_verdict_of_no_is_not_spam() -> None:
    assert (
        spam_reason(
            mail("Lena Marsh", "lena@marsh-studio.example", "Re", QUESTION, labels=["$NotJunk"])
        )
        is None
    )
    event = mail(
        "Lena Marsh",
        "lena@marsh-studio.example",
        "Re: the signed copy",
        QUESTION,
        headers={"X-Spam-Flag": "NO", "X-Spam-Status": "No, score=0.3 required=5.0"},
        refs={"folder": "INBOX"},
    )
    assert spam_reason(event) is None


def test_the_standard_spam_test_string_is_spam() -> None:
    gtube = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X"
    event = mail("Sender", "sender@relay.example", "test", f"Hello\n\n{gtube}\n")
    assert "GTUBE" in (spam_reason(event) or "")


# authentication -----------------------------------------------------------------------


def test_a_failed_dmarc_under_a_persons_name_is_spam_and_a_pass_is_not() -> None:
    failed = "mx.mail.example; spf=fail smtp.mailfrom=marsh-studio.example; dmarc=fail"
    passed = "mx.mail.example; spf=pass smtp.mailfrom=marsh-studio.example; dkim=pass; dmarc=pass"
    event = mail("Lena Marsh", "lena@marsh-studio.example", "Re: the signed copy", QUESTION)
    forged = spam_reason({**event, "headers": {"Authentication-Results": failed}})
    assert forged is not None
    assert "failed DMARC" in forged
    assert "Lena Marsh" in forged
    assert spam_reason({**event, "headers": {"Authentication-Results": passed}}) is None


def test_a_failed_spf_with_a_valid_dkim_signature_is_not_spam() -> None:
    forwarded = "mx.mail.example; spf=fail smtp.mailfrom=lists.example; dkim=pass header.i=@x"
    event = mail(
        "Lena Marsh",
        "lena@marsh-studio.example",
        "Re: the signed copy",
        QUESTION,
        headers={"Authentication-Results": forwarded},
    )
    assert spam_reason(event) is None


# what only scams say -------------------------------------------------------------------

ADVANCE_FEE = (
    "Attention Beneficiary: we have concluded arrangements to effect your payment of "
    "$2,300,000.00 through Western Union money transfer. Reply with your full name and "
    "phone number to receive the first instalment."
)


def test_an_advance_fee_story_with_millions_is_spam() -> None:
    event = mail("Harold Brent", "harold.brent@harbold-post.example", "Funds release", ADVANCE_FEE)
    reason = spam_reason(event)
    assert reason is not None
    assert "advance-fee" in reason
    assert "beneficiary" in reason


def test_a_real_transfer_notice_is_not_spam() -> None:
    event = mail(
        "Kestrel Bank",
        "alerts@kestrelbank.example",
        "Money transfer received",
        "You received a money transfer of 250.00 EUR from Lena Marsh. Reference 20261202554.",
    )
    assert spam_reason(event) is None


def test_an_invoice_number_is_not_a_sum_in_the_millions() -> None:
    event = mail(
        "Skyforge",
        "billing@skyforge.example",
        "Payment received",
        "Thanks! We received your payment for invoice IN-44120983 (wire transfer, 20.00 USD).",
    )
    assert spam_reason(event) is None


@pytest.mark.parametrize(
    ("subject", "text"),
    [
        (
            "You WON an iPhone!",
            "Congratulations, you won an iPhone 17. Enter your card details "
            "to pay the 1.99 shipping fee.",
        ),
        ("¡Has ganado!", "¡Has ganado un iPhone! Introduce los datos de tu tarjeta para el envío."),
        (
            "Your vacation winning",
            "You have been specially selected for a premium vacation. "
            "Confirm your entry at http://claim.prize-desk.example/lh340 within 24 hours.",
        ),
    ],
)
def test_a_prize_with_a_link_or_card_details_is_spam(subject: str, text: str) -> None:
    event = mail("Mario", "mario@win-prizes-now.example", subject, text)
    assert "prize scam" in (spam_reason(event) or "")


def test_a_prize_mentioned_by_a_real_list_without_card_details_is_not_spam() -> None:
    event = mail(
        "Riverside Running Club",
        "news@riversiderunning.example",
        "Raffle results",
        "You won! Well, three of you did: see the raffle winners at "
        "https://results.racepix.example/riverside",
        headers={"List-Unsubscribe": "<mailto:leave@riversiderunning.example>"},
    )
    assert spam_reason(event) is None


def test_credentials_asked_for_behind_a_shortened_link_is_phishing() -> None:
    event = mail(
        "Account Team",
        "no-reply@accounts.mailservice.example",
        "Someone has your password",
        "Someone just used your password to sign in. Change your password now: "
        "https://bit.ly/3XmPl1",
    )
    reason = spam_reason(event)
    assert reason is not None
    assert "bit.ly" in reason


def test_a_services_own_password_mail_is_not_phishing() -> None:
    event = mail(
        "Skyforge",
        "no-reply@skyforge.example",
        "Reset your password",
        "Someone asked to reset your password. If it was you, open "
        "https://app.skyforge.example/reset?t=abc — else ignore this mail.",
    )
    assert spam_reason(event) is None


def test_pharmacy_spam_with_a_link_is_spam() -> None:
    event = mail(
        "Wendell Crane",
        "qxvbtrr@harbold-post.example",
        "Low or high blood pressure? We can help",
        "If you need a good RX site for online purchases, we are your answer. "
        "http://pills4less.example/26 more info here",
    )
    assert "pharmacy" in (spam_reason(event) or "")


ADVERT = (
    "Brand-new version 7 just released! Download it right now (no charge card needed): "
    "click here http://lv724.freehost.example/gen.html"
)


def test_unsolicited_advertising_is_spam_but_a_real_lists_is_a_promotion() -> None:
    unsolicited = mail("New Product Showcase", "seemsg_8452970@harbold-post.example", "!", ADVERT)
    assert "unsolicited advertising" in (spam_reason(unsolicited) or "")
    listed = {
        **unsolicited,
        "headers": {"List-Unsubscribe": "<https://freehost.example/unsub>"},
    }
    assert spam_reason(listed) is None


def test_a_brand_speaking_from_a_domain_not_its_own_about_the_account_is_phishing() -> None:
    fake = mail(
        "Account Services",
        "alerts@secure-mailer.example",
        "Your PayPal account is limited",
        "We noticed unusual activity. Please confirm your identity to restore access.",
    )
    reason = spam_reason(fake)
    assert reason is not None
    assert "PayPal" in reason
    assert "secure-mailer.example" in reason
    real = {**fake, "sender": {"name": "PayPal", "address": "service@paypal.com"}}
    assert spam_reason(real) is None


# people stay people --------------------------------------------------------------------


def test_a_person_writing_from_a_domain_of_their_own_name_is_a_person() -> None:
    event = mail("Lena Marsh", "test@lenamarsh.example", "Quick question", QUESTION)
    kinds = classify(make_event(**event))
    assert kinds.has("person"), kinds.describe()
    newsletter = mail("Il Giornale Verde", "newsletter@ilgiornaleverde.example", "Oggi", "…")
    assert not classify(make_event(**newsletter)).has("person")


def test_a_handle_with_underscores_is_not_a_persons_name() -> None:
    event = mail(
        "Flight_simulator_deals",
        "Flight_simulator_deals@flightsim-offers.example",
        "Have you ever wanted to land on a carrier?",
        "Imagine real-life flying at home. Order today!",
    )
    assert not classify(make_event(**event)).has("person")


# decisions ------------------------------------------------------------------------------


async def test_spam_is_not_notified_under_an_always_line(model, workspace) -> None:
    rules = "## Always notify\n- Emails from Mario\n"
    prize = mail(
        "Mario",
        "mario@win-prizes-now.example",
        "You WON an iPhone",
        "You won an iPhone! Enter your card details to claim it.",
    )
    real = mail("Mario", "mario@rossi-family.example", "Dinner?", "Are you free on Sunday?")
    scam, friend = await decide(model, workspace, rules, prize, real)
    assert not scam.notify
    assert "clearly spam" in scam.reason
    assert "prize scam" in scam.reason
    assert friend.notify


async def test_spam_with_no_rules_is_not_notified_and_says_why(model, workspace) -> None:
    (decision,) = await decide(
        model,
        workspace,
        "",
        mail("Harold Brent", "harold.brent@harbold-post.example", "Funds release?", ADVANCE_FEE),
    )
    assert not decision.notify
    assert "advance-fee" in decision.reason


def test_a_pharmacys_own_rx_notice_is_not_spam_but_rx_offers_with_a_link_away_are() -> None:
    ready = mail(
        "Corner Pharmacy",
        "rx@cornerpharmacy.example",
        "Your Rx is ready",
        "Your Rx is ready for pickup. Details: https://www.cornerpharmacy.example/rx/88",
    )
    assert spam_reason(ready) is None
    offer = mail(
        "Dora Pell",
        "kqlwpz@harbold-post.example",
        "no r-x req",
        "A massive dizcounnt on your medz-rx, no dr-script required. "
        "Gotothis: http://xqr.benefit-pills.example/?a=552",
    )
    assert "pharmacy spam" in (spam_reason(offer) or "")


def test_a_spammer_admitting_a_bought_list_is_spam_without_a_link() -> None:
    event = mail(
        "Carla Somers",
        "itereo@harbold-post.example",
        "Say goodbye to yellow teeth!!!",
        "Your email address was obtained from a purchased list. If you wish to unsubscribe "
        "from this list, please click here and enter your name into the remove box.",
    )
    assert "unsolicited advertising" in (spam_reason(event) or "")


def test_a_link_only_the_html_shows_counts_like_one_in_the_text() -> None:
    event = mail(
        None,
        None,
        "Someone has your password",
        "Someone just used your password to try to sign in. Change password",
        refs={"links": ["bit.ly"]},
    )
    assert "bit.ly" in (spam_reason(event) or "")
