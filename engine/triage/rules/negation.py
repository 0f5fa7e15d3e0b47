"""The words that say "not" in a rules line, in every supported language: one pattern the
decision reader and the window reader share ("niet op zondag": not on Sundays)."""

from __future__ import annotations

from typing import Final

NEGATION: Final = (
    r"(?:never|not|no|don'?t|do not|doesn'?t|does not|isn'?t|aren'?t|won'?t|shouldn'?t|"
    r"nie|nicht|nunca|jamais|pas|mai|non|nao)"
)
"""A negation, for text folded (lower case, accents off). Dutch "niet" is read apart where a
line's decision is (``compile._SAID_NOT``)."""
