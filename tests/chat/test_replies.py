"""The composed answers' words are data, one ``[replies]`` table per language: every
language has every template, each template takes the fields code fills in, and the kinds
a digest counts are the classifier's."""

from __future__ import annotations

import string

import pytest

from engine.chat.digest import COUNTED_KINDS
from engine.chat.replies import words
from engine.triage.classifier import KIND_NAMES
from engine.triage.language import LANGUAGES, raw_table

ENGLISH = raw_table("replies")["en"]


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_language_has_every_reply_with_the_same_fields(code):
    table = raw_table("replies")[code]
    assert set(table) == set(ENGLISH), code
    for key, english in ENGLISH.items():
        if isinstance(english, str):
            assert fields(table[key]) == fields(english), (code, key)
        elif key not in ("kinds", "sources"):
            assert len(table[key]) == len(english), (code, key)
            for mine, theirs in zip(table[key], english, strict=True):
                assert fields(mine) == fields(theirs), (code, key)
    assert set(table["kinds"]) == set(ENGLISH["kinds"]) and set(table["sources"]) == {
        "email",
        "whatsapp",
        "calendar",
    }


def test_the_kinds_counted_are_the_classifiers_and_all_have_words():
    assert set(ENGLISH["kinds"]) <= set(KIND_NAMES)
    assert set(COUNTED_KINDS) | {"calendar"} <= set(ENGLISH["kinds"])


@pytest.mark.parametrize("code", LANGUAGES)
def test_counts_and_lists_read_in_each_language(code):
    w = words(code)
    one, several = w.number("messages", 1), w.number("messages", 5)
    assert one.startswith("1 ") and several.startswith("5 ") and one != several
    assert w.join(["a", "b", "c"]).startswith("a, b ") and w.join(["a"]) == "a"
