"""A word one edit from a word the reader knows is read as that word: "newsleters" as
"newsletters", "recipts" as "receipts". Only lower-case words of six letters or more that
the reader does not know, and only when exactly one known word is that close (a name, or a
word with two near neighbours, is left as it is and flagged if nothing reads it). What was
corrected is shown with the line's reading."""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache

from engine.triage.classifier.text import fold
from engine.triage.language import function_words, identity_words, phrases
from engine.triage.rules.names import VOCAB
from engine.triage.rules.vocab import ROLE_WORDS, STOP

MIN_LENGTH = 6


@cache
def _known() -> frozenset[str]:
    return frozenset(VOCAB | STOP | ROLE_WORDS | function_words() | identity_words())


@cache
def _targets() -> frozenset[str]:
    """What a typo may be read as: words that carry a condition (kinds, sources, roles),
    never a function word ("codes" is not a typo of "comes"); a word said for emphasis
    too ("entirley")."""
    said_for_emphasis = {p for p in phrases("predicates.intensifiers") if p.isalpha()}
    return frozenset(VOCAB | ROLE_WORDS | identity_words() | said_for_emphasis) - (
        function_words() | STOP
    )


@cache
def _by_deletion() -> dict[str, frozenset[str]]:
    """Each target word under itself and every form of it with one letter deleted."""
    index: dict[str, set[str]] = defaultdict(set)
    for word in _targets():
        if len(word) < MIN_LENGTH - 1 or not word.isalpha():
            continue
        index[word].add(word)
        for i in range(len(word)):
            index[word[:i] + word[i + 1 :]].add(word)
    return {k: frozenset(v) for k, v in index.items()}


def _one_edit(a: str, b: str) -> bool:
    """Damerau distance exactly one: a letter inserted, deleted, changed or two swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def nearest(word: str) -> str | None:
    """The one known word a word is a typo of, or None."""
    if len(word) < MIN_LENGTH or word in _known() or not word.isalpha():
        return None
    index = _by_deletion()
    candidates: set[str] = set(index.get(word, ()))
    for i in range(len(word)):
        candidates |= index.get(word[:i] + word[i + 1 :], frozenset())
    close = {c for c in candidates if _one_edit(word, c)}
    return next(iter(close)) if len(close) == 1 else None


def corrected(
    text: str, only: set[str], *, capitalised: bool = False
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``text`` with the typos of known words among ``only`` (folded words the reader left
    unread, or the line's first word) replaced, and (as written, read as) each. A
    capitalised word is corrected only with ``capitalised`` (it may be a name)."""
    fixes: list[tuple[str, str]] = []

    def fix(m: re.Match[str]) -> str:
        written = m.group(0)
        if fold(written) not in only or not (capitalised or written.islower()):
            return written
        folded = fold(written)
        if folded != written.lower():
            return written  # accents: a word of another language, not a typo
        found = nearest(folded)
        if found is None:
            return written
        fixes.append((written, found))
        return found.capitalize() if written[:1].isupper() else found

    out = re.sub(r"(?<![\w@.'’-])[^\W\d_]{6,}(?![\w@'’-]|\.\w)", fix, text)
    return out, tuple(dict.fromkeys(fixes))


def first_words(text: str) -> set[str]:
    """The folded first word of the line and of each "Label:" part: capitalised anyway, so
    it is as likely a typo as a name."""
    return {fold(m.group(1)) for m in re.finditer(r"(?:^|[:.;]\s+)([^\W\d_]{6,})", text)}
