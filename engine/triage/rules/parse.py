"""Reading ``data/notifications.md``: sections and their rule lines, tolerant of bullet
styles, heading case and spacing, and extra prose. Unknown sections count as custom rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Literal

Section = Literal["always", "never", "custom"]
"""Which heading a rule line is under: Always notify, Never notify, or any other (custom)."""

ALWAYS: Final = "always"
NEVER: Final = "never"
CUSTOM: Final = "custom"

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(.*\S)\s*$")


@dataclass(frozen=True)
class Rule:
    section: Section
    text: str
    line_number: int


@dataclass
class RuleSet:
    rules: list[Rule] = field(default_factory=list)

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


def parse_rules(text: str) -> RuleSet:
    rules: list[Rule] = []
    section: Section | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading:
            section = classify_heading(heading.group(1))
            continue
        bullet = _BULLET.match(line)
        if bullet:
            rules.append(Rule(section or CUSTOM, bullet.group(1), number))
    return RuleSet(rules)
