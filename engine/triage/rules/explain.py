"""Each line of a rules file and how it was understood, in plain words: what ``tic rules``
prints and what a settings page shows beside each line.

    >>> [e.sentence for e in explain("## Never notify\\n- Newsletters and promotions\\n")]
    ['Never notify: newsletters and digests, or marketing and promotions']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import time, timedelta
from typing import Any, Literal

from engine.triage.classifier import KIND_NAMES
from engine.triage.rules.compile import CompiledRule, compile_rules_text, unread_problem
from engine.triage.rules.match import CALENDAR_KEY, Match, Window
from engine.triage.rules.parse import ALWAYS, NEVER, Section, parse_rules
from engine.triage.rules.textfile import UnreadableLine
from engine.triage.rules.vocab import FAMILY_NAMES

NOT_UNDERSTOOD = "\u26a0 not understood \u2014 ignored on the built-in model"
LEFT_TO_MODEL = "\u26a0 not understood \u2014 left to the model to judge"
READ_BY_MODEL = "read by the model as: "
READ_AS_CHOSEN = "read as you chose: "
AppliedBy = Literal["code", "model", "nobody"]
"""Who applies a line: code (it was understood), the model (a capable one judges lines code
could not read), or nobody (a tiny model is not trusted with them: the line is ignored)."""
DAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")
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
        if self.condition:
            out = f"Notify {self.what} only if {self.condition}; otherwise don't"
        else:
            out = f"{self.decision}: {self.what}"
        if self.exclusions:
            out += f" \u2014 except {'; '.join(self.exclusions)}"
        if self.window:
            out = f"{self.window[:1].upper()}{self.window[1:]}: {out[:1].lower()}{out[1:]}"
        if self.catch_all:
            out += " \u2014 only when no other line applies"
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


def explain_rule(rule: CompiledRule, *, capable_model: bool = False) -> LineExplanation:
    section = rule.rule.section
    if rule.action == "only":
        decision = "Notify only if"
    elif section == NEVER or rule.action == "drop":
        decision = "Never notify"
    elif section == ALWAYS:
        decision = "Always notify"
    else:
        decision = "Notify"
    what = "anything" if rule.catch_all else describe(rule.scope)
    condition = ""
    if rule.action == "only":
        said = rule.scope.sources
        condition = describe(replace(rule.condition, sources=rule.condition.sources - said))
    exclusions = [describe(x) for x in rule.exclusions]
    if rule.action == "only" and not rule.negated.empty:
        exclusions.append(describe(rule.negated))
    notes: list[str] = []
    if rule.exception_notifies:
        notes.append("those it excepts are notified")
    notes += [f"\u201c{said}\u201d read as \u201c{read}\u201d" for said, read in rule.corrections]
    if rule.scope.examples:
        notes.append(f"examples given: {', '.join(rule.scope.examples)}")
    return LineExplanation(
        line_number=rule.rule.line_number,
        text=rule.rule.text,
        section=section,
        decision=decision,
        understood=rule.understood,
        what=what,
        condition=condition,
        exclusions=tuple(exclusions),
        window=describe_window(rule.window) if rule.window else "",
        catch_all=rule.catch_all,
        problem=rule.problem,
        applied_by=_applied_by(rule, capable_model),
        notes=tuple(notes),
        unread=() if rule.read_by == "model" else rule.unread,
        read_by=rule.read_by,
    )


def _applied_by(rule: CompiledRule, capable_model: bool) -> AppliedBy:
    if rule.understood and rule.read_by in ("code", "user"):
        return "code"
    return "model" if capable_model else "nobody"


def _either(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"


def _clock(t: time) -> str:
    return t.strftime("%H:%M")


def describe_window(w: Window) -> str:
    if w.days == frozenset({5, 6}):
        days = "on weekends"
    elif w.days == frozenset(range(5)):
        days = "on weekdays"
    elif w.days == frozenset(range(7)):
        days = ""
    else:
        days = "on " + _either([DAYS[d] for d in sorted(w.days)])
    hours = "" if w.start == w.end else f"between {_clock(w.start)} and {_clock(w.end)}"
    return " ".join(p for p in (hours, days) if p) or "at any time"


def _duration(d: timedelta) -> str:
    minutes = int(d.total_seconds() // 60)
    if minutes % (60 * 24 * 7) == 0:
        n, unit = minutes // (60 * 24 * 7), "week"
    elif minutes % (60 * 24) == 0 and minutes >= 60 * 48:
        n, unit = minutes // (60 * 24), "day"
    elif minutes % 60 == 0:
        n, unit = minutes // 60, "hour"
    else:
        n, unit = minutes, "minute"
    return f"{n} {unit}{'s' if n != 1 else ''}"


def _who(m: Match) -> str:
    addresses = [
        f"the event or series with id {a.removeprefix(CALENDAR_KEY)}"
        if a.startswith(CALENDAR_KEY)
        else a
        for a in m.addresses
    ]
    who = [*m.names, *(f"anyone at {d}" for d in m.domains), *addresses]
    for role in m.roles:
        who.append(f"your {role} (saved as {', '.join(FAMILY_NAMES[role][:3])}, \u2026)")
    for kind in sorted(m.sender_kinds - m.kinds):
        who.append(
            {
                "person": "a person writing to you directly" if m.direct else "a person",
                "automated": "an automated sender",
                "bot": "a bot",
                "government": "a government office",
            }.get(kind)
            or KIND_NAMES.get(kind, kind)
        )
    return _either(list(dict.fromkeys(who)))


def describe(m: Match) -> str:
    """A Match in plain words: "emails from Tomas Herrera", "WhatsApp messages in groups
    that mention you", "newsletters and digests, or marketing and promotions"."""
    if m.empty:
        return "anything"
    if m.any_of:
        rest = describe(replace(m, any_of=()))
        options = _either([describe(o) for o in m.any_of])
        return options if rest == "anything" else f"{rest}, and {options}"
    parts = [*_what(m), *_who_and_where(m), *_said(m), *_when_and_how_many(m)]
    return " ".join(parts) if parts else "anything"


def _what(m: Match) -> list[str]:
    """The kind of event: "emails", "WhatsApp messages that are receipts", "anything"."""
    types = [EVENT_TYPES[t] for t in sorted(m.event_types) if t in EVENT_TYPES]
    sources = [SOURCES[s] for s in sorted(m.sources) if s in SOURCES]
    if types and sources == ["calendar events"]:
        sources = []
    head = _either(types + sources)
    kinds = [KIND_NAMES.get(k, k) for k in sorted(m.kinds)]
    if kinds and head:
        return [f"{head} that are {_either(kinds)}"]
    if kinds:
        return [", or ".join(kinds)]
    if head:
        return [head]
    return ["anything"] if m.anything else []


def _who_and_where(m: Match) -> list[str]:
    """Who writes, in which chat, and how it reaches the user."""
    parts: list[str] = []
    who = _who(m)
    if who:
        parts.append(f"from {who}")
    if m.chats:
        parts.append(f"in the {_either([f'“{c}”' for c in m.chats])} chat")
    if m.group is not None:
        parts.append("in groups" if m.group else "in direct chats")
    if m.addressed:
        parts.append("sent to you directly or mentioning you")
    if m.mentions_me is not None:
        parts.append("that mention you" if m.mentions_me else "that do not mention you")
    if m.direct and "person" not in m.sender_kinds:
        parts.append("written by a person to you directly (not through a service)")
    if m.automated:
        parts.append("sent by an automated system")
    return parts


def _said(m: Match) -> list[str]:
    """What the message says: a question, urgency, a subject phrase, its topics."""
    parts: list[str] = []
    asks = [w for w, on in (("asking you something", m.asks), ("time-sensitive", m.urgent)) if on]
    if asks:
        parts.append(_either(asks))
    if m.asks is False:
        parts.append("not asking you anything")
    if m.subject_phrases:
        parts.append(f"with {_either([f'“{p}”' for p in m.subject_phrases])} in the subject")
    if m.topics and m.topic_min == 1 and len(m.topics) > 1:
        parts.append(f"mentioning {_either(list(m.topics))}")
    elif m.topics:
        parts.append(f"about {' '.join(m.topics)}")
    return parts


def _when_and_how_many(m: Match) -> list[str]:
    """The calendar's conditions, party sizes, amounts and the time window."""
    said = [
        (m.calendar_change, "that were moved or cancelled"),
        (m.added_today, "added today"),
        (m.recurring is True, "that recur"),
        (m.in_person, "in person"),
        (m.video, "on video calls"),
    ]
    parts = [text for on, text in said[:2] if on]
    if m.starts_within is not None:
        parts.append(f"starting within {_duration(m.starts_within)}")
    if m.starts_after is not None:
        parts.append(f"starting more than {_duration(m.starts_after)} from now")
    parts += [text for on, text in said[2:] if on]
    if m.min_people is not None:
        parts.append(f"for {m.min_people} people or more")
    if m.max_people is not None:
        parts.append(f"for {m.max_people} people or fewer")
    if m.min_amount is not None:
        parts.append(f"naming an amount over {m.min_amount:,}")
    if m.max_amount is not None:
        parts.append(f"naming amounts under {m.max_amount:,} only")
    if m.within is not None:
        parts.append(describe_window(m.within))
    return parts
