"""Language knowledge is data: one file per supported language, every table filled in each,
and the matchers built from them."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from engine.triage.classifier import KIND_NAMES
from engine.triage.classifier.text import fold
from engine.triage.language import (
    LANGUAGES,
    ONE_OF_KEYS,
    OPTIONAL_KEYS,
    PHRASE_KEYS,
    language,
    phrase_pattern,
    raw_table,
)
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.explain import explain_rule
from engine.triage.rules.extract import parse_fragment
from engine.triage.rules.phrasing import phrasing
from engine.triage.rules.vocab import DAY_ALIASES


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_language_fills_every_table(code: str) -> None:
    data = language(code)
    assert data.name
    assert len(data.function_words) > 60
    assert data.identity_words
    for table, keys in PHRASE_KEYS.items():
        for key in keys:
            if f"{table}.{key}" in OPTIONAL_KEYS or any(f"{table}.{key}" in g for g in ONE_OF_KEYS):
                continue
            assert data.phrases[f"{table}.{key}"], f"{code}: {table}.{key} is empty"
    said = [data.phrases[k] for k in sorted(OPTIONAL_KEYS)]
    assert any(said), f"{code}: no way to say what a message mentions"
    for group in ONE_OF_KEYS:
        assert any(data.phrases[k] for k in group), f"{code}: none of {group}"
    assert set(range(1, 13)) <= set(data.numbers.values()), f"{code}: numbers 1–12"
    assert sorted(set(data.weekdays.values())) == list(range(7))


@pytest.mark.parametrize("code", LANGUAGES)
def test_entries_are_folded_as_the_text_they_are_matched_against(code: str) -> None:
    data = language(code)
    for phrases in data.phrases.values():
        assert all(p == " ".join(fold(p).split()) for p in phrases)
    assert all(w == fold(w) for w in data.function_words | set(data.numbers))


def test_an_unknown_language_is_an_error() -> None:
    with pytest.raises(KeyError):
        language("xx")


def test_the_reader_takes_numbers_and_weekdays_from_the_data() -> None:
    for code in LANGUAGES:
        for word, day in language(code).weekdays.items():
            assert DAY_ALIASES[word] == day
    found = parse_fragment("Meetings that start within twenty minutes")
    assert found.starts_within == timedelta(minutes=20)
    found = parse_fragment("Reuniones que empiezan en quince minutos")
    assert found.starts_within == timedelta(minutes=15)


def test_a_phrase_pattern_matches_whole_words_with_either_apostrophe() -> None:
    import re

    pattern = re.compile(phrase_pattern("predicates.never_end"))
    assert pattern.search("newsletters don’t matter")
    assert pattern.search("newsletters don't matter")
    assert not pattern.search("newsletters can waiting")


def test_a_reading_is_said_in_the_language_asked_for_or_in_english() -> None:
    """A language whose file has no ``[readings]`` words yet says a reading in English."""
    (rule,) = compile_rules_text("## Never notify\n- Newsletters from Lumen Books\n")
    english = explain_rule(rule).reading
    assert english == "Never notify: newsletters and digests from Lumen Books"
    spanish = explain_rule(rule, language="es")
    assert spanish.reading != english
    assert spanish.reading.startswith(phrasing("es").text("never"))
    assert phrasing("es").kind("newsletter") in spanish.reading
    assert "Lumen Books" in spanish.reading


def _fields(value: object) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", str(value)))


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_every_language_says_a_reading_with_the_same_words_and_fields(code: str) -> None:
    """A rule's reading can be said in every language (``[readings]``): the same keys as
    English, the same {fields} in each, and a name for every kind of message."""
    tables = raw_table("readings")
    english, own = tables["en"], tables[code]
    assert set(own) - {"kinds"} == set(english), code
    for key, value in english.items():
        if isinstance(value, dict):
            assert set(own[key]) == set(value), (code, key)
        elif isinstance(value, list):
            assert len(own[key]) == len(value), (code, key)
        else:
            assert _fields(own[key]) == _fields(value), (code, key)
    assert set(own["kinds"]) == set(KIND_NAMES), code
