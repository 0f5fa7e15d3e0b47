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
from dataclasses import dataclass, field, replace

from engine.triage.classifier import fold
from engine.triage.language import phrase_pattern
from engine.triage.rules.clauses import CATCH_ALL, sentences
from engine.triage.rules.decision import ONLY_IF, OTHERWISE, RESTRICTIVE, WIDENING, line_section
from engine.triage.rules.definitions import Definition, read_definition, with_definitions
from engine.triage.rules.extract import JOIN_WORDS, parse_fragment
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

_NEVER_WORDS = phrase_pattern("headings.never")
_ALWAYS_WORDS = phrase_pattern("headings.always")
_NOTIFY_WORDS = phrase_pattern("headings.notify")
_TITLE_WORDS = phrase_pattern("headings.title")
"""A heading's decision words and the words of a file's title, from the language data."""
MAX_RULE_CHARS = 500
"""A rule line longer than this (after folding spaces) is no rule; it is skipped, reported."""


@dataclass(frozen=True)
class Rule:
    section: Section
    text: str
    line_number: int
    reading: str = ""
    """The text the rule is read from when it differs from ``text``: who the file's
    definitions say a role is, written beside the role."""

    @property
    def read_text(self) -> str:
        return self.reading or self.text


@dataclass
class RuleSet:
    rules: list[Rule] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Why lines that look like rules were not read, one line each ("line 7: …")."""
    notes: list[tuple[int, str]] = field(default_factory=list)
    """Sentences outside the sections that state no decision, read as the user talking
    (line number, text): shown, not applied."""
    definitions: list[Definition] = field(default_factory=list)
    """Who the file says a role is ("my assistant means Dolores Ruiz")."""

    def section(self, name: Section) -> list[Rule]:
        return [r for r in self.rules if r.section == name]

    @property
    def is_empty(self) -> bool:
        return not self.rules


def classify_heading(title: str) -> Section | None:
    """Which section a heading opens; None for the document's title."""
    low = re.sub(r"[^a-z' ]", " ", fold(title))
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
    answered = _answered(low)  # "Nein danke", "Lo que sí", "No grazie", "Ja bitte"
    return answered or CUSTOM


def _answered(low: str) -> Section | None:
    """The decision a heading says as an answer, at its start or its end (language data)."""
    answers: tuple[tuple[str, Section], ...] = (
        ("answers.never", NEVER),
        ("answers.notify", ALWAYS),
    )
    for key, section in answers:
        pattern = phrase_pattern(key)
        if re.match(rf"^(?:{pattern})\b", low) or re.search(rf"(?:^|\s)(?:{pattern})$", low):
            return section
    return None


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
    notes: list[tuple[int, str]] = []
    between: list[tuple[int, str]] = []  # prose under a heading: no rule, maybe a definition
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
        pieces = decided_sentences(rule, prose=section is None and not bullet)
        if pieces is not None:
            talk, decided = pieces
            if section is None:
                notes += [(number, t) for t in talk]
            elif talk:
                rules.append(Rule(section, " ".join(talk), number))
            rules += [Rule(own, t, number) for own, t in decided]
            continue
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
        elif section is None:
            notes.append((number, plain))
        else:
            between.append((number, plain))
    return _defined(RuleSet(rules, skipped, notes), between)


def _defined(parsed: RuleSet, between: list[tuple[int, str]]) -> RuleSet:
    """The file's definitions taken out of its rules, and every other rule read with them."""
    definitions = [
        d for r in parsed.rules if (d := read_definition(r.text, r.line_number)) is not None
    ]
    definitions += [
        d
        for n, t in [*parsed.notes, *between]
        for sentence in sentences(t, semicolons=False)
        if (d := read_definition(sentence, n)) is not None and d.only
    ]
    if not definitions:
        return parsed
    only = {(d.line_number) for d in definitions if d.only}
    rules = []
    for r in parsed.rules:
        if r.line_number in only and read_definition(r.text, r.line_number) is not None:
            continue
        reading = with_definitions(r.text, definitions, r.line_number)
        rules.append(replace(r, reading=reading if reading != r.text else ""))
    notes = [(n, t) for n, t in parsed.notes if n not in only]
    return RuleSet(rules, parsed.skipped, notes, definitions)


CONTRAST = re.compile(
    r"[,;]\s+(?=(?:but|while|whereas|pero|mientras que|aber|wahrend|mais|tandis que|mas|"
    r"enquanto|ma|mentre)\s)",
    re.I,
)


def _contrasted(sentence: str) -> list[str]:
    """ "Newsletters can wait, but anything from Tomas is important": two clauses, each
    with its own decision, are two rules; otherwise the sentence stays whole."""
    # "…; the rest can wait" is the first clause's own otherwise, not a rule of its own
    halves = [h.strip() for h in sentence.split(";")]
    own = len(halves) > 1 and not any(
        CATCH_ALL.search(fold(h)) or re.match(OTHERWISE, fold(h)) for h in halves[1:]
    )
    if own and all(h and line_section(h) is not None for h in halves):
        return halves  # "X matter only when …; the routine ones I can live without."
    parts = CONTRAST.split(sentence)
    if len(parts) < 2:
        return [sentence]
    cleaned = [
        re.sub(
            r"^(?:but|while|whereas|pero|mientras que|aber|wahrend|mais|tandis que|mas|"
            r"enquanto|ma|mentre)\s+",
            "",
            p.strip(),
            flags=re.I,
        )
        for p in parts
    ]
    if all(line_section(p) is not None for p in cleaned):
        return cleaned
    return [sentence]


_REASON_AFTER = re.compile(
    rf"(?:\s*[,;:]|\s+[—–-]{{1,2}})\s+(?={phrase_pattern('predicates.reasons')})", re.I
)
"""Where a clause giving the user's reason starts after an instruction ("…, I'll read them
when I'm ready", "… – those need my sign-off", "…, porque …")."""


def _reasoned(sentence: str, *, prose: bool = False) -> list[str]:
    """A sentence whose instruction comes with the user's reason after it ("…, because …",
    "…, I'll read them when I'm ready"), as two clauses: the instruction, read as a rule, and the
    reason, read as talk (shown as such, never applied). Only where the instruction states
    its decision and the reason states none; otherwise the sentence stays whole. In
    ``prose`` an aside without a reason's first word is talk too ("…, no las necesito en el
    momento"); a line under a heading keeps it (it is not read sentence by sentence)."""
    folded = fold(sentence)
    if len(folded) != len(sentence):
        return [sentence]
    for m in _REASON_AFTER.finditer(folded):
        head, tail = sentence[: m.start()].strip(" ,;:"), sentence[m.end() :].strip()
        if head and tail and line_section(head) is not None and line_section(tail) is None:
            return [head, tail]
    for m in _CLAUSE_AFTER.finditer(folded) if prose else ():
        if folded[: m.start()].count("(") > folded[: m.start()].count(")"):
            continue  # "(weekdays, 9 to 6)": inside an aside, no clause ends
        head, tail = sentence[: m.start()].strip(" ,;:"), sentence[m.end() :].strip()
        if head and tail and line_section(head) is not None and _only_talk(tail):
            return [head, tail]
    return [sentence]


_ADDING = r"\b(?:also|too|aussi|tambien|tambem|ook|zelfs)\b"
"""Words that add to a list (a widening too, though no rule ending takes them)."""
_CLAUSE_AFTER = re.compile(r"\s*[,;:]\s+|\s+[—–-]{1,2}\s+")
_HEDGES = re.compile(rf"{RESTRICTIVE}|\b(?:{ONLY_IF})\b|{phrase_pattern('clauses.conditions')}")


_GOES_ON = re.compile(rf"^\s*(?:{JOIN_WORDS})\b|{WIDENING}|{_ADDING}")
"""A clause that goes on with the line's list or widens it ("…, or for anything else",
"…, auch diese ELSTER-…"): part of the instruction."""


def _only_talk(clause: str) -> bool:
    """A clause after an instruction that states no decision, no condition, does not go on
    with its list, and names no one and no kind of message ("…, no las necesito en el
    momento"): the user's aside."""
    low = fold(clause)
    if line_section(clause) is not None or _HEDGES.search(low) or _GOES_ON.search(low):
        return False
    found = parse_fragment(clause)
    return not (found.has_identity() or found.named_kinds() or found.topics or found.anything)


def decided_sentences(
    text: str, *, prose: bool = False
) -> tuple[list[str], list[tuple[Section, str]]] | None:
    """A line of several sentences, some of them saying their own decision after the
    first ("ShowingTime confirmations: no. Cancelled showings: yes.", a paragraph of
    instructions): (the sentences before the first decided one, read as talk; each decided
    sentence with the undecided ones after it, which qualify it). None when the line is
    one rule (one sentence, or only its first says a decision). A paragraph outside the
    sections (``prose``) is always read sentence by sentence."""
    parts = [
        r
        for s in sentences(text, semicolons=False)
        for c in _contrasted(s)
        for r in _reasoned(c, prose=prose)
    ]
    if len(parts) < 2 or any(len(p) > MAX_RULE_CHARS for p in parts):
        return None
    owns = [line_section(p) for p in parts]
    if not any(owns[1:]) and not prose:
        return None
    talk: list[str] = []
    decided: list[tuple[Section, str]] = []
    for part, own in zip(parts, owns, strict=True):
        if own is not None:
            decided.append((own, part))
        elif decided and not prose:  # in a paragraph each sentence stands alone
            section, said = decided[-1]
            decided[-1] = (section, f"{said} {part}")
        else:
            talk.append(part)
    return talk, decided
