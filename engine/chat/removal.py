"""A request to take a line out of the rules ("Pedro doesn't need to be on the always list
anymore", "quítale el silencio al grupo Excompis 2009", "du kannst ihn von der Nie-Liste
streichen"), read against the rules file itself.

What asks for a removal is language data (``removal.asks``); which line it means is read
from the user's file, not guessed: the line that shares the most of the request's own words
(a name, a chat, a topic), counting a word the more the fewer lines hold it. A request that
names no line, or two lines alike, removes nothing; the one line found is put to the user,
and taken out only after their yes."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import time
from functools import cache

from engine.chat.replies import words as reply_words
from engine.chat.said_in import language_of
from engine.triage.classifier import words
from engine.triage.classifier.text import fold, fold_with_map
from engine.triage.language import (
    LANGUAGES,
    alternation,
    function_words,
    phrase_pattern,
    phrases,
)
from engine.triage.rules.clauses import sentences
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.decision import line_section, read_decision
from engine.triage.rules.edit import SECTION_TITLES
from engine.triage.rules.extract import kind_words
from engine.triage.rules.names import VOCAB
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER, Rule, parse_rules
from engine.triage.rules.vocab import STOP
from engine.triage.rules.windows import NIGHT, WEEKDAYS, WEEKEND, find_window

SHORTEST = 3
"""Words shorter than this ("de", "la", "2") say too little to name a line."""


@dataclass(frozen=True)
class Removal:
    """The line a request asks to take out (None when it names none alone), the lines it
    could mean when it names several, and the language to answer in."""

    rule: Rule | None
    alike: tuple[Rule, ...]
    language: str


@cache
def _asks() -> re.Pattern[str]:
    return re.compile(phrase_pattern("removal.asks"))


@cache
def _said_words() -> frozenset[str]:
    """Words that say how to change the rules, not which line: the removal phrases' own."""
    out: set[str] = set()
    for phrase in phrases("removal.asks"):
        out.update(re.findall(r"[a-z0-9]+", phrase))
    return frozenset(out)


def _content(text: str) -> set[str]:
    """The words of ``text`` that may name a line, a plural said as its singular
    ("weekends" is "weekend")."""
    skip = function_words() | STOP | _said_words()
    return {
        _singular(w) for w in words(text) if len(w) >= SHORTEST and (w not in skip or _says_when(w))
    }


def _says_when(word: str) -> bool:
    """A word that says when a line applies ("weekends", "nachts"): it names that line."""
    return any(p.fullmatch(word) for p in (NIGHT, WEEKEND, WEEKDAYS))


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def _names_said(message: str) -> set[str]:
    """The words of ``message`` written with a capital that may name a line."""
    capitalised = " ".join(w for w in message.split() if w[:1].isupper())
    return _content(capitalised)


def contradicted(message: str, rules_text: str) -> Removal | None:
    """A request that says the opposite of a line of the file about the same thing ("you
    can let Tobias through again" with "Tobias" under Never notify, "stop telling me about
    the Zillow listings" with them under Always): the user takes back what that line says,
    so the line is put to them for removal instead of a second line that contradicts it.
    Only a line every word of which the request says, or that holds every name the request
    says that the file holds, alone of its section; the user's yes takes it out."""
    said_apart = [c for s in sentences(" ".join(message.split())) for c in (s, *_clauses(s))]
    decided = {line_section(c) for c in said_apart} - {None}
    section = decided.pop() if len(decided) == 1 else None
    opposite = {ALWAYS: NEVER, NEVER: ALWAYS}.get(section) if section else None
    if opposite is None or re.search(phrase_pattern("clauses.contrasts"), fold(message)):
        return None  # "je garde les mails d'Allegro, mais leur gazette, jamais": a narrowing
    said = _content(message)
    rules = [r for r in parse_rules(rules_text).rules if r.text.strip()]
    in_lines = set().union(*(_content(r.text) for r in rules)) if rules else set()
    names = _names_said(message) & in_lines  # "Tobias" for "Nachrichten von Tobias Lang"
    lines = [r for r in rules if r.section == opposite]
    deciding = [c for c in said_apart if line_section(c) is not None]
    shortest = min(deciding, key=len) if deciding else message
    kinds = _kinds(shortest)  # of what decides: "wir haben uns vertragen" names no contract
    covered = tuple(
        r
        for r in lines
        if kinds <= _kinds(r.text)  # "never X's promotions" narrows "X": no undo
        and (
            (_content(r.text) and _content(r.text) <= said) or (names and names <= _content(r.text))
        )
    )
    if len(covered) != 1:
        return None
    return Removal(covered[0], (), request_language(message))


def _kinds(text: str) -> frozenset[str]:
    """The kinds of message ``text`` names ("promotions", "invoices"), its own decision's
    words left out ("avises" is no "avis")."""
    return frozenset(kind_words(read_decision(text)[0])[0].kinds)


def _clauses(sentence: str) -> list[str]:
    """The parts of a sentence between its commas ("Lukas and I made up, you can let him
    through again"): one of them may say the decision."""
    parts = [p.strip() for p in re.split(r"[,;:]", sentence)]
    return [p for p in parts if p] if len(parts) > 1 else []


def asks_removal(message: str) -> bool:
    """The message says, in words of its own, to take a line out or back ("vuelve a
    avisarme de …", "unmute …", "drop the weekend rule"), whatever else it reads as."""
    return _says_removal(fold(" ".join(message.split())))


def _says_removal(low: str) -> bool:
    return bool(_asks().search(low)) or _drops_a_rule(low)


@cache
def _dropping() -> tuple[re.Pattern[str], re.Pattern[str]]:
    rule = alternation(phrases("removal.rules"))
    return (
        re.compile(phrase_pattern("removal.dropping")),
        re.compile(rf"(?:{rule})(?![\w'-])"),
    )


def _drops_a_rule(low: str) -> bool:
    """ "can you drop the weekend rule?", "Die Wochenendregel kannst du löschen": a word for a
    rule, alone or ending a compound, and a verb that takes it away, in one sentence."""
    verb, rule = _dropping()
    return any(verb.search(s) and rule.search(s) for s in re.split(r"[.!?;]", low))


def read_removal(message: str, rules_text: str) -> Removal | None:
    """The removal ``message`` asks for in the rules ``rules_text``, or None when it asks
    for none (no removal phrase, or no line shares its words)."""
    if not _says_removal(fold(" ".join(message.split()))):
        return contradicted(message, rules_text)
    said = _content(message) | _when_said(message)
    rules = [r for r in parse_rules(rules_text).rules if r.text.strip()]
    held = [(r, _shared(_line_words(r.text), said)) for r in rules]
    spread = Counter(w for r in rules for w in _line_words(r.text))
    scored = [(sum(1 / spread[w] for w in shared), r) for r, shared in held if shared]
    if not scored:
        return None
    best = max(score for score, _ in scored)
    top = tuple(r for score, r in scored if score == best)
    code = request_language(message)
    if len(top) > 1 or best < 1:
        return Removal(None, top, code)
    return Removal(top[0], (), code)


STEM = 7
"""Two words this long that begin alike name one thing ("Wochenendregel", "Wochenende";
"newsletter", "newsletters"): a compound or an ending says no other line."""


def _shared(line: set[str], said: set[str]) -> set[str]:
    """The words of a line the request says, as they are or with another ending, or as the
    head of a compound ("die Wochenendregel" for "Am Wochenende …")."""
    out = line & said
    for w in line - out:
        for v in said:
            common = len(_common_prefix(w, v))
            if common >= STEM and common >= 0.8 * min(len(w), len(v)):
                out.add(w)
    return out


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


_AT_NIGHT, _AT_WEEKENDS = "@night", "@weekend"
"""The words a request and a line share when one says "at night" and the other its hours."""


def _when_said(text: str) -> set[str]:
    """When ``text`` says a line applies, as a word it shares with the line that says it in
    hours or days ("la regla de la noche" for "De 23:00 a 8:00 …")."""
    _, window = find_window(text)
    night = bool(NIGHT.search(text)) or (
        window is not None and window.start != window.end and window.start >= _LATE
    )
    weekend = bool(WEEKEND.search(text)) or (
        window is not None and window.days == frozenset({5, 6})
    )
    return {w for w, said in ((_AT_NIGHT, night), (_AT_WEEKENDS, weekend)) if said}


_LATE = time(20, 0)
"""A window that starts this late is a night's."""


def _line_words(text: str) -> set[str]:
    return _content(text) | _when_said(text)


@dataclass(frozen=True)
class Narrowing:
    """A request that makes an Always line conditional ("for the choir group, only tell me
    if someone mentions me"): the line it narrows and the line that says it narrowed, in the
    words of the file's line and the request's condition."""

    rule: Rule
    line: str
    language: str


@cache
def _only_if() -> re.Pattern[str]:
    return re.compile(rf"(?:^|[\s,:;.—–-])(?:{phrase_pattern('predicates.notify_only_if')})\s")


def narrowed(message: str, rules_text: str) -> Narrowing | None:
    """The Always line ``message`` makes conditional, when its words before the "only if"
    name that line alone (a word of it no other line holds, not a word for a kind or a
    channel), and the line that results reads in full; None otherwise."""
    text = " ".join(message.split())
    folded, where = fold_with_map(text)
    m = _only_if().search(folded)
    if m is None or m.start() == 0:
        return None
    head, condition = text[: where[m.start()]], text[where[m.start()] :].strip(" ,:;.—–-")
    rules = [r for r in parse_rules(rules_text).rules if r.text.strip()]
    spread = Counter(w for r in rules for w in _content(r.text))
    said = _content(head)
    naming = [
        r
        for r in rules
        if r.section == ALWAYS
        and any(spread[w] == 1 and w not in VOCAB for w in _content(r.text) & said)
    ]
    if len(naming) != 1:
        return None
    line = f"{naming[0].text.rstrip(' .;,')}: {condition.rstrip(' .!')}"
    (read, *more) = compile_rules_text(f"## {SECTION_TITLES[CUSTOM]}\n- {line}\n") or (None,)
    if read is None or more or not read.understood or read.rule.section != CUSTOM:
        return None
    return Narrowing(naming[0], line, request_language(message))


def narrowed_answer(narrowing: Narrowing) -> str:
    """What the chat says of the Always line the new line narrows: it would let everything
    through still, and it goes after the user's yes."""
    code, rule = narrowing.language, narrowing.rule
    return reply_words(code).text(
        "narrows", section=section_name(code, rule.section), rule=_quoted(code, rule)
    )


def request_language(message: str) -> str:
    """The language to answer ``message`` in (``engine.chat.said_in``)."""
    return language_of(message)


def _quoted(code: str, rule: Rule) -> str:
    return str(reply_words(code).text("quote", text=rule.text))


def section_name(code: str, section: str) -> str:
    return str(reply_words(code).table["sections"][section])


def proposed_answer(removal: Removal) -> str:
    """What the chat says before it removes a line: the line and its section, and that a
    yes removes it."""
    assert removal.rule is not None
    code, rule = removal.language, removal.rule
    return reply_words(code).text(
        "remove_proposed", section=section_name(code, rule.section), rule=_quoted(code, rule)
    )


def which_answer(removal: Removal) -> str:
    """Several lines share the request's words alike: none is removed, and they are listed."""
    code = removal.language
    joined = f" {reply_words(code).table['and']} ".join(_quoted(code, r) for r in removal.alike)
    return reply_words(code).text("remove_which", rules=joined)


def removed_answer(code: str, section: str, rule: str) -> str:
    words_of = reply_words(code if code in LANGUAGES else "en")
    quoted = words_of.text("quote", text=rule)
    return words_of.text("removed", section=section_name(words_of.code, section), rule=quoted)
