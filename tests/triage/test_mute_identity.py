"""Mute and sender rules keyed on identity: "Don't notify me about this" names the sender by
address (a WhatsApp chat by its id), never by the display name anyone can choose, and a name
in a rule does not vouch for an address from another domain than that name is known by."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.store.inbox import ingest
from engine.store.models import ChatMessage, EventRecord, Notification
from engine.triage.decider import TriageDecider
from engine.triage.feedback import never_rule_for
from engine.triage.rules.parse import NEVER, parse_rules
from tests.factories import make_event, notification, reply

NOW = datetime(2026, 11, 10, 8, tzinfo=UTC)
TOMAS = {"name": "Tomas Herrera", "address": "tomas@herrera-lutz.es"}
BULK = {"List-Unsubscribe": "<mailto:u@cheap-pills.example>", "Precedence": "bulk"}


def email(sender: dict, **fields) -> dict:
    return {"sender": sender, **fields}


def chat(name: str, chat_id: str, *, group: bool, sender: str = "Marco") -> dict:
    return {
        "source": "whatsapp",
        "event_type": "whatsapp.message",
        "sender": {"name": sender, "address": "+34600111222"},
        "chat": {"id": chat_id, "name": name, "is_group": group},
        "mentions_me": True,
        "text": "hi",
    }


# (what was muted, what must still be notified)
CRAFTED = [
    (
        email({"name": "Tomas Herrera", "address": "offers@cheap-pills.example"}),
        email(TOMAS),
    ),
    (email({"name": "everything", "address": "x@spam.example"}), email(TOMAS)),
    (
        email({"name": "T\u043emas Herrera", "address": "tomas@herrera-1utz.es"}),  # lookalikes
        email(TOMAS),
    ),
    (
        email({"name": "My Bank", "address": "security@mybank-verify.example"}),
        email({"name": "My Bank", "address": "alerts@mybank.example"}),
    ),
    (
        email({"name": "Tomas", "address": "tomas@herrera-lutz.es.evil.example"}),
        email(TOMAS),
    ),
    (
        chat("Marco", "group-marco@g.us", group=True),
        chat("Marco", "marco@s.whatsapp.net", group=False),
    ),
    (chat("Marco", "same-id", group=True), chat("Marco", "same-id", group=False)),
    (chat("Marco", "marco@s.whatsapp.net", group=False), chat("Padel", "padel@g.us", group=True)),
    (
        email({"name": "Shop", "address": "news@shop.example"}, headers=BULK),
        email({"name": "Other shop", "address": "news@other.example"}, headers=BULK),
    ),
]


@pytest.mark.parametrize(("muted", "kept"), CRAFTED)
async def test_muting_one_sender_never_mutes_another(workspace, model, muted, kept):
    rule = never_rule_for(make_event(**muted))
    assert rule is not None
    workspace.rules_file.write_text(f"## Never notify\n- {rule}\n")
    decider = TriageDecider(model, workspace)
    again, other = await decider.decide([make_event(**muted), make_event(**kept)], NOW)
    assert again.notify is False and again.rule == rule
    assert other.rule is None  # no rule of the mute applies to the real one


def test_a_mute_rule_names_the_address_not_the_display_name():
    spam = make_event(sender={"name": "Tomas Herrera", "address": "Offers@Cheap-Pills.example"})
    assert never_rule_for(spam) == "Emails from offers@cheap-pills.example"
    group = make_event(**chat("Marco", "120363041234567890@g.us", group=True))
    assert never_rule_for(group) == (
        "WhatsApp messages in the group \u201cMarco\u201d (id 120363041234567890@g.us)"
    )
    direct = make_event(**chat("Marco", "34600111222@s.whatsapp.net", group=False))
    assert never_rule_for(direct) == (
        "WhatsApp messages in the chat with \u201cMarco\u201d (id 34600111222@s.whatsapp.net)"
    )


@pytest.mark.parametrize(
    "sender", [{"name": "everything", "address": None}, {"name": "everything", "address": "nope"}]
)
def test_no_rule_for_a_sender_nothing_identifies(sender):
    assert never_rule_for(make_event(sender=sender)) is None
    no_id = make_event(**{**chat("Marco", "x", group=True), "chat": {"name": "Marco"}})
    assert never_rule_for(no_id) is None


async def test_a_mute_without_an_identity_adds_nothing_and_says_why(engine, model, workspace):
    before = workspace.rules_file.read_text()
    event = make_event(sender={"name": "everything", "address": None}, subject="Hi")
    ingest([event])
    model.default = reply("ok")
    await engine.hub.notify(  # notified directly: TIC itself would not surface this one
        notification(
            {
                "source": "email",
                "event_type": "email.received",
                "summary": "everything sent an email about \u201cHi\u201d.",
                "refs": {"event_id": event.id},
            }
        )
    )
    assert await engine.hub.drain(timeout=5)
    note = ChatMessage.select().where(ChatMessage.content != "").get()
    preview = engine.mute_preview(note.id)
    assert (preview.rules, len(preview.unidentified)) == ([], 1)
    answer = await engine.hub.mute(note.id)
    assert answer.content.startswith("I added no rule for \u201c")
    assert workspace.rules_file.read_text() == before


# a mute shows its rule and what it would have silenced, before it changes anything -------


async def test_mute_preview_lists_the_rule_and_the_last_30_days(engine, model, workspace):
    model.default = reply("ok")
    spam = {"name": "Tomas Herrera", "address": "offers@cheap-pills.example"}
    # the spam gets through by an Always rule on its address: it is what the user mutes
    workspace.rules_file.write_text("## Always notify\n- Emails from offers@cheap-pills.example\n")
    now = engine.clock()
    events = [
        make_event(sender=spam, subject="Pills 1", time=(now - timedelta(days=2)).isoformat()),
        make_event(sender=spam, subject="Pills 2", time=(now - timedelta(days=1)).isoformat()),
        make_event(sender=TOMAS, subject="VAT", time=(now - timedelta(hours=5)).isoformat()),
        make_event(sender=spam, subject="Pills 3", time=(now - timedelta(hours=1)).isoformat()),
    ]
    for batch in (events[:3], events[3:]):  # the last one has a reply of its own
        ingest(batch)
        await engine.tic.tick()
        assert await engine.hub.drain(timeout=5)
    old = make_event(sender=spam, subject="Long ago")
    ingest([old])
    Notification.create(
        dedup_key=old.id,
        event_id=old.id,
        source="email",
        event_type="email.received",
        summary="long ago",
        created_at=now - timedelta(days=45),
        state="delivered",
    )
    *_, reply_row = [
        m
        for m in ChatMessage.select()
        if m.content and (m.meta or {}).get("kind") == "notification"
    ]
    before = workspace.rules_file.read_text()

    preview = engine.mute_preview(reply_row.id)

    assert workspace.rules_file.read_text() == before  # nothing changed yet
    assert preview.rules == ["Emails from offers@cheap-pills.example"]
    assert preview.silenced_total == 3
    assert [s.summary for s in preview.silenced] == [
        "Tomas Herrera sent an email about \u201cPills 3\u201d.",
        "Tomas Herrera sent an email about \u201cPills 2\u201d.",
        "Tomas Herrera sent an email about \u201cPills 1\u201d.",
    ]
    assert preview.silenced[0].sender == "Tomas Herrera <offers@cheap-pills.example>"
    assert preview.days == 30

    answer = await engine.mute(reply_row.id)
    assert answer.text.endswith("In the last 30 days it would have silenced 3 notifications.")
    never = parse_rules(workspace.rules_file.read_text()).section(NEVER)
    assert [r.text for r in never] == ["Emails from offers@cheap-pills.example"]


# names in rules match only with a fitting address once one is known ----------------------


async def test_an_always_rule_naming_a_person_does_not_vouch_for_a_spoofed_address(
    engine, model, workspace
):
    workspace.rules_file.write_text("## Always notify\n- Emails from my accountant Tomas Herrera\n")
    model.default = reply("ok")
    ingest([make_event(sender=TOMAS, subject="Q3 VAT return")])  # first seen: herrera-lutz.es
    await engine.tic.tick()
    spoof = make_event(
        sender={"name": "Tomas Herrera", "address": "offers@cheap-pills.example"},
        subject="Cheap pills",
        headers=BULK,
    )
    real_again = make_event(sender={**TOMAS, "address": "tomas@mail.herrera-lutz.es"})
    ingest([spoof, real_again])
    await engine.tic.tick()
    rows = {r.event_id: r for r in EventRecord.select()}
    assert rows[spoof.id].decision_notify is False
    assert rows[spoof.id].decision_rule is None
    assert rows[spoof.id].decision_reason.startswith(
        "possibly an impersonation: the sender name \u201cTomas Herrera\u201d is known to write "
        "from herrera-lutz.es, not from cheap-pills.example."
    )
    assert rows[real_again.id].decision_rule == "Emails from my accountant Tomas Herrera"
    await engine.hub.drain(timeout=5)


async def test_a_rule_giving_a_name_and_an_address_binds_them(workspace, model):
    rules = "## Always notify\n- Emails from Tomas Herrera (tomas@herrera-lutz.es)\n"
    spoof = make_event(
        sender={"name": "Tomas Herrera", "address": "offers@cheap-pills.example"}, headers=BULK
    )
    real = make_event(sender=TOMAS, headers=BULK)
    decided = await TriageDecider(model, workspace).decide([spoof, real], NOW, rules_text=rules)
    assert (decided[0].notify, decided[0].rule) == (False, None)
    assert "known to write from herrera-lutz.es" in decided[0].reason
    assert (decided[1].notify, decided[1].rule) == (True, rules.split("- ")[1].strip())


async def test_a_name_nothing_is_known_about_still_matches(workspace, model):
    rules = "## Always notify\n- Emails from Tomas Herrera\n"
    (decision,) = await TriageDecider(model, workspace).decide(
        [make_event(sender={"name": "Tomas Herrera", "address": "t@new.example"}, headers=BULK)],
        NOW,
        rules_text=rules,
    )
    assert decision.notify is True and decision.rule == "Emails from Tomas Herrera"


async def test_a_spoofer_writing_first_does_not_demote_the_real_sender(engine, model, workspace):
    """Trust goes to the address with the most history, never to the first to arrive:
    while the two are level neither is an impostor; once the real one has written more
    often, the spoofer's next mail is."""
    workspace.rules_file.write_text("## Always notify\n- Emails from my accountant Tomas Herrera\n")
    model.default = reply("ok")
    spoof = {"name": "Tomas Herrera", "address": "tomas.herrera@tax-refunds.example"}
    ingest([make_event(sender=spoof, subject="Your refund")])
    await engine.tic.tick()
    first_real = make_event(sender=TOMAS, subject="Q3 VAT return")
    ingest([first_real])
    await engine.tic.tick()
    second_real = make_event(sender=TOMAS, subject="Q4 VAT return")
    third_real = make_event(sender=TOMAS, subject="Payroll")
    ingest([second_real])
    await engine.tic.tick()
    ingest([third_real])
    await engine.tic.tick()
    spoof_again = make_event(sender=spoof, subject="Your refund, again")
    ingest([spoof_again])
    await engine.tic.tick()
    rows = {r.event_id: r for r in EventRecord.select()}
    for real in (first_real, second_real, third_real):
        assert rows[real.id].decision_notify is True
        assert rows[real.id].decision_rule == "Emails from my accountant Tomas Herrera"
    assert rows[spoof_again.id].decision_notify is False
    assert rows[spoof_again.id].decision_reason.startswith(
        "possibly an impersonation: the sender name \u201cTomas Herrera\u201d is known to write "
        "from herrera-lutz.es, not from tax-refunds.example"
    )
    await engine.hub.drain(timeout=5)


def test_history_counts_every_address_under_a_name_and_the_most_wins(db):
    from engine.store.inbox import sender_history
    from engine.triage.senders import KnownSenders

    real = {"name": "Tomas Herrera", "address": "tomas@herrera-lutz.es"}
    ingest(
        [
            make_event(sender={"name": "Tomas Herrera", "address": "t@spoof.example"}),
            make_event(sender=real),
            make_event(sender={**real, "address": "tomas@mail.herrera-lutz.es"}),
            make_event(
                source="whatsapp",
                event_type="whatsapp.message",
                sender={"name": "Marco", "address": "+39 347 555 0101"},
            ),
        ]
    )
    history = sender_history([("email", "Tomas Herrera"), ("whatsapp", "Marco")])
    assert history[("email", "Tomas Herrera")] == {
        "t@spoof.example": 1,
        "tomas@herrera-lutz.es": 1,
        "tomas@mail.herrera-lutz.es": 1,
    }
    known = KnownSenders.from_rules([], history)
    assert known.domains_for("TOMAS  HERRERA") == {"herrera-lutz.es"}  # 2 against 1
    assert known.numbers_for("Marco") == set()  # one message establishes nothing


async def test_a_push_name_from_another_number_does_not_get_the_contacts_rule(workspace, model):
    """On WhatsApp the number vouches, never the name someone picked for themselves."""
    rules = "## Always notify\n- Messages from Marco\n"

    def chat_message(number: str, text: str, group: bool) -> object:
        digits = "".join(ch for ch in number if ch.isdigit())
        return make_event(
            source="whatsapp",
            event_type="whatsapp.message",
            sender={"name": "Marco", "address": number},
            subject=None,
            text=text,
            chat={
                "id": "1203630001@g.us" if group else f"{digits}@s.whatsapp.net",
                "name": "Calcetto" if group else "Marco",
                "is_group": group,
            },
        )

    history = {("whatsapp", "Marco"): {"+39 347 555 0101": 6, "+44 7700 900123": 1}}
    real = chat_message("+39 347 555 0101", "Ci vediamo alle 8?", group=False)
    direct = chat_message("+44 7700 900123", "Ciao, sono Marco, mi mandi il codice?", False)
    in_group = chat_message("+44 7700 900123", "@you call me", group=True)
    decided = await TriageDecider(model, workspace).decide_each(
        [real, direct, in_group], NOW, rules_text=rules, history=history
    )
    genuine, fake_direct, fake_group = decided
    assert genuine.notify is True  # type: ignore[union-attr]
    for fake in (fake_direct, fake_group):
        assert fake.notify is False  # type: ignore[union-attr]
        assert "has written from +393475550101" in fake.reason  # type: ignore[union-attr]


async def test_a_mute_that_would_silence_others_is_not_added_and_says_why(
    engine, model, workspace, monkeypatch
):
    """The preview refuses a rule that reaches beyond the muted thing: should the rule for
    an event ever come out broad, it silences nothing the user did not point at."""
    import engine.chat.hub as hub_module

    workspace.rules_file.write_text("## Always notify\n- Emails from Tomas Herrera\n")
    model.default = reply("ok")
    first = make_event(sender=TOMAS, subject="VAT")
    other = make_event(sender={"name": "Tomas Herrera", "address": "t@hx2.example"})
    for event in (first, other):  # a reply each
        ingest([event])
        await engine.tic.tick()
        assert await engine.hub.drain(timeout=5)
    note = ChatMessage.select().where(ChatMessage.content != "").order_by(ChatMessage.id).first()
    monkeypatch.setattr(hub_module, "never_rule_for", lambda event: "Emails from Tomas Herrera")
    before = workspace.rules_file.read_text()
    preview = engine.mute_preview(note.id)
    assert preview.rules == []
    assert len(preview.refused) == 1
    assert (
        "in the last 30 days it would also have silenced 1 other notification"
        in (preview.refused[0])
    )
    answer = await engine.hub.mute(note.id)
    assert "I added no rule \u201cEmails from Tomas Herrera\u201d" in answer.content
    assert workspace.rules_file.read_text() == before
