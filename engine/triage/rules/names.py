"""Finding the names of people, organisations and chats in a rule's words."""

from __future__ import annotations

import re

from engine.clock import DAY_NAMES
from engine.triage.classifier import fold
from engine.triage.rules.vocab import CATEGORY_WORDS, MONTHS, SOURCE_WORDS, STOP

VOCAB = {
    w
    for vocab in (*SOURCE_WORDS.values(), *CATEGORY_WORDS.values())
    for p in vocab
    for w in p.split()
}
"""Every word of the source and category vocabularies: such a word is never a name."""

_NAME_JOINERS = {
    "&",
    "de",
    "del",
    "da",
    "das",
    "do",
    "dos",
    "van",
    "von",
    "der",
    "den",
    "of",
    "la",
    "le",
    "al",
    "el",
    "bin",
    "ibn",
    "y",
}


def _is_name_token(token: str) -> bool:
    core = token.strip(".'’-")
    low = fold(core)
    if not core or low in STOP or low in VOCAB or low in MONTHS:
        return False
    if low in DAY_NAMES or low.rstrip("s") in DAY_NAMES:
        return False
    return any(c.isupper() for c in core)


def name_list(text: str) -> list[str]:
    """Capitalised names in ``text``, split on commas, and/or, slashes: "Facebook and
    Instagram" → two names; "Herrera & Lutz", "Colégio Santa Cruz" → one each."""
    names: list[str] = []
    for chunk in re.split(r",|;|:|/|\bor\b|\band\b|\bnor\b|\bplus\b|\.\s|\.\.\.|…", text):
        tokens = re.findall(r"[\w'’.&-]+|&", chunk)
        current: list[str] = []
        pending: list[str] = []
        for token in tokens:
            if _is_name_token(token):
                current += [*pending, token]
                pending = []
            elif current and fold(token) in _NAME_JOINERS:
                pending.append(token)
            else:
                if current:
                    names.append(" ".join(current))
                current, pending = [], []
        if current:
            names.append(" ".join(current))
    return [n.strip(" .") for n in names if n.strip(" .")]


def example_list(inner: str) -> bool:
    """Whether an aside in parentheses lists examples by name: "(e.g. Substack, Medium)"."""
    return bool(
        re.search(r",|\.\.\.|…|\betc\b|\be\.g\.|\blike\b|\bsuch as\b|\bor\b|\band\b", inner)
    ) and bool(name_list(inner))
