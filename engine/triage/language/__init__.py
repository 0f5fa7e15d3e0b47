"""Language knowledge as data: one TOML file per supported language beside this module.

Each file has the same tables (see ``en.toml``): the function words a rules line may hold
without them being read as a condition, the answers that state a decision on their own
("…: no"), the phrases a sentence states its decision with ("… can wait", "I want to know
about …"), number words and weekday names. The rules reader and the chat build their
matchers from here, so a new wording or a new language is a data change, not a new regex.
Every entry is folded (lower case, accents off) when it is loaded, as the text it is matched
against is.

A file may also hold a table read as written (:func:`raw_table`): ``[whatsapp]``, the lines
WhatsApp writes into an exported chat in that language, and ``[replies]``, the words and
templates of the answers the chat composes in code (``engine.chat.replies``).
"""

from __future__ import annotations

import itertools
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from engine.triage.classifier.text import fold

LANGUAGES = ("en", "es", "de", "fr", "pt", "it", "nl")
"""The supported languages, by ISO 639-1 code: each has a data file here."""

PHRASE_TABLES = (
    "answers",
    "predicates",
    "definitions",
    "headings",
    "scam",
    "clauses",
    "amounts",
    "kinds",
    "words",
    "dates",
    "digest",
    "calendar",
    "removal",
    "windows",
)
PHRASE_KEYS = {
    "answers": ("notify", "never"),
    "predicates": (
        "notify_end",
        "never_end",
        "no_longer",
        "notify_start",
        "never_start",
        "intensifiers",
        "notify_only_when",
        "notify_only_if",
        "notify_only_about",
        "notify_frames",
        "never_frames",
        "reasons",
        "telling",
        "wanting",
        "knowing",
        "unwanting",
        "missing",
    ),
    "definitions": ("means", "articles", "possessives", "named_as"),
    "headings": ("never", "always", "notify", "title", "rule"),
    "scam": (
        "gift_cards",
        "new_number",
        "money",
        "credentials",
        "domain_words",
        "transfer",
        "millions",
        "prize",
        "pharmacy",
        "advertising",
        "card_details",
        "junk_folders",
    ),
    "clauses": (
        "widening",
        "lead_ins",
        "consequences",
        "contrasts",
        "every_time",
        "conditions",
        "courtesies",
        "asking",
        "about",
        "mentioning",
        "about_frames",
        "said_after",
        "otherwise",
        "tags",
        "examples",
    ),
    "words": (
        "second_person",
        "messages",
        "pronouns",
        "writes_me",
        "person_pronouns",
        "no_determiners",
        "nothing",
        "something",
        "neither",
        "whatever",
        "only",
        "confirmations",
        "possessives_before",
        "possessives_after",
        "article_pronouns",
        "noun_endings",
        "from",
        "titles",
        "me",
        "or",
        "anything",
        "every",
        "indefinite",
        "decisions",
        "because",
    ),
    "amounts": ("over", "under", "words", "currencies"),
    "kinds": (
        "auto_reply_cues",
        "auto_reply_words",
        "login_code_cues",
        "login_code_words",
        "calendar_reply_cues",
        "calendar_reply_words",
        "share_cues",
        "share_words",
        "share_objects",
        "delivery_today_cues",
        "delivery_today_words",
        "delivery_today_objects",
        "report_cues",
        "report_words",
        "report_objects",
        "money_in_cues",
        "money_in_words",
        "money_in_apps",
        "shipping_words",
        "travel_nouns",
        "travel_changes",
        "group_emergencies",
        "group_changes",
    ),
    "dates": (
        "today",
        "tomorrow",
        "yesterday",
        "day_after_tomorrow",
        "this_week",
        "next_week",
        "weekend",
        "morning",
        "afternoon",
        "evening",
        "this_morning",
        "this_afternoon",
        "this_evening",
        "since",
        "next",
        "christmas_eve",
        "christmas_day",
        "boxing_day",
        "new_years_eve",
        "new_years_day",
        "holidays",
    ),
    "digest": ("asks", "about", "email", "whatsapp"),
    "windows": (
        "working_hours",
        "absences",
        "half_before",
        "half_after",
        "and_a_half",
        "hour_endings",
    ),
    "calendar": ("asks", "next_event", "event_nouns", "cancelled_verbs", "moved_verbs"),
    "removal": ("asks", "rules", "dropping"),
}
OPTIONAL_KEYS = frozenset(
    {
        "kinds.money_in_apps",
        "clauses.mentioning",
        "clauses.about_frames",
        "clauses.said_after",
        "words.article_pronouns",
        "words.noun_endings",
        "words.writes_me",
        "words.neither",
        "windows.half_before",
        "windows.half_after",
        "windows.and_a_half",
        "windows.hour_endings",
    }
)
"""Constructions a language may not have: a frame around the topic or a verb after a quoted
word ("wenn es um X geht", "wenn „dringend“ drinsteht") where the verb comes last, a verb
before it ("mentioning X") where it does not."""
ONE_OF_KEYS = (("words.possessives_before", "words.possessives_after"),)
"""Tables of which a language fills at least one: its possessives come before the thing
owned ("his messages", "ses messages") or after it ("mensajes suyos", "mensagens dela")."""
DATA_KINDS = (
    "auto_reply",
    "login_code",
    "calendar_reply",
    "share",
    "money_in",
    "report",
    "delivery_today",
)
"""Kinds whose message cues and rule words are the language data's alone (``kinds``)."""
WORDED_KINDS = ("shipping",)
"""Kinds whose message cues are the classifier's lexicon, with rule words in the language data
as well (``kinds.<kind>_words``)."""


@dataclass(frozen=True)
class Language:
    """One language's data, folded."""

    code: str
    name: str
    function_words: frozenset[str]
    identity_words: frozenset[str]
    phrases: dict[str, tuple[str, ...]]
    """``"answers.notify"``, ``"predicates.never_end"``, … → their phrases."""
    numbers: dict[str, int]
    weekdays: dict[str, int]
    day_abbreviations: dict[str, int]
    """Short day names ("Mo", "lun", "sex"), read only in a range of days ("Mo–Fr")."""


def _folded_words(items: list[str]) -> frozenset[str]:
    out: set[str] = set()
    for item in items:
        out.update(re.findall(r"[a-z0-9]+", fold(item)))
    return frozenset(out)


@cache
def _file(code: str) -> dict[str, Any]:
    if code not in LANGUAGES:
        raise KeyError(code)
    return tomllib.loads(resources.files(__name__).joinpath(f"{code}.toml").read_text("utf-8"))


def raw_table(name: str) -> dict[str, dict[str, Any]]:
    """One table of every language's file, by language code, as written (not folded): for
    matchers of text a program wrote, whose accents and punctuation are exact."""
    return {code: dict(_file(code).get(name, {})) for code in LANGUAGES}


def _composed(raw: dict[str, Any], key: str) -> list[str]:
    """The phrases a language file composes for ``key`` in its ``[compose]`` table: every
    way of saying one word of each part in turn ("stop" + "pinging me" + "every time"), an
    empty word being a part left out. A construction is written once, not each phrase of it."""
    out: list[str] = []
    for parts in raw.get("compose", {}).get(key, []):
        out += [" ".join(w for w in said if w) for said in itertools.product(*parts)]
    return out


@cache
def language(code: str) -> Language:
    """The data of one language (``LANGUAGES``); a KeyError for any other code."""
    raw = _file(code)
    phrases = {
        f"{table}.{key}": tuple(
            dict.fromkeys(
                " ".join(fold(p).split())
                for p in [*raw[table].get(key, []), *_composed(raw, f"{table}.{key}")]
            )
        )
        for table in PHRASE_TABLES
        for key in PHRASE_KEYS[table]
    }
    return Language(
        code=code,
        name=str(raw["name"]),
        function_words=_folded_words(raw["function_words"]),
        identity_words=_folded_words(raw["identity_words"]),
        phrases=phrases,
        numbers={fold(k): int(v) for k, v in raw["numbers"].items()},
        weekdays={fold(k): int(v) for k, v in raw["weekdays"].items()},
        day_abbreviations={fold(k): int(v) for k, v in raw["day_abbreviations"].items()},
    )


@cache
def function_words() -> frozenset[str]:
    """Every supported language's function words, folded."""
    return frozenset().union(*(language(c).function_words for c in LANGUAGES))


@cache
def identity_words() -> frozenset[str]:
    """Every supported language's words that describe a sender the line names ("the
    Brightline team", "our lawyers at Brennan & Shaw"), folded."""
    return frozenset().union(*(language(c).identity_words for c in LANGUAGES))


@cache
def phrases(key: str) -> tuple[str, ...]:
    """One phrase table over every language ("predicates.never_end"), longest first, so a
    pattern built from it prefers "should never reach me" to "reach me"."""
    found = {p for c in LANGUAGES for p in language(c).phrases[key]}
    return tuple(sorted(found, key=lambda p: (-len(p), p)))


def _merged(table: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for code in LANGUAGES:
        out.update(getattr(language(code), table))
    return out


@cache
def numbers() -> dict[str, int]:
    """Number words of every language, folded, to their value."""
    return _merged("numbers")


@cache
def day_abbreviations() -> dict[str, int]:
    """Short day names of every language, folded, to their number (0 = Monday)."""
    return _merged("day_abbreviations")


@cache
def weekdays() -> dict[str, int]:
    """Weekday names of every language, folded, to their number (0 = Monday)."""
    return _merged("weekdays")


def phrase_regex(phrase: str) -> str:
    """One folded phrase as a regular expression: any run of spaces between its words, a
    comma allowed before one ("sag mir Bescheid, wenn"), an apostrophe optional (either
    kind)."""
    return r",?\s+".join(re.escape(w) for w in phrase.split()).replace("'", "['’]?")


def phrase_pattern(key: str, *, in_compounds: bool = False) -> str:
    """A regular expression (for folded text) matching any phrase of a table, as whole
    words; spaces in a phrase match any run of spaces, an apostrophe is optional. With
    ``in_compounds`` a phrase may also end a hyphenated compound ("Apple-Geschenkkarten")."""
    left = r"(?<![\w'])" if in_compounds else r"(?<![\w'-])"
    return left + "(?:" + alternation(phrases(key)) + r")(?![\w'-])"


def alternation(said: Iterable[str]) -> str:
    """Folded phrases as one regular expression, built as a tree of their words ("stop
    telling me", "stop pinging me" → "stop (?:telling|pinging) me"): the thousands of
    phrases the ``[compose]`` tables make compile in a moment and match without trying each
    in turn. At each word the longer way on is tried first, as the phrases longest first
    were."""
    tree: dict[str, Any] = {}
    for phrase in said:
        node = tree
        for word in phrase.split():
            node = node.setdefault(word, {})
        node[""] = {}
    return _branches(tree)


def _branches(node: dict[str, Any]) -> str:
    words = sorted((w for w in node if w), key=lambda w: (-len(w), w))
    parts = []
    for word in words:
        rest = node[word]
        said = re.escape(word).replace("'", "['’]?")
        if any(rest):
            more = rf",?\s+{_branches(rest)}"
            said += f"(?:{more})?" if "" in rest else more
        parts.append(said)
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
