"""Amounts of money, in a message and in a rule line: "a charge of 1.800 €", "R$ 96,000",
"invoices over three hundred euros", "solo si el importe pasa de trescientos euros".

A message's amount is a number next to a currency (before or after it); thousands may be
grouped with dots, commas or spaces as each country writes them. A rule's amount may be
spelled in words ("cinco mil pesos"), composed from the number words of the language data.
The currencies, comparisons and number words are the language data's (``amounts``,
``numbers``), read on first use."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

SYMBOLS = ("r$", "$", "€", "£", "¥")


@dataclass(frozen=True)
class AmountWords:
    currency: str
    """A regular expression for a currency, as a word or a symbol (folded text)."""
    over: str
    under: str
    nouns: str
    numbers: dict[str, int]


@cache
def amount_words() -> AmountWords:
    from engine.triage.language import numbers, phrase_pattern, phrases

    names = [c for c in phrases("amounts.currencies") if c not in SYMBOLS]
    symbols = "|".join(re.escape(s) for s in sorted(SYMBOLS, key=len, reverse=True))
    words = "|".join(re.escape(c) for c in sorted(names, key=len, reverse=True))
    return AmountWords(
        currency=rf"(?:{symbols}|(?<![\w-])(?:{words})(?![\w-]))",
        over=phrase_pattern("amounts.over"),
        under=phrase_pattern("amounts.under"),
        nouns=phrase_pattern("amounts.words"),
        numbers=numbers(),
    )


DIGITS = r"\d{1,3}(?:[.,\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"


def _value(written: str) -> float:
    """ "1.800" → 1800, "3,500" → 3500, "18.400,50" → 18400.5, "512.00" → 512."""
    text = written.replace(" ", "")
    m = re.match(r"^(.*?)(?:[.,](\d{1,2}))?$", text)
    assert m is not None
    whole = re.sub(r"[.,]", "", m.group(1)) or "0"
    cents = m.group(2)
    if cents is not None and not re.search(r"[.,]\d{3}", m.group(1) + "," + cents):
        return float(f"{whole}.{cents}")
    return float(whole + (cents or "")) if cents and len(cents) == 3 else float(whole)


def amounts_in(folded: str) -> list[float]:
    """Every amount of money in a folded text."""
    currency = amount_words().currency
    found = []
    pattern = rf"{currency}\s?(?P<a>{DIGITS})|(?<![\d.,])(?P<b>{DIGITS})\s?{currency}"
    for m in re.finditer(pattern, folded):
        found.append(_value(m.group("a") or m.group("b")))
    return found


def spelled_number(text: str) -> int | None:
    """A number written in digits or in words of the supported languages: "300",
    "trescientos", "cinco mil", "two hundred", "zwei tausend"; None if it is not one."""
    text = text.strip()
    if re.fullmatch(r"\d{1,3}(?:[.,\s]\d{3})+|\d+", text):
        return int(re.sub(r"\D", "", text))
    numbers = amount_words().numbers
    total = current = 0
    tokens = [t for t in re.split(r"[\s-]+", text) if t and t not in ("y", "e", "und", "et", "and")]
    if not tokens:
        return None
    for token in tokens:
        if token not in numbers:
            return None
        value = numbers[token]
        if value in (100, 1000, 1_000_000) and current:
            current *= value
            if value >= 1000:
                total, current = total + current, 0
        elif value in (1000, 1_000_000):
            total += value
        else:
            current += value
    return total + current


@dataclass(frozen=True)
class Limit:
    over: bool
    """True for "over N", False for "under N"."""
    amount: int
    span: tuple[int, int]
    """Where the rule's text says it (folded), to account for its words."""


ARTICLE = r"(?:[a-z]{1,3}\s+(?=\d))?"
"""An article between a comparison and its number ("sopra i 1.000 euro", "over the 300 €")."""


def limit_in(folded: str) -> Limit | None:
    """ "over three hundred euros", "pasa de 300 €", "unter 50 Euro": a limit on the amount
    a message names."""
    w = amount_words()
    number = r"(?P<n>\d[\d.,\s]*\d|\d|[a-z]+(?:[\s-]+[a-z]+){0,3})"
    for comparison, over in ((w.over, True), (w.under, False)):
        pattern = (
            rf"(?:{comparison})\s+{ARTICLE}(?:{w.currency}\s?)?{number}(?:\s?{w.currency})"
            rf"|(?:{comparison})\s+{w.currency}\s?(?P<m>\d[\d.,\s]*\d|\d)"
        )
        for m in re.finditer(pattern, folded):
            said = m.group("n") or m.group("m")
            value = spelled_number(said) if said else None
            if value is None and said:  # "over the 300 euros": try the number words' tail
                tail = said.split()
                while tail and value is None:
                    tail = tail[1:]
                    value = spelled_number(" ".join(tail)) if tail else None
            if value is not None:
                return Limit(over, value, (m.start(), m.end()))
    return None
