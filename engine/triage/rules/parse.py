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
from engine.triage.classifier.text import fold_with_map
from engine.triage.language import alternation, phrase_pattern, phrases
from engine.triage.rules.clauses import CATCH_ALL, sentences
from engine.triage.rules.decision import (
    ENDS_NEGATED,
    EXCEPT,
    ONLY_IF,
    OTHERWISE,
    RESTRICTIVE,
    WIDENING,
    line_section,
    read_decision,
)
from engine.triage.rules.definitions import Definition, read_definition, with_definitions
from engine.triage.rules.extract import JOIN_WORDS, parse_fragment
from engine.triage.rules.match import Match
from engine.triage.rules.negation import NEGATION
from engine.triage.rules.sections import ALWAYS, CUSTOM, NEVER, Section
from engine.triage.rules.windows import find_window

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
_NUMBERED = re.compile(
    rf"^\s*(?:[-*+•]\s+)?{phrase_pattern('headings.rule')}\.?\s*\d+\s*(?:[.:)]|\s[—–-]{{1,2}})\s+(?=\S)"
)


def _without_numbering(line: str) -> str:
    """ "Regel 6 – WhatsApp-Gruppen: nie" → "- WhatsApp-Gruppen: nie": a line numbered in
    words is a bullet like "6." (the word for "rule" from the language data)."""
    m = _NUMBERED.match(fold_with_map(line)[0])
    if m is None:
        return line
    return f"- {line[fold_with_map(line)[1][m.end() - 1] + 1 :].strip()}"


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


def _first_keyword(low: str) -> Section | None:
    """The heading's first keyword decides: "Always notify (never miss these)" is Always. A
    negation before "can wait" turns it round ("Lo que no puede esperar", "Isso não pode
    esperar"), and the negation is then no keyword of its own."""
    said: list[tuple[int, int, Section]] = [
        (m.start(), -len(m.group(0)), ALWAYS) for m in re.finditer(_ALWAYS_WORDS, low)
    ]
    turned: list[int] = []
    for m in re.finditer(_NEVER_WORDS, low):
        negated = None
        if not _A_NEGATION.search(m.group(0)):
            negated = ENDS_NEGATED.search(low[: m.start()])
        said.append((m.start(), -len(m.group(0)), ALWAYS if negated else NEVER))
        turned += [negated.start()] if negated else []
    said = [s for s in said if not (s[2] == NEVER and any(abs(s[0] - t) <= 1 for t in turned))]
    return min(said)[2] if said else None


_A_NEGATION = re.compile(
    rf"\b(?:{NEGATION}|ne|niet|nooit|{alternation(phrases('words.nothing'))})\b"
)
"""A "can wait" phrase that is itself a negation ("ne jamais", "nicht") is not turned round."""


def classify_heading(title: str) -> Section | None:
    """Which section a heading opens; None for the document's title."""
    low = re.sub(r"[^a-z' ]", " ", fold(title))
    low = " ".join(low.split())
    first = _first_keyword(low)
    if first is not None:
        return first
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


def parse_rules(text: str, *, said_in_chat: bool = False) -> RuleSet:
    """The rules of a rules file. ``said_in_chat``: the text is a chat message, where a
    sentence that restricts or says a word that decides, but no decision the reader
    places, is what the user tells ("Yannick m'écrit pour rien.", "…, der schickt nur noch
    Sprachnachrichten"), not a line of a file to flag."""
    rules: list[Rule] = []
    skipped: list[str] = []
    notes: list[tuple[int, str]] = []
    between: list[tuple[int, str]] = []  # prose under a heading: no rule, maybe a definition
    section: Section | None = None
    previous = 0  # the last line that held words
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
        bullet = _BULLET.match(_without_numbering(plain))
        label = None if bullet else _LABEL.match(plain)
        if label:
            section = classify_heading(label.group(1))
            continue
        rule = bullet.group(1) if bullet else plain
        went_on = rules and rules[-1].line_number == previous and _goes_on(rules, rule)
        previous = number
        if went_on:
            continue
        pieces = decided_sentences(rule, prose=section is None and not bullet)
        if pieces is not None:
            _sentences_read(pieces, section, number, rules, notes, said_in_chat)
            continue
        if len(rule) > MAX_RULE_CHARS:
            if bullet or section is not None:
                skipped.append(
                    f"line {number}: longer than {MAX_RULE_CHARS} characters, not read as a rule"
                )
            continue
        if bullet:
            own = line_section(rule)
            if section == NEVER and own == ALWAYS and _YES_SAID.search(fold(rule)):
                own = NEVER  # "Promotions and sales — yes, …" under Never: yes, never these
            rules.append(Rule(own or section or CUSTOM, rule, number))
            continue
        own = line_section(plain)
        if own is not None:
            rules.append(Rule(own, plain, number))
        elif section is not None and _DESCRIPTIVE.match(plain):
            rules.append(Rule(section, plain, number))
        elif section is None:
            _talk_or_rule(plain, number, rules, notes, said_in_chat)
        else:
            between.append((number, plain))
    return _defined(RuleSet(rules, skipped, notes), between)


_YES_SAID = re.compile(
    r"(?:[:—–-]|^)\s*(?:"
    + "|".join(re.escape(p) for p in phrases("answers.notify") if len(p) <= 4 and p.isalpha())
    + r")(?![\w'-])"
)
"""A bare "yes" said as a line's answer: under a heading, it says the line belongs there."""


_AFTER_THAT = re.compile(
    rf"^\s*(?:(?:{JOIN_WORDS})\s+)?{phrase_pattern('clauses.otherwise')}(?:[\s,.!]|$)"
)


def _restates_otherwise(
    sentence: str, own: Section | None, *, after_a_window: bool = False
) -> bool:
    """A sentence after a conditional instruction that says what happens outside it and
    asks no more than the silence the condition already keeps ("Fora disso podem esperar",
    "Danach hat das Zeit bis morgen"): the instruction's own otherwise, not a rule. After an
    instruction that holds at some hours, one that says the other hours are fine ("…
    after 10pm. daytime is fine", "De día sí") restates that the line holds then only."""
    if not _AFTER_THAT.match(fold(sentence)):
        return False
    if own not in (None, NEVER) and not (after_a_window and own == ALWAYS):
        return False
    return not _names_what_else(sentence)


_WHATEVER = re.compile(rf"(?<![\w'-])(?:{alternation(phrases('words.whatever'))})(?![\w'-])")


def _any_channel(sentence: str, before: str) -> bool:
    """ "Anything from my sister. Email or WhatsApp, doesn't matter": after a decision that
    names no channel, channels and a word for "whichever" say it holds on each of them: no
    rule of its own (not a Never on every mail)."""
    low = fold(sentence)
    if not _WHATEVER.search(low):
        return False
    said = parse_fragment(_WHATEVER.sub(" ", low))
    if not said.sources or said.unread or said.read_part != Match(sources=said.sources):
        return False
    return not parse_fragment(before).sources


def _names_and_whatever(sentence: str) -> str | None:
    """ "Correios, Mercado Livre, Amazon, tanto faz": a sentence of names that ends on a word
    for "whatever" gives examples of the sentence before; the names, or None."""
    folded, where = fold_with_map(sentence)
    m = re.search(rf",\s*(?:{_WHATEVER.pattern})[\s.!…]*$", folded)
    if m is None:
        return None
    items = [i.strip() for i in sentence[: where[m.start()]].split(",")]
    if len(items) < 2 or any(not i or len(i.split()) > 3 or not i[0].isupper() for i in items):
        return None
    return ", ".join(items)


def _every_channel(sentence: str, before: str) -> bool:
    """ "… möchte ich gar nichts mehr angezeigt bekommen. Weder Mails noch WhatsApp.": after a
    Never that names no channel, a sentence that names channels and nothing else says that
    the Never holds on each of them, as it does: no rule of its own."""
    said = parse_fragment(read_decision(sentence)[0])
    alone = Match(sources=said.sources, anything=said.anything)  # "Ni mail ni rien."
    if not said.sources or said.unread or said.read_part != alone:
        return False
    return not parse_fragment(before).sources


def _hours_told_before(parts: list[str], owns: list[Section | None]) -> dict[str, str]:
    """ "9pm to 4:30am I'm asleep. Only Dad and Tobias get through.": hours told in a
    sentence that decides nothing are when the "only" after it holds. The "only" sentence is
    read with them written in as the reader writes a window ("Between 21:00 and 04:30, only
    …"); it stays as said in the file. Returns the readings by sentence."""
    readings: dict[str, str] = {}
    for i in range(len(parts) - 1):
        _, window = find_window(parts[i])
        said = parts[i + 1]
        if (
            owns[i] is not None
            or window is None
            or window.start is None
            or window.end is None
            or len(window.days) != 7
            or owns[i + 1] != CUSTOM
            or find_window(said)[1] is not None
        ):
            continue
        start, end = f"{window.start:%H:%M}", f"{window.end:%H:%M}"
        readings[said] = f"Between {start} and {end}, {said[0].lower()}{said[1:]}"
    return readings


def _windowed(sentence: str) -> bool:
    return find_window(sentence)[1] is not None


def _sentences_read(
    pieces: tuple[list[str], list[tuple[Section, str]], dict[str, str]],
    section: Section | None,
    number: int,
    rules: list[Rule],
    notes: list[tuple[int, str]],
    said_in_chat: bool,
) -> None:
    """The sentences of one line (``decided_sentences``) added to the file's rules and notes:
    under a heading what they say first qualifies the section's rule."""
    talk, decided, readings = pieces
    if section is None:
        for t in talk:
            _talk_or_rule(t, number, rules, notes, said_in_chat)
    elif talk:
        rules.append(Rule(section, " ".join(talk), number))
    rules += [Rule(own, t, number, readings.get(t, "")) for own, t in decided]


def _goes_on(rules: list[Rule], line: str) -> bool:
    """A line that opens with an exception goes on with the rule of the line before it
    ("Work email only during working hours" / "Except Sophie, she can write whenever")."""
    if not _EXCEPTION_OPENS.match(fold(line)):
        return False
    said = rules[-1].text.rstrip(".!")
    rules[-1] = replace(rules[-1], text=f"{said}, {line[0].lower()}{line[1:]}")
    return True


def _talk_or_rule(
    sentence: str,
    number: int,
    rules: list[Rule],
    notes: list[tuple[int, str]],
    said_in_chat: bool,
) -> None:
    """A sentence of prose that states no decision: a custom rule when it restricts one or
    says a word that decides (``_restricted``), else the user talking."""
    if _restricted(sentence, said_in_chat):
        rules.append(Rule(CUSTOM, sentence, number))
    else:
        notes.append((number, sentence))


_RESTRICTED = re.compile(RESTRICTIVE)


def _restricted(sentence: str, said_in_chat: bool = False) -> bool:
    """A sentence of prose that says no decision the reader places but restricts one
    ("PayPal nur wenn eine Zahlung nicht durchgeht", "Work email only during working hours",
    "Après 21h, plus rien sauf Julien") or says a word that decides: a custom rule, read as
    "notify … only if" or flagged, not talk."""
    said = fold(sentence)
    if said_in_chat or said.endswith("?"):
        return False
    return bool(_RESTRICTED.search(said) or _DECIDES.search(said))


_DECIDING = phrase_pattern("words.decisions")
_DECIDES = re.compile(rf"(?<![\w'-])(?:{_DECIDING})(?![\w'-])")
"""A word that decides ("immer", "rien"): in a rules file, a sentence saying one is read as
a rule, and flagged where the reader cannot place it, never shown as talk."""


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
    answered = _answered_apart(sentence)
    if answered is not None:
        return answered
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


_LABELLED = re.compile(r"^(?P<label>[^:]{1,40}?)\s*:\s*(?P<body>\S.*)$")
_ENDS_YES = re.compile(rf"(?:{phrase_pattern('answers.notify')})[\s.!]*$")
_ENDS_NO = re.compile(rf"(?:{phrase_pattern('answers.never')})[\s.!]*$")


def _answered_apart(sentence: str) -> list[str] | None:
    """ "Flights: gate changes yes, the check-in reminders no": items
    each answered, some yes and some no, are as many rules, each with the label."""
    m = _LABELLED.match(sentence)
    label, body = (m.group("label"), m.group("body")) if m else ("", sentence)
    items = [i.strip() for i in re.split(r"\s*[,;]\s+", body) if i.strip()]
    if len(items) < 2:
        return None
    yes = [bool(_ENDS_YES.search(fold(i))) for i in items]
    no = [bool(_ENDS_NO.search(fold(i))) for i in items]
    if not all(y or n for y, n in zip(yes, no, strict=True)) or all(yes) or all(no):
        return None
    if all(line_section(i) is not None for i in items):
        return None  # "Newsletters can wait, but … is important": each a sentence already
    answered = [_ANSWER_LAST.sub(r": \g<answer>", i) for i in items]
    return [f"{label} — {i}" if label else i for i in answered]


_ANSWER_LAST = re.compile(r"\s*[:,—–-]?\s+(?P<answer>\w+)(?P<end>[\s.!]*)$")
"""The answer that ends an item ("Terminänderungen ja"), said after a colon."""


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
        reason = _EXCEPTION_AFTER.split(tail, maxsplit=1)[0]
        if head and tail and line_section(head) is not None and _a_reason(reason):
            return _exception_kept(head, tail)
    for m in _CLAUSE_AFTER.finditer(folded) if prose else ():
        if folded[: m.start()].count("(") > folded[: m.start()].count(")"):
            continue  # "(weekdays, 9 to 6)": inside an aside, no clause ends
        head, tail = sentence[: m.start()].strip(" ,;:"), sentence[m.end() :].strip()
        if head and tail and line_section(head) is not None and _only_talk(tail):
            return [head, tail]
    return [sentence]


_BECAUSE = re.compile(
    rf"^\s*(?:{phrase_pattern('words.because')}|"
    rf"{alternation({p for p in phrases('predicates.reasons') if ' ' in p})})(?![\w'-])"
)
"""How a reason opens for sure: a word for "because", or a reason's opening of several
words ("der schickt", "no para de")."""


def _a_reason(clause: str) -> bool:
    """A clause after an instruction that says why, not what else ("…, li vedo già sul
    telefono", not "…, le notifiche di Instagram"): it states no decision and names no
    sender, group or kind of message."""
    if _BECAUSE.match(fold(clause)):  # "…, want Bram (de hond) is net geopereerd"
        return True  # and "…, der schickt nur noch Sprachnachrichten", "…, que necesito saber …"
    if line_section(clause) is not None:
        return False
    return not _names_what_else(clause)


def _names_what_else(clause: str) -> bool:
    """A clause that names a sender, a chat or a kind of message: a name written with a
    capital past its first word (not "sammle", "I'll"), an address, a domain."""
    found = parse_fragment(clause)
    first = clause.split()[0] if clause.split() else ""
    named = [n for n in found.names if n[:1].isupper() and n != first]
    return bool(named or found.domains or found.addresses or found.chats or found.named_kinds())


_EXCEPTION_OPENS = re.compile(rf"^\s*(?:(?:{JOIN_WORDS})\s+)?{EXCEPT}\b")
_EXCEPTION_AFTER = re.compile(rf"[,;]\s+(?={EXCEPT}\b)")


def _exception_kept(head: str, reason: str) -> list[str]:
    """An instruction and the reason after it; an exception said after the reason is the
    instruction's ("… : jamais, c'est beaucoup trop bavard, sauf si quelqu'un me mentionne")."""
    m = _EXCEPTION_AFTER.search(fold(reason))
    if m is None or len(fold(reason)) != len(reason):
        return [head, reason]
    return [f"{head}, {reason[m.end() :].strip()}", reason[: m.start()].strip(" ,;")]


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
    if find_window(clause)[1] is not None:  # "…: só em dias úteis, das nove às seis"
        return False
    if _DECIDES.search(low):  # "Rechnungen: ja, immer"
        return False
    found = parse_fragment(clause)
    return not (found.has_identity() or found.named_kinds() or found.topics or found.anything)


def _more_of_the_last(part: str, before: str) -> str | None:
    """What a sentence adds to the one before it, when it is no rule of its own: names that
    end on "whatever" are its examples ("… entregue. Correios, Mercado Livre, tanto faz"),
    channels with "doesn't matter" say it holds on each ("Anything from my sister. Email
    or WhatsApp, doesn't matter"). The sentence before, with what this one adds."""
    listed = _names_and_whatever(part)
    if listed is not None:
        return f"{before.rstrip('.!')} ({listed})"
    return f"{before} {part}" if _any_channel(part, before) else None


def _add_to_last(
    talk: list[str], decided: list[tuple[Section, str]], before: str, part: str
) -> None:
    """``part`` said as more of the sentence ``before`` it, wherever that one went."""
    more = _more_of_the_last(part, before)
    assert more is not None
    if decided and decided[-1][1].endswith(before):
        decided[-1] = (decided[-1][0], decided[-1][1][: -len(before)] + more)
    elif talk and talk[-1].endswith(before):
        talk[-1] = talk[-1][: -len(before)] + more
    else:
        talk.append(part)


def decided_sentences(
    text: str, *, prose: bool = False
) -> tuple[list[str], list[tuple[Section, str]], dict[str, str]] | None:
    """A line of several sentences, some of them saying their own decision after the
    first ("ShowingTime confirmations: no. Cancelled showings: yes.", a paragraph of
    instructions): (the sentences before the first decided one, read as talk; each decided
    sentence with the undecided ones after it, which qualify it). None when the line is
    one rule (one sentence, or only its first says a decision). A paragraph outside the
    sections (``prose``) is always read sentence by sentence. The third part: sentences
    read from other words than their own (``_hours_told_before``)."""
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
    readings = _hours_told_before(parts, owns)
    talk: list[str] = []
    decided: list[tuple[Section, str]] = []
    conditional = [
        own == CUSTOM or (own is None and _restricted(p))
        for p, own in zip(parts, owns, strict=True)
    ]
    for i, (part, own) in enumerate(zip(parts, owns, strict=True)):
        if decided and _EXCEPTION_OPENS.match(fold(part)):  # "… Except Sophie, she can …"
            section, said = decided[-1]
            decided[-1] = (section, f"{said.rstrip('.!')}, {part[0].lower()}{part[1:]}")
        elif (
            i
            and (conditional[i - 1] or _windowed(parts[i - 1]))
            and _restates_otherwise(part, own, after_a_window=not conditional[i - 1])
        ):
            talk.append(part)  # "… only 9 to 6 weekdays. After that they can wait."
        elif decided and _BECAUSE.match(fold(part)):
            talk.append(part)  # "…, que está roto y necesito saber cuándo lo arreglan"
        elif decided and decided[-1][0] == NEVER and _every_channel(part, decided[-1][1]):
            talk.append(part)  # "… gar nichts mehr angezeigt bekommen. Weder Mails noch WhatsApp."
        elif i and _more_of_the_last(part, parts[i - 1]) is not None:
            _add_to_last(talk, decided, parts[i - 1], part)
        elif own is not None:
            decided.append((own, part))
        elif decided and not prose:  # in a paragraph each sentence stands alone
            section, said = decided[-1]
            decided[-1] = (section, f"{said} {part}")
        else:
            talk.append(part)
    return talk, decided, readings
