"""Reading ``data/notifications.md``: sections and their rule lines, tolerant of bullet
styles, heading case and spacing, and extra prose. Unknown sections count as custom rules.

Reading takes time linear in the file (no pattern here can backtrack over a run of spaces),
and a rule's text has its runs of spaces folded to one: nothing downstream sees a long run.
A line too long to be a rule is skipped and reported (``RuleSet.skipped``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Literal

Section = Literal["always", "never", "custom"]
"""Which heading a rule line is under: Always notify, Never notify, or any other (custom)."""

ALWAYS: Final = "always"
NEVER: Final = "never"
CUSTOM: Final = "custom"

_HEADING = re.compile(r"\s{0,3}(#{1,6})")
_BULLET = re.compile(r"\s*(?:[-*+•]|\d+[.)])\s+(\S.*)")
MAX_RULE_CHARS = 500
"""A rule line longer than this (after folding spaces) is no rule; it is skipped, reported."""


@dataclass(frozen=True)
class Rule:
    section: Section
    text: str
    line_number: int


@dataclass
class RuleSet:
    rules: list[Rule] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Why lines that look like rules were not read, one line each ("line 7: …")."""

    def section(self, name: Section) -> list[Rule]:
        return [r for r in self.rules if r.section == name]

    @property
    def is_empty(self) -> bool:
        return not self.rules


def classify_heading(title: str) -> Section | None:
    """Which section a heading opens; None for the document title."""
    low = re.sub(r"[^a-z ]", " ", title.lower())
    low = " ".join(low.split())
    # The heading's first keyword decides: "Always notify (never miss these)" is Always.
    never = re.search(r"\b(never|don t|do not|mute|ignore|silence)\b", low)
    always = re.search(r"\balways\b", low)
    if never and not (always and always.start() < never.start()):
        return NEVER
    if always:
        return ALWAYS
    if "preference" in low and "notification" in low:
        return None
    return CUSTOM


def heading(line: str) -> tuple[int, str] | None:
    """A Markdown heading's level and title ("## Never notify ##" → (2, "Never notify")),
    else None. Linear in the line's length."""
    m = _HEADING.match(line)
    if m is None or len(line) == m.start(1) + 1:
        return None
    title = line[m.end() :].strip().rstrip("#").strip()
    return len(m.group(1)), title


def parse_rules(text: str) -> RuleSet:
    rules: list[Rule] = []
    skipped: list[str] = []
    section: Section | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        head = heading(line)
        if head is not None:
            section = classify_heading(head[1])
            continue
        bullet = _BULLET.match(line)
        if bullet:
            rule = " ".join(bullet.group(1).split())
            if len(rule) > MAX_RULE_CHARS:
                skipped.append(
                    f"line {number}: longer than {MAX_RULE_CHARS} characters, not read as a rule"
                )
                continue
            rules.append(Rule(section or CUSTOM, rule, number))
    return RuleSet(rules, skipped)
