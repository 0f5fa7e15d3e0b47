"""Each line of a rules file and how it was understood, in plain words: what ``tic rules``
prints and what a settings page shows beside each line.

    >>> [e.sentence for e in explain("## Never notify\\n- Newsletters and promotions\\n")]
    ['Never notify: newsletters and digests, or marketing and promotions']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, time, timedelta
from typing import Any, Literal

from engine.triage.language import raw_table
from engine.triage.rules.compile import CompiledRule, compile_rules_text, unread_problem
from engine.triage.rules.match import CALENDAR_KEY, Match, MonthDay, Window
from engine.triage.rules.parse import ALWAYS, NEVER, Section, parse_rules
from engine.triage.rules.phrasing import ENGLISH, Phrasing, phrasing
from engine.triage.rules.textfile import UnreadableLine
from engine.triage.rules.vocab import FAMILY_NAMES

NOT_UNDERSTOOD = "\u26a0 not understood \u2014 ignored on the built-in model"
LEFT_TO_MODEL = "\u26a0 not understood \u2014 left to the model to judge"
READ_BY_MODEL = "read by the model as: "
READ_AS_CHOSEN = "read as you chose: "
AppliedBy = Literal["code", "model", "nobody"]
"""Who applies a line: code (it was understood), the model (a capable one judges lines code
could not read), or nobody (a tiny model is not trusted with them: the line is ignored)."""
SOURCES = {"email": "emails", "whatsapp": "WhatsApp messages", "calendar": "calendar events"}
EVENT_TYPES = {
    "calendar.created": "new invitations",
    "calendar.updated": "changes",
    "calendar.cancelled": "cancellations",
    "calendar.reminder": "reminders",
}


@dataclass(frozen=True)
class LineExplanation:
    """One rule line: where it is, what it decides, and how it was understood."""

    line_number: int
    text: str
    section: Section
    decision: str
    """ "Always notify", "Never notify", "Notify only when the condition holds", …"""
    understood: bool
    what: str
    """The events the line is about, in plain words ("emails from Tomas Herrera")."""
    condition: str = ""
    """For conditional lines: when they notify ("starting within 24 hours")."""
    exclusions: tuple[str, ...] = ()
    window: str = ""
    catch_all: bool = False
    problem: str | None = None
    applied_by: AppliedBy = "code"
    notes: tuple[str, ...] = field(default_factory=tuple)
    unread: tuple[str, ...] = ()
    """The words of the line no condition accounts for, as written."""
    read_by: str = "code"
    """Who read the line into its conditions: "code", or "model" (a capable model, once)."""
    words: Phrasing = field(default_factory=phrasing, compare=False, repr=False)
    """The language the reading is said in (``engine.triage.rules.phrasing``)."""

    @property
    def sentence(self) -> str:
        """The whole understanding on one line, as ``tic rules`` prints it."""
        if not self.understood:
            flag = LEFT_TO_MODEL if self.applied_by == "model" else NOT_UNDERSTOOD
            if self.unread and self.problem == unread_problem(self.unread):
                said = ", ".join(f"\u201c{w}\u201d" for w in self.unread)
                rest = "" if self.what == "anything" and not self.condition else self.reading
                part = f"; the rest reads \u201c{rest}\u201d" if rest else ""
                return f"{flag} (I can't read {said}{part})"
            why = f" ({self.problem})" if self.problem else ""
            return f"{flag}{why}"
        if self.read_by == "model":
            return f"{READ_BY_MODEL}{self.reading}"
        if self.read_by == "user":
            return f"{READ_AS_CHOSEN}{self.reading}"
        return self.reading

    @property
    def reading(self) -> str:
        """What the line's conditions say, understood or not ("" when they say nothing)."""
        if not self.what and not self.condition:
            return ""
        w = self.words
        if self.condition:
            out = w.text("conditional", what=self.what, condition=self.condition)
        else:
            out = w.text("decided", decision=self.decision, what=self.what)
        if self.exclusions:
            out += w.text("excepted", excluded="; ".join(self.exclusions))
        if self.window:
            window = f"{self.window[:1].upper()}{self.window[1:]}"
            out = w.text("windowed", window=window, rule=f"{out[:1].lower()}{out[1:]}")
        if self.catch_all:
            out += w.text("catch_all")
        return out + "".join(f"; {n}" for n in self.notes)

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line_number,
            "text": self.text,
            "section": self.section,
            "decision": self.decision,
            "understood": self.understood,
            "what": self.what,
            "condition": self.condition or None,
            "exclusions": list(self.exclusions),
            "window": self.window or None,
            "catch_all": self.catch_all,
            "problem": self.problem,
            "applied_by": self.applied_by,
            "notes": list(self.notes),
            "unread": list(self.unread),
            "read_by": self.read_by,
            "explanation": self.sentence,
        }


@dataclass(frozen=True)
class FileNote:
    """A line of the rules file that is no rule: a definition, or the user talking."""

    line_number: int
    text: str
    sentence: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line_number, "text": self.text, "note": self.sentence}


TALK = "read as a note to yourself, not a rule (it says no decision)"


def file_notes(text: str) -> list[FileNote]:
    """The lines that are no rule, with what TIC made of them: who a definition says a role
    is (and the lines it is used in), or a sentence read as talk."""
    parsed = parse_rules(text)
    out = [FileNote(n, t, TALK) for n, t in parsed.notes]
    for d in parsed.definitions:
        used = sorted(
            {r.line_number for r in parsed.rules if r.reading and f"({d.aside})" in r.reading}
        )
        where = f" (used in line{'s' if len(used) > 1 else ''} {', '.join(map(str, used))})"
        out.append(FileNote(d.line_number, d.role, d.sentence + (where if used else "")))
    return sorted(out, key=lambda n: n.line_number)


def unreadable_notes(lines: tuple[UnreadableLine, ...]) -> list[FileNote]:
    """The lines of the rules file left out because they could not be read."""
    return [FileNote(line.line_number, line.text, line.reason) for line in lines]


def explain(
    text: str,
    *,
    capable_model: bool = False,
    readings: Callable[[list[CompiledRule]], list[CompiledRule]] | None = None,
) -> list[LineExplanation]:
    """Every rule line of a rules file's text, in file order, with its understanding.
    ``capable_model``: lines code could not read are left to the model (else ignored);
    ``readings``: the readings that replace code's (a capable model's, the user's choice)."""
    compiled = compile_rules_text(text)
    if readings is not None:
        compiled = readings(compiled)
    explained = [explain_rule(c, capable_model=capable_model) for c in compiled]
    if all(c.understood for c in compiled):
        return explained
    return [  # what "everything else" is cannot be told while a line is unread (``policy``)
        replace(e, notes=(*e.notes, CATCH_ALL_WAITS)) if e.catch_all and e.understood else e
        for e in explained
    ]


CATCH_ALL_WAITS = "not applied while a line of the file is not understood"


def explain_rule(
    rule: CompiledRule, *, capable_model: bool = False, language: str = ENGLISH
) -> LineExplanation:
    """How ``rule`` is understood, said in ``language`` (a supported language's code)."""
    w = phrasing(language)
    section = rule.rule.section
    if rule.action == "only":
        decision = w.text("only_if")
    elif section == NEVER or rule.action == "drop":
        decision = w.text("never")
    elif section == ALWAYS:
        decision = w.text("always")
    else:
        decision = w.text("notify")
    what = w.text("anything") if rule.scope.anything and rule.catch_all else describe(rule.scope, w)
    condition = ""
    if rule.action == "only":
        said = rule.scope.sources
        condition = describe(replace(rule.condition, sources=rule.condition.sources - said), w)
    exclusions = [describe(x, w) for x in rule.exclusions]
    if rule.action == "only" and not rule.negated.empty:
        exclusions.append(describe(rule.negated, w))
    notes: list[str] = []
    if rule.exception_notifies:
        notes.append(w.text("excepts_notified"))
    notes += [w.text("corrected", said=said, read=read) for said, read in rule.corrections]
    examples = (*rule.scope.examples, *rule.condition.examples)
    if examples:
        notes.append(w.text("examples", examples=", ".join(examples)))
    return LineExplanation(
        line_number=rule.rule.line_number,
        text=rule.rule.text,
        section=section,
        decision=decision,
        understood=rule.understood,
        what=what,
        condition=condition,
        exclusions=tuple(exclusions),
        window=describe_window(rule.window, w) if rule.window else "",
        catch_all=rule.catch_all,
        problem=rule.problem,
        applied_by=_applied_by(rule, capable_model),
        notes=tuple(notes),
        unread=() if rule.read_by == "model" else rule.unread,
        read_by=rule.read_by,
        words=w,
    )


def _applied_by(rule: CompiledRule, capable_model: bool) -> AppliedBy:
    if rule.understood and rule.read_by in ("code", "user"):
        return "code"
    return "model" if capable_model else "nobody"


def _clock(t: time) -> str:
    return t.strftime("%H:%M")


def describe_window(window: Window, w: Phrasing | None = None) -> str:
    w = w or phrasing()
    if window.days == frozenset({5, 6}):
        days = w.text("weekends")
    elif window.days == frozenset(range(5)):
        days = w.text("weekdays")
    elif window.days == frozenset(range(7)):
        days = ""
    else:
        days = w.text("on_days", days=w.either([w.day(d) for d in sorted(window.days)]))
    hours = ""
    if window.start != window.end:
        hours = w.text("between", start=_clock(window.start), end=_clock(window.end))
    if window.dates is not None:
        on = w.text("on_dates", dates=_dates(window.dates, w))
        days = w.either([on, days]) if days else on  # "on 8 December or on weekends"
    said = " ".join(p for p in (hours, days) if p) or w.text("any_time")
    if window.or_days:
        return w.either([said, describe_window(Window(days=window.or_days), w)])
    return said


def _dates(dates: frozenset[MonthDay], w: Phrasing) -> str:
    """The dates, runs of days said as their first and last ("24 December – 2 January")."""
    months = raw_table("replies")[w.code]["months"]

    def said(d: MonthDay) -> str:
        return w.text("date", day=d[1], month=months[d[0] - 1])

    ordered = sorted(dates, key=lambda d: (d[0] < 7, d))  # a run over New Year stays one
    runs: list[list[MonthDay]] = []
    for d in ordered:
        if runs and _next_day(runs[-1][-1]) == d:
            runs[-1].append(d)
        else:
            runs.append([d])
    parts = [said(r[0]) if len(r) < 3 else f"{said(r[0])} – {said(r[-1])}" for r in runs]
    if len(runs) == 1 and len(runs[0]) == 2:
        parts = [said(runs[0][0]), said(runs[0][1])]
    return w.either(parts)


def _next_day(d: MonthDay) -> MonthDay:
    nxt = date(2024, d[0], d[1]) + timedelta(days=1)
    return (nxt.month, nxt.day)


def _duration(d: timedelta, w: Phrasing) -> str:
    minutes = int(d.total_seconds() // 60)
    if minutes % (60 * 24 * 7) == 0:
        n, unit = minutes // (60 * 24 * 7), "week"
    elif minutes % (60 * 24) == 0 and minutes >= 60 * 48:
        n, unit = minutes // (60 * 24), "day"
    elif minutes % 60 == 0:
        n, unit = minutes // 60, "hour"
    else:
        n, unit = minutes, "minute"
    return w.text("duration", count=n, unit=w.unit(unit, n))


SENDER_KINDS = {"automated": "automated_sender", "bot": "bot", "government": "government"}
"""The reading keys of the kinds of sender a line names by what they are."""


def _who(m: Match, w: Phrasing) -> str:
    addresses = [
        w.text("series", id=a.removeprefix(CALENDAR_KEY)) if a.startswith(CALENDAR_KEY) else a
        for a in m.addresses
    ]
    who = [*m.names, *(w.text("anyone_at", domain=d) for d in m.domains), *addresses]
    for role in m.roles:
        who.append(w.text("family", role=role, names=", ".join(FAMILY_NAMES[role][:3])))
    for kind in sorted(m.sender_kinds - m.kinds):
        if kind == "person":
            who.append(w.text("person_direct" if m.direct else "person"))
        elif kind in SENDER_KINDS:
            who.append(w.text(SENDER_KINDS[kind]))
        else:
            who.append(w.kind(kind))
    return w.either(list(dict.fromkeys(who)))


def describe(m: Match, w: Phrasing | None = None) -> str:
    """A Match in plain words: "emails from Tomas Herrera", "WhatsApp messages in groups
    that mention you", "newsletters and digests, or marketing and promotions" (in the
    language of ``w``, English by default)."""
    w = w or phrasing()
    if m.empty:
        return w.text("anything")
    if m.any_of:
        rest = describe(replace(m, any_of=()), w)
        options = w.either([describe(o, w) for o in m.any_of])
        return (
            options
            if rest == w.text("anything")
            else w.text("and_options", rest=rest, options=options)
        )
    parts = [*_what(m, w), *_who_and_where(m, w), *_said(m, w), *_when_and_how_many(m, w)]
    return " ".join(parts) if parts else w.text("anything")


_CHANGED = {"calendar.updated": "moved_only", "calendar.cancelled": "cancelled_only"}
"""A calendar change narrowed to one of its two kinds, and how its reading says it."""


def _what(m: Match, w: Phrasing) -> list[str]:
    """The kind of event: "emails", "WhatsApp messages that are receipts", "anything"."""
    said = m.event_types if not m.calendar_change else m.event_types - set(_CHANGED)
    types = [w.mapped("event_types", t.split(".")[1]) for t in sorted(said) if t in EVENT_TYPES]
    if m.calendar_change and not types and not m.sources:
        types = [w.mapped("sources", "calendar")]
    sources = [w.mapped("sources", s) for s in sorted(m.sources) if s in SOURCES]
    if types and sorted(m.sources) == ["calendar"]:
        sources = []
    head = w.either(types + sources)
    kinds = [w.kind(k) for k in sorted(m.kinds)]
    if kinds and head:
        return [w.text("kinds_of", head=head, kinds=w.either(kinds))]
    if kinds:
        return [w.text("kinds_joined").join(kinds)]
    if head:
        return [head]
    return [w.text("anything")] if m.anything else []


def _who_and_where(m: Match, w: Phrasing) -> list[str]:
    """Who writes, in which chat, and how it reaches the user."""
    parts: list[str] = []
    who = _who(m, w)
    if who:
        parts.append(w.text("from", who=who))
    if m.chats:
        parts.append(w.text("in_chat", chats=w.either([w.quoted(c) for c in m.chats])))
    if m.group is not None:
        parts.append(w.text("in_groups" if m.group else "in_direct"))
    if m.addressed:
        parts.append(w.text("addressed"))
    if m.mentions_me is not None:
        parts.append(w.text("mention_you" if m.mentions_me else "not_mention_you"))
    if m.direct and "person" not in m.sender_kinds:
        parts.append(w.text("direct_person"))
    if m.automated:
        parts.append(w.text("automated"))
    return parts


def _said(m: Match, w: Phrasing) -> list[str]:
    """What the message says: a question, urgency, a subject phrase, its topics."""
    parts: list[str] = []
    asks = [w.text(key) for key, on in (("asking", m.asks), ("urgent", m.urgent)) if on]
    if asks:
        parts.append(w.either(asks))
    if m.asks is False:
        parts.append(w.text("not_asking"))
    if m.subject_phrases:
        parts.append(w.text("subject", phrases=w.either([w.quoted(p) for p in m.subject_phrases])))
    if m.topics and m.topic_min == 1 and len(m.topics) > 1:
        parts.append(w.text("mentioning", topics=w.either(list(m.topics))))
    elif m.topics:
        parts.append(w.text("about", topics=" ".join(m.topics)))
    return parts


def _when_and_how_many(m: Match, w: Phrasing) -> list[str]:
    """The calendar's conditions, party sizes, amounts and the time window."""
    changed = [_CHANGED[t] for t in sorted(m.event_types) if t in _CHANGED]
    said = [
        (m.calendar_change, changed[0] if m.calendar_change and len(changed) == 1 else "moved"),
        (m.added_today, "added_today"),
        (m.recurring is True, "recur"),
        (m.in_person, "in_person"),
        (m.video, "video"),
    ]
    parts = [w.text(str(key)) for on, key in said[:2] if on]
    if m.starts_within is not None:
        parts.append(w.text("starting_within", duration=_duration(m.starts_within, w)))
    if m.starts_after is not None:
        parts.append(w.text("starting_after", duration=_duration(m.starts_after, w)))
    parts += [w.text(key) for on, key in said[2:] if on]
    if m.min_people is not None:
        parts.append(w.text("people_more", count=m.min_people))
    if m.max_people is not None:
        parts.append(w.text("people_fewer", count=m.max_people))
    if m.min_amount is not None:
        parts.append(w.text("amount_over", amount=f"{m.min_amount:,}"))
    if m.max_amount is not None:
        parts.append(w.text("amount_under", amount=f"{m.max_amount:,}"))
    if m.within is not None:
        parts.append(describe_window(m.within, w))
    return parts
