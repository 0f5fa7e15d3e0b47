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
from functools import cache

from engine.chat.replies import words as reply_words
from engine.chat.said_in import language_of
from engine.triage.classifier import words
from engine.triage.classifier.text import fold
from engine.triage.language import LANGUAGES, function_words, phrase_pattern, phrases
from engine.triage.rules.parse import Rule, parse_rules
from engine.triage.rules.vocab import STOP

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
    skip = function_words() | STOP | _said_words()
    return {w for w in words(text) if len(w) >= SHORTEST and w not in skip}


def read_removal(message: str, rules_text: str) -> Removal | None:
    """The removal ``message`` asks for in the rules ``rules_text``, or None when it asks
    for none (no removal phrase, or no line shares its words)."""
    if not _asks().search(fold(" ".join(message.split()))):
        return None
    said = _content(message)
    rules = [r for r in parse_rules(rules_text).rules if r.text.strip()]
    held = [(r, _content(r.text) & said) for r in rules]
    spread = Counter(w for r in rules for w in _content(r.text))
    scored = [(sum(1 / spread[w] for w in shared), r) for r, shared in held if shared]
    if not scored:
        return None
    best = max(score for score, _ in scored)
    top = tuple(r for score, r in scored if score == best)
    code = request_language(message)
    if len(top) > 1 or best < 1:
        return Removal(None, top, code)
    return Removal(top[0], (), code)


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
