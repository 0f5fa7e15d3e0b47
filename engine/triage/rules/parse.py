"""Reading ``data/notifications.md``: sections and their rule lines, tolerant of bullet
styles, heading case and spacing, languages and extra prose.

A section opens with a Markdown heading or a line that is only a label ("Notify:",
"skip:"); the heading's first decision word decides it ("Always notify", "Don't notify me
about", "No me avises", "À ignorer", "Notificar"). Unknown sections count as custom rules.
Under a section, bullets are rules, and so are "Name: description" lines. Outside the
sections, a line counts only when it says its own decision ("Never notify me about …",
"Avísame siempre que …", "… — never notify"); other prose is the user talking.

Reading takes time linear in the file (no pattern here can backtrack over a run of spaces:
a line's runs of spaces are folded to one before any pattern reads it), and a line too long
to be a rule is skipped and reported (``RuleSet.skipped``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.triage.classifier import fold
from engine.triage.rules.decision import line_section
from engine.triage.rules.sections import ALWAYS, CUSTOM, NEVER, Section

__all__ = [
    "ALWAYS",
    "CUSTOM",
    "NEVER",
    "Rule",
    "RuleSet",
    "Section",
    "classify_heading",
    "parse_rules",
]

_HEADING = re.compile(r"\s{0,3}(#{1,6})")
_LABEL = re.compile(r"^\s*([^\s:#*-][^:]{0,40}?)\s*:\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(.*\S)\s*$")
_DESCRIPTIVE = re.compile(r"^\s*[^\s:][^:]{0,60}?\s*:\s*\S")

_NEVER_WORDS = (
    r"\b(never|don t|do not|dont|mute|ignore|silence|skip|no me avises|no avisar|no notificar|"
    r"nunca|ignorar|nicht|nie|niemals|ignorieren|stumm|ne pas|jamais|ignorer|a ignorer|nao|"
    r"non|mai|ignorare|silenziare)\b"
)
_ALWAYS_WORDS = r"\b(always|siempre|immer|toujours|sempre)\b"
_NOTIFY_WORDS = (
    r"\b(notify|notify me|tell me|alert me|avisame|avisar|notificar|notificame|benachrichtigen|"
    r"benachrichtige|melden|a signaler|signaler|notifier|previens|notificare|avvisami|"
    r"segnalare|avise)\b"
)
_TITLE_WORDS = r"\b(preferences?|preferencias|einstellungen|preferences|preferencias|preferenze)\b"
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
    """Which section a heading opens; None for the document's title."""
    low = re.sub(r"[^a-z ]", " ", fold(title))
    low = " ".join(low.split())
    # The heading's first keyword decides: "Always notify (never miss these)" is Always.
    never = re.search(_NEVER_WORDS, low)
    always = re.search(_ALWAYS_WORDS, low)
    if never and not (always and always.start() < never.start()):
        return NEVER
    if always:
        return ALWAYS
    if re.search(_NOTIFY_WORDS, low) and not re.search(_TITLE_WORDS, low):
        return ALWAYS
    titled = bool(re.search(_TITLE_WORDS, low))
    if titled or (re.search(r"\bnotifications?\b", low) and "rule" not in low):
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
            level, title = head
            found = classify_heading(title)
            section = None if level == 1 and found == CUSTOM else found
            continue
        plain = " ".join(line.split())
        if not plain:
            continue
        bullet = _BULLET.match(plain)
        label = None if bullet else _LABEL.match(plain)
        if label:
            section = classify_heading(label.group(1))
            continue
        rule = bullet.group(1) if bullet else plain
        if len(rule) > MAX_RULE_CHARS:
            if bullet or section is not None:
                skipped.append(
                    f"line {number}: longer than {MAX_RULE_CHARS} characters, not read as a rule"
                )
            continue
        if bullet:
            own = line_section(rule)
            rules.append(Rule(own or section or CUSTOM, rule, number))
            continue
        own = line_section(plain)
        if own is not None:
            rules.append(Rule(own, plain, number))
        elif section is not None and _DESCRIPTIVE.match(plain):
            rules.append(Rule(section, plain, number))
    return RuleSet(rules, skipped)
