"""Rules can't take the engine down: numbers bounded, parsing linear, a line that fails is
reported and skipped while the rest of the file still applies."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from engine.store.inbox import ingest
from engine.store.models import EventRecord
from engine.triage.decider import TriageDecider, Undecided
from engine.triage.rules import compile as compile_module
from engine.triage.rules.compile import CompiledRule, compile_rules_text
from engine.triage.rules.extract import MAX_WITHIN
from engine.triage.rules.parse import MAX_RULE_CHARS, heading, parse_rules
from tests.factories import make_event, reply

NOW = datetime(2026, 11, 10, 8, tzinfo=UTC)
CALENDAR = {
    "source": "calendar",
    "event_type": "calendar.created",
    "sender": None,
    "subject": "Dentist",
    "calendar": {"start": "2026-11-12T10:00:00+00:00"},
}


@pytest.mark.parametrize(
    "count",
    ["999999999", "99999999999999999999", "9" * 400, "1" + "0" * 40],
    ids=["9 digits", "20 digits", "400 digits", "41 digits"],
)
@pytest.mark.parametrize("unit", ["minutes", "days", "weeks"])
async def test_huge_numbers_are_held_to_a_century(workspace, model, count: str, unit: str):
    rules = (
        f"## Never notify\n- Calendar events that start within {count} {unit}\n"
        "## Always notify\n- Emails from Anna Berg\n"
    )
    (never, _always) = compile_rules_text(rules)
    assert never.scope.starts_within is not None and never.scope.starts_within <= MAX_WITHIN
    decider = TriageDecider(model, workspace)
    far = datetime(9998, 12, 1, tzinfo=UTC)  # even at the end of the calendar
    for now in (NOW, far):
        cal, mail = await decider.decide_each(
            [make_event(**CALENDAR), make_event()], now, rules_text=rules
        )
        assert not isinstance(cal, Undecided) and not isinstance(mail, Undecided)
        assert mail.notify is True and mail.rule == "Emails from Anna Berg"
    (cal,) = await decider.decide([make_event(**CALENDAR)], NOW, rules_text=rules)
    assert cal.notify is False and cal.rule == never.rule.text


async def test_a_tick_under_a_huge_number_gives_up_nothing(engine, model, workspace):
    workspace.rules_file.write_text(
        "## Custom rules\n- Calendar events that start within 999999999 days\n"
        "## Always notify\n- Emails from Anna Berg\n"
    )
    ingest([make_event(**CALENDAR), make_event(), make_event()])
    model.default = reply("ok")
    for _ in range(3):
        result = await engine.tic.tick()
        assert result.error is None
    assert {r.status for r in EventRecord.select()} == {"done"}
    await engine.hub.drain(timeout=5)


@pytest.mark.parametrize(
    "line",
    [
        "# a" + " " * 3000 + "b",
        "# a" + " " * 30_000 + "b #",
        "-" + " " * 30_000,
        "- a" + " " * 30_000 + "\x00",
        " " * 30_000 + "#",
        "1" * 30_000,
        "- " + "a " * 15_000,
    ],
    ids=["heading 3000", "heading 30000", "bullet", "bullet and NUL", "spaces", "digits", "long"],
)
@pytest.mark.allow_log_warnings  # the long line is reported
def test_parsing_is_linear(line: str):
    started = time.perf_counter()
    parse_rules(f"## Never notify\n{line}\n- Newsletters\n" * 3)
    compile_rules_text(f"## Never notify\n{line}\n- Newsletters\n")
    assert time.perf_counter() - started < 0.5  # was 27 s for the first line


def test_headings_read_as_before():
    assert heading("## Never notify ##") == (2, "Never notify")
    assert heading("   #Always") == (1, "Always")
    assert heading("####### Seven") == (6, "# Seven")
    assert heading("##") == (2, "")
    assert heading("#") is None
    assert heading("    # code") is None
    assert heading("text # not a heading") is None


def test_a_rule_line_too_long_is_skipped_and_reported():
    text = "## Never notify\n- " + "spam " * 200 + "\n- Newsletters\n"
    parsed = parse_rules(text)
    assert [r.text for r in parsed.rules] == ["Newsletters"]
    assert parsed.skipped == [
        f"line 2: longer than {MAX_RULE_CHARS} characters, not read as a rule"
    ]


def test_runs_of_spaces_in_a_rule_are_folded():
    (rule,) = parse_rules("## Always notify\n-   Emails \t from    Mario  \n").rules
    assert rule.text == "Emails from Mario"


@pytest.mark.allow_log_warnings
async def test_a_line_that_fails_to_compile_is_reported_and_skipped(
    workspace, model, monkeypatch, caplog
):
    real = compile_module.compile_rule

    def fails_on_one(rule):
        if "Marco" in rule.text:
            raise OverflowError("Python int too large to convert to C int")
        return real(rule)

    monkeypatch.setattr(compile_module, "compile_rule", fails_on_one)
    compile_module._compile_cached.cache_clear()
    compile_module._compile_text.cache_clear()
    rules = (
        "## Never notify\n- Emails from Marco Rossi\n## Always notify\n- Emails from Anna Berg\n"
    )
    compiled = compile_rules_text(rules)
    assert [c.rule.text for c in compiled] == ["Emails from Anna Berg"]
    messages = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert messages == [
        "rules line 2 cannot be read, skipped: Python int too large to convert to C int"
    ]
    (decision,) = await TriageDecider(model, workspace).decide(
        [make_event()], NOW, rules_text=rules
    )
    assert decision.rule == "Emails from Anna Berg"
    compile_module._compile_cached.cache_clear()
    compile_module._compile_text.cache_clear()


@pytest.mark.allow_log_warnings
async def test_a_line_that_fails_on_an_event_is_skipped_for_it_and_named(
    workspace, model, monkeypatch, caplog
):
    real = CompiledRule.applies

    def fails_on_one(self, event, now, kinds):
        if self.rule.text == "Emails from Marco Rossi":
            raise OverflowError("date value out of range")
        return real(self, event, now, kinds)

    monkeypatch.setattr(CompiledRule, "applies", fails_on_one)
    rules = (
        "## Never notify\n- Emails from Marco Rossi\n## Always notify\n- Emails from Anna Berg\n"
    )
    events = [make_event(), make_event(sender={"name": "Zoe", "address": "zoe@example.org"})]
    anna, zoe = await TriageDecider(model, workspace).decide(events, NOW, rules_text=rules)
    assert anna.notify is True and anna.rule == "Emails from Anna Berg"
    assert anna.reason.endswith(
        "(rule lines that could not be applied were skipped: line 2: date value out of range)"
    )
    assert zoe.rule is None  # the heuristics decide
    logged = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert logged[0] == (
        "rule line 2 (\u201cEmails from Marco Rossi\u201d) failed on event "
        f"{events[0].id} and was skipped: date value out of range"
    )
