"""The language a chat message is written in, from the language data: to answer in it.

Each word of the message that is a function word of a language is a vote for that language;
a phrase of the request tables (how a decision or a removal is said, how a request opens)
found in the message votes for the languages that hold it, twice when only one does. The
most votes win; a tie is settled by the common words a short text shows, else English."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

from engine.triage.classifier import words
from engine.triage.classifier.text import fold, language
from engine.triage.language import LANGUAGES, phrase_pattern
from engine.triage.language import language as language_data

ENGLISH = "en"
REQUEST_TABLES = (
    "predicates.notify_start",
    "predicates.never_start",
    "predicates.notify_end",
    "predicates.never_end",
    "removal.asks",
    "clauses.lead_ins",
    "clauses.asking",
)


def _key(phrase: str) -> str:
    return " ".join(re.sub(r"['’,]", "", phrase).split())


@cache
def _pattern(key: str) -> re.Pattern[str]:
    return re.compile(phrase_pattern(key))


@cache
def _owners(key: str) -> dict[str, tuple[str, ...]]:
    """Each phrase of a table (as ``_key``) and the languages that hold it."""
    out: dict[str, list[str]] = {}
    for code in LANGUAGES:
        for phrase in language_data(code).phrases[key]:
            out.setdefault(_key(phrase), []).append(code)
    return {p: tuple(codes) for p, codes in out.items()}


def language_of(message: str) -> str:
    """The supported language ``message`` is written in (English when nothing tells)."""
    folded = fold(" ".join(message.split()))
    votes: Counter[str] = Counter()
    for key in REQUEST_TABLES:
        owners = _owners(key)
        for m in _pattern(key).finditer(folded):
            codes = owners.get(_key(m.group(0)), ())
            for code in codes:
                votes[code] += 2 if len(codes) == 1 else 1
    for w in words(message):
        for code in LANGUAGES:
            if w in language_data(code).function_words:
                votes[code] += 1
    ranked = votes.most_common(2)
    if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
        return ranked[0][0]
    guessed = language(message)
    return guessed if guessed in LANGUAGES else ENGLISH
