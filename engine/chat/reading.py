"""Reading a chat message against the language data, for the requests code answers in
every supported language (a digest, a calendar question).

The message is folded as the data is; the phrases of a table are taken out of it one table
at a time, longest first, each one a vote for the languages whose data holds it. A request
is read only when every word left over is a function word of a supported language ("Faithful
or flagged": "what did I miss at the dentist?" is not a digest), and it is answered in the
language with the most votes: the characters of its own phrases read, and its function
words among those left."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from engine.triage.classifier.text import fold
from engine.triage.language import LANGUAGES, function_words, language, phrase_regex, phrases

WORD = re.compile(r"[^\W_]+", re.UNICODE)
APOSTROPHES = re.compile(r"['’]")


def _key(text: str) -> str:
    """A phrase as matched text is compared with the data: spaces single, no apostrophes."""
    return APOSTROPHES.sub("", " ".join(text.split()))


@cache
def _table(keys: tuple[str, ...]) -> tuple[re.Pattern[str], dict[str, tuple[str, tuple[str, ...]]]]:
    """One pattern for the phrases of ``keys`` (longest first, whole words), and for each
    phrase as matched (``_key``) the key it belongs to and the languages that hold it."""
    owners: dict[str, tuple[str, tuple[str, ...]]] = {}
    found: list[str] = []
    for key in keys:
        for phrase in phrases(key):
            codes = tuple(c for c in LANGUAGES if phrase in language(c).phrases[key])
            owners.setdefault(_key(phrase), (key, codes))
            found.append(phrase)
    ordered = sorted(dict.fromkeys(found), key=lambda p: (-len(p), p))
    body = "|".join(phrase_regex(p) for p in ordered)
    return re.compile(rf"(?<![\w'’-])(?:{body})(?![\w'’-])"), owners


@dataclass(frozen=True)
class Phrase:
    """A phrase of the data found in a message: its table key, the languages that hold it,
    and where it is in the folded text."""

    key: str
    codes: tuple[str, ...]
    start: int
    end: int


class Reading:
    """A message as it is read: the folded text, with what has been read blanked out."""

    def __init__(self, message: str):
        self.folded = fold(" ".join(message.split()))
        self.text = self.folded  # what is left to read: what was read is blanked
        self.votes: Counter[str] = Counter()

    def spans(self, *keys: str) -> list[Phrase]:
        """The phrases of the tables ``keys`` ("digest.asks", …) in what is left, the
        longest first, without taking them out."""
        pattern, owners = _table(keys)
        found = []
        for match in pattern.finditer(self.text):
            key, codes = owners[_key(match.group(0))]
            found.append(Phrase(key, codes, match.start(), match.end()))
        return found

    def take(self, *keys: str) -> list[str]:
        """The phrases of the tables ``keys`` found in what is left, taken out of it, as
        their keys (one per find)."""
        return [self.take_phrase(phrase).key for phrase in self.spans(*keys)]

    def take_phrase(self, phrase: Phrase) -> Phrase:
        self.vote(phrase.codes, phrase.end - phrase.start)
        self.blank(phrase.start, phrase.end)
        return phrase

    def find(self, pattern: re.Pattern[str]) -> list[re.Match[str]]:
        """The matches of ``pattern`` in what is left, taken out of it."""
        found = list(pattern.finditer(self.text))
        for match in found:
            self.blank(match.start(), match.end())
        return found

    def blank(self, start: int, end: int) -> None:
        self.text = self.text[:start] + " " * (end - start) + self.text[end:]

    def vote(self, codes: Iterable[str], weight: int) -> None:
        for code in codes:
            self.votes[code] += weight

    def left(self) -> list[str]:
        """The words not read yet."""
        return WORD.findall(self.text)

    def all_read(self) -> bool:
        """Every word left is a function word (of any supported language)."""
        return all(word in function_words() for word in self.left())

    def language(self) -> str:
        """The language the message is in: the most votes, its function words counted too;
        a tie goes to the first in ``LANGUAGES``."""
        votes = Counter(self.votes)
        for word in self.left():
            for code in LANGUAGES:
                if word in language(code).function_words:
                    votes[code] += 1
        return max(LANGUAGES, key=lambda code: (votes[code], -LANGUAGES.index(code)))
