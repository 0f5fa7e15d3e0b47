"""What a rules text would have decided for the latest events: the Settings → Rules page's
preview, so a user sees the effect of an edit before saving it.

Each event is decided at the moment TIC decided it (an event not decided yet: now), by the
decider's code-only pipeline: the store is only read, and no model is asked. On a capable
model the lines code could not read would go to the model at the next check; the preview
leaves them out and says which they are (``unjudged_lines``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from engine.events import Event
from engine.store.recent import StoredEvent
from engine.triage.decider import TriageDecider
from engine.triage.holds import Hold
from engine.triage.policy import PolicyDecision
from engine.triage.rules.compile import compile_rules_text

ABOUT_LIMIT = 90


@dataclass(frozen=True)
class PreviewedEvent:
    """One event under the previewed rules."""

    event_id: str
    time: datetime
    source: str
    sender: str
    """Who it is from ("Tomas Herrera", "Ana in “Family”")."""
    about: str
    """Its subject, or the start of its text."""
    notify: bool
    reason: str
    rule: str | None
    """The rule line that decided it (None: TIC's built-in judgement did)."""
    line_number: int | None
    before: bool | None
    """What TIC decided when it met the event (None: not decided yet)."""

    @property
    def changed(self) -> bool:
        """The previewed rules decide it differently from what TIC did."""
        return self.before is not None and self.before != self.notify


@dataclass(frozen=True)
class RulesPreview:
    events: tuple[PreviewedEvent, ...]
    unjudged_lines: tuple[int, ...] = ()
    """Lines a capable model would judge at the next check, left out of this preview."""
    held: tuple[Hold, ...] = ()
    """Lines held for the user's yes (they would silence most recent messages): left out
    of this preview, as the next check leaves them out."""

    def line_counts(self) -> dict[int, tuple[int, int]]:
        """For each line that decided an event: how many it notified, how many it silenced."""
        counts: dict[int, tuple[int, int]] = {}
        for row in self.events:
            if row.line_number is None:
                continue
            notified, silenced = counts.get(row.line_number, (0, 0))
            counts[row.line_number] = (notified + row.notify, silenced + (not row.notify))
        return counts

    @property
    def notified(self) -> int:
        return sum(row.notify for row in self.events)

    @property
    def changed(self) -> int:
        return sum(row.changed for row in self.events)


def _short(text: str, limit: int = ABOUT_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def sender_of(event: Event) -> str:
    who = (event.sender.name or event.sender.address) if event.sender else None
    chat = event.chat
    if chat is not None and chat.is_group and chat.name:
        return f"{who} in \u201c{chat.name}\u201d" if who else f"\u201c{chat.name}\u201d"
    return who or (chat.name if chat and chat.name else "") or "unknown sender"


def about(event: Event) -> str:
    return _short(event.subject or event.text or "")


def preview_rules(
    stored: Sequence[StoredEvent],
    text: str,
    now: datetime,
    *,
    capable_model: bool,
    held: Sequence[Hold] = (),
    accepted: dict[str, str] | None = None,
) -> RulesPreview:
    """``stored`` decided under ``text``. Pure and blocking: it may run off the event loop."""
    skip = frozenset(h.text for h in held)
    verdicts = TriageDecider.decide_in_code(
        ((s.event, s.decided_at or now) for s in stored), text, skip, accepted
    )
    compiled = compile_rules_text(text)
    lines: dict[tuple[str, str | None], int] = {}
    for rule in compiled:  # a line by its text and section; the same text twice: the first
        lines.setdefault((rule.rule.text, rule.rule.section), rule.rule.line_number)
        lines.setdefault((rule.rule.text, None), rule.rule.line_number)
    rows = tuple(
        PreviewedEvent(
            event_id=s.event.id,
            time=s.event.time,
            source=s.event.source,
            sender=sender_of(s.event),
            about=about(s.event),
            notify=v.notify,
            reason=v.reason,
            rule=v.rule,
            line_number=_line(lines, v),
            before=s.notified,
        )
        for s, v in zip(stored, verdicts, strict=True)
    )
    unjudged = tuple(c.rule.line_number for c in compiled if not c.understood)
    return RulesPreview(rows, unjudged if capable_model else (), tuple(held))


def _line(lines: dict[tuple[str, str | None], int], verdict: PolicyDecision) -> int | None:
    if verdict.rule is None:
        return None
    return lines.get((verdict.rule, verdict.by)) or lines.get((verdict.rule, None))
