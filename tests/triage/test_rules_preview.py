"""The façade behind Settings → Rules: the rules file saved atomically (and used by the next
check), and a preview of what a rules text would have done with the latest events — read
from the store without changing it, decided in code, never asking the model."""

from __future__ import annotations

import errno
from datetime import timedelta
from pathlib import Path

import pytest

from engine.clock import utcnow
from engine.errors import TicError
from engine.llm.scripted import ScriptedModel
from engine.store.models import EventRecord
from engine.triage.decider import TriageDecider
from engine.triage.rules.explain import NOT_UNDERSTOOD
from tests.factories import make_event

RULES = "## Always notify\n- Emails from Anna Berg\n\n## Never notify\n- Newsletters\n"
GARBAGE = "- when the moon is blue and bananas\n"
NEWSLETTER = {
    "sender": {"name": "Weekly", "address": "news@weekly.example"},
    "subject": "The weekly digest",
    "text": "This week's stories.",
    "headers": {"List-Unsubscribe": "<mailto:u@weekly.example>"},
}
PROMO = {
    "sender": {"name": "Shopfair", "address": "deals@mail.shopfair.example"},
    "subject": "Flash sale: 40% off everything",
    "text": "Shop now, ends tonight.",
}


@pytest.fixture
def model() -> ScriptedModel:
    """Tiny: notifications are worded in code, so a tick makes no model call."""
    return ScriptedModel(capability="tiny")


def snapshot() -> list[tuple[object, ...]]:
    return [
        (r.event_id, r.status, r.decision_notify, r.decision_rule, r.processed_at, r.attempts)
        for r in EventRecord.select().order_by(EventRecord.id)
    ]


# --- saving ------------------------------------------------------------------------------


async def test_save_rules_replaces_the_file_in_one_step(engine, workspace, monkeypatch):
    workspace.rules_file.write_text(RULES, encoding="utf-8")
    new = RULES + "- Receipts\n"
    seen: list[tuple[str, str]] = []
    real_replace = Path.replace

    def replace(self: Path, target: Path) -> Path:  # the moment the new text takes over
        seen.append((Path(target).read_text(encoding="utf-8"), self.read_text(encoding="utf-8")))
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    assert engine.save_rules(new, replacing=RULES) is True
    assert seen == [(RULES, new)]  # the old text until the complete new one replaced it
    assert engine.rules_text() == new
    assert [p.name for p in workspace.data_dir.iterdir() if p.is_file()] == ["notifications.md"]


async def test_a_file_changed_meanwhile_is_not_overwritten(engine, workspace):
    workspace.rules_file.write_text(RULES, encoding="utf-8")
    from_chat = RULES + "- Emails from Mario\n"
    workspace.rules_file.write_text(from_chat, encoding="utf-8")  # the chat added a rule
    assert engine.save_rules(RULES + "- Receipts\n", replacing=RULES) is False
    assert engine.rules_text() == from_chat
    assert engine.save_rules(RULES + "- Receipts\n") is True  # saved when the user insists


async def test_a_linked_rules_file_is_written_through_its_link(engine, workspace, tmp_path):
    kept = tmp_path / "dotfiles" / "notifications.md"
    kept.parent.mkdir()
    kept.write_text(RULES, encoding="utf-8")
    workspace.rules_file.unlink()
    workspace.rules_file.symlink_to(kept)
    assert engine.save_rules(RULES + "- Receipts\n", replacing=RULES)
    assert workspace.rules_file.is_symlink()
    assert kept.read_text(encoding="utf-8").endswith("- Receipts\n")


async def test_a_save_that_fails_is_one_line(engine, workspace, monkeypatch):
    workspace.rules_file.write_text(RULES, encoding="utf-8")

    def full_disk(self: Path, target: Path) -> Path:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "replace", full_disk)
    with pytest.raises(TicError) as caught:
        engine.save_rules(RULES + "- Receipts\n")
    assert str(caught.value) == "cannot save data/notifications.md: No space left on device"
    assert engine.rules_text() == RULES
    assert [p.name for p in workspace.data_dir.iterdir() if p.is_file()] == ["notifications.md"]


async def test_the_next_check_uses_the_saved_rules(engine, workspace):
    workspace.rules_file.write_text(RULES, encoding="utf-8")
    engine.ingest([make_event(**PROMO)])
    engine.save_rules(RULES.replace("## Never notify", "- Emails from Shopfair\n## Never notify"))
    result = await engine.check_now(timeout=5)
    assert (result.events, result.notified) == (1, 1)
    assert EventRecord.get().decision_rule == "Emails from Shopfair"


# --- the preview ---------------------------------------------------------------------------


async def test_the_preview_reproduces_what_tic_decided_and_changes_nothing(engine, workspace):
    workspace.rules_file.write_text(RULES, encoding="utf-8")
    at = [{"time": f"2026-11-10T08:0{n}:00+00:00"} for n in range(4)]  # the order is known
    engine.ingest(
        [make_event(**at[0]), make_event(**NEWSLETTER, **at[1]), make_event(**PROMO, **at[2])]
    )
    await engine.check_now(timeout=5)
    engine.ingest(
        [make_event(sender={"name": "Anna Berg", "address": "anna@example.org"}, **at[3])]
    )
    before = snapshot()

    preview = await engine.preview_rules(RULES)

    assert snapshot() == before  # read only: the pending event is still pending
    assert [(r.notify, r.before) for r in preview.events[1:]] == [
        (r.decision_notify, r.decision_notify)
        for r in EventRecord.select()
        .where(EventRecord.status == "done")
        .order_by(EventRecord.time.desc())
    ]
    assert preview.changed == 0
    pending = preview.events[0]  # the newest
    assert pending.before is None and pending.notify and pending.line_number == 2
    assert (pending.sender, pending.source) == ("Anna Berg", "email")
    assert preview.line_counts() == {2: (2, 0), 5: (0, 1)}


async def test_an_added_line_changes_the_preview(engine, workspace):
    workspace.rules_file.write_text(RULES, encoding="utf-8")
    engine.ingest([make_event(**PROMO), make_event()])
    await engine.check_now(timeout=5)
    edited = RULES + "- Emails from Anna Berg\n"  # a Never line now: Never wins
    preview = await engine.preview_rules(edited)
    (anna,) = [r for r in preview.events if r.sender == "Anna Berg"]
    assert (anna.notify, anna.before, anna.changed) == (False, True, True)
    assert anna.rule == "Emails from Anna Berg" and anna.line_number == 6
    assert preview.changed == 1


async def test_the_preview_never_asks_the_model_and_names_the_lines_it_leaves_out(workspace):
    from engine.engine import Engine
    from engine.settings import Settings

    capable = ScriptedModel()  # capable: at a check, a line code cannot read goes to it
    engine = Engine(workspace, Settings(), capable)
    try:
        engine.ingest([make_event(**PROMO)])
        preview = await engine.preview_rules(RULES + GARBAGE)
        assert capable.calls == []
        assert preview.unjudged_lines == (6,)
        assert preview.events[0].notify is False  # the built-in judgement: marketing
        await engine.swap_model(ScriptedModel(capability="tiny"))
        assert (await engine.preview_rules(RULES + GARBAGE)).unjudged_lines == ()
        assert engine.rules_report(RULES + GARBAGE)[-1].sentence.startswith(NOT_UNDERSTOOD)
    finally:
        await engine.stop()


async def test_the_preview_takes_the_latest_events_newest_first(engine, model, monkeypatch):
    start = utcnow() - timedelta(days=1)
    events = [
        make_event(time=(start + timedelta(minutes=i)).isoformat(), subject=f"Question {i}")
        for i in range(60)
    ]
    engine.ingest(events)
    passes: list[int] = []
    decide_in_code = TriageDecider.decide_in_code

    def counted(events, *args, **kwargs):
        events = list(events)
        passes.append(len(events))
        return decide_in_code(events, *args, **kwargs)

    monkeypatch.setattr(TriageDecider, "decide_in_code", staticmethod(counted))
    preview = await engine.preview_rules(RULES)
    assert [r.about for r in preview.events] == [f"Question {i}" for i in range(59, 9, -1)]
    assert passes == [50] and model.calls == []  # one pass in code over the 50, no model
    assert len((await engine.preview_rules(RULES, limit=5)).events) == 5
