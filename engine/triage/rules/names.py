"""Finding the names of people, organisations and chats in a rule's words."""

from __future__ import annotations

import re

from engine.triage.classifier import fold, words
from engine.triage.language import function_words, identity_words, phrases
from engine.triage.rules.kindwords import BEFORE_A_NAME, vocabulary
from engine.triage.rules.vocab import (
    DAY_ALIASES,
    MONTHS,
    PARENT_WORDS,
    SOURCE_WORDS,
    STOP,
    WORK_WORDS,
    keyword_words,
)

VOCAB = (
    {w for vocab in SOURCE_WORDS.values() for p in vocab for w in p.split()}
    | vocabulary()
    | keyword_words()
    | set(PARENT_WORDS)
)
"""Every word of the source and kind vocabularies: such a word is never a name."""
_CHANGES = frozenset(
    p
    for key in ("calendar.moved_verbs", "calendar.cancelled_verbs")
    for p in phrases(key)
    if " " not in p
)
"""The one-word names of a change to an event ("Terminverschiebung"): never a name."""

GERMAN = {"und", "oder", "fur", "nicht", "von", "vom", "der", "die", "das", "mit", "zu", "zur",
          "bei", "immer", "nie", "benachrichtigen", "werden", "wird", "gehoren", "dazu",
          "verwenden", "ihre", "meine", "alle", "ist", "sind", "eine", "einen", "wenn", "nur",
          "mich", "mir", "geht", "auch", "bitte", "nichts", "kein", "keine"}  # fmt: skip


def is_german(text: str) -> bool:
    """German capitalises every noun: such a text's capitals are not names by themselves."""
    return len(set(words(text)) & GERMAN) >= 2


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
    "los",
    "las",
    "les",
    "des",
    "du",
    "di",
    "dei",
    "degli",
    "della",
    "delle",
}


COMPANY_WORDS = {"correos", "correios"}
"""Words that name a source in lower case and a company when capitalised."""


_MESSAGE_WORDS = frozenset(phrases("words.messages"))
"""Words for messages themselves, which open many lines capitalised: never a name."""


def _is_name_token(token: str, before: str = "") -> bool:
    core = token.strip(".'’-")
    low = fold(core)
    if low in COMPANY_WORDS and core[:1].isupper():
        return True
    if not core or low in STOP or low in VOCAB or low in MONTHS or low in _MESSAGE_WORDS:
        return False
    if "-" in low and all(p in STOP or p in VOCAB or p in _MESSAGE_WORDS for p in low.split("-")):
        return False  # "WhatsApp-Gruppen", "E-Mail-Benachrichtigungen": words, not a name
    if low in WORK_WORDS:  # "nichts von der Arbeit", "Boulot :": what work is, a line says
        return False
    if low in _CHANGES:
        return False
    after_from = fold(before) in BEFORE_A_NAME or fold(before) in identity_words()
    if low in function_words() and not core.isupper() and not (after_from and len(core) > 2):
        return False  # "Cuando escriba", "Wenn sie": a capital that starts a sentence
    if low in DAY_ALIASES or low.rstrip("s") in DAY_ALIASES:
        return False
    return any(c.isupper() for c in core)


def _titles_lookbehind() -> str:
    """No full stop after a title ends a name ("Dr. Anke Roth", "D. Fernanda"): one fixed
    lookbehind per title of the language data, written as a name starts (capitalised)."""
    said = {"st", *phrases("words.titles")}
    return "".join(
        rf"(?<!\b{re.escape(t.capitalize())})(?<!\b{re.escape(t.upper())})"
        for t in sorted(said)
        if t.isalpha()
    )


_NOT_A_TITLE = _titles_lookbehind()


_NAME_NUMBER = re.compile(r"\d{4}[-/]\d{2,4}|\d+[A-Za-z]|[A-Za-z]+\d+")
"""The number a group's or a team's name ends with: a season, a class, an age group."""


def name_list(text: str) -> list[str]:
    """Capitalised names in ``text``, split on commas, and/or, slashes: "Facebook and
    Instagram" → two names; "Herrera & Lutz", "Colégio Santa Cruz" → one each."""
    names: list[str] = []
    for chunk in re.split(
        r",|;|:|/|\bor\b|\band\b|\bnor\b|\bplus\b|\by\b|\be\b|\bo\b|\bu\b|\bni\b|\bund\b|"
        rf"\boder\b|\bet\b|\bou\b|{_NOT_A_TITLE}(?<!\.[A-Za-z])\.\s|\.\.\.|…",
        text,
    ):
        chunk = _ELIDED.sub(r"\1 ", chunk)
        tokens = re.findall(r"[\w'’.&-]+|&", chunk)
        current: list[str] = []
        pending: list[str] = []
        for i, token in enumerate(tokens):
            if _is_name_token(token, tokens[i - 1] if i else ""):
                current += [*pending, token]
                pending = []
            elif current and not pending and _NAME_NUMBER.fullmatch(token):
                current.append(token)  # "PTA Committee 2026-27", "Clase 3B", "Jugend U12"
            elif current and fold(token) in _NAME_JOINERS:
                pending.append(token)
            else:
                if current:
                    names.append(" ".join(current))
                current, pending = [], []
        if current:
            names.append(" ".join(current))
    return [n.strip(" .") for n in names if n.strip(" .")]


_ELIDED = re.compile(r"(?<![\w'’])((?:l|dall|dell|nell|all|sull|coll|quell|un)['’])(?=[A-ZÀ-Þ])")
"""An article or a preposition elided onto a name ("dall'Agenzia delle Entrate",
"l'Ordine"): a word before the name, not part of it."""


def example_list(inner: str, *, casual: bool = False) -> bool:
    """Whether an aside in parentheses lists examples by name: "(e.g. Substack, Medium)";
    ``casual``: names may be written in lower case ("(github sponsors, open collective)")."""
    listing = re.search(r",|\.\.\.|…|\betc\b|\be\.g\.|\blike\b|\bsuch as\b|\bor\b|\band\b", inner)
    if not listing:
        return False
    if casual:
        return True
    names = name_list(inner)
    in_names = {w for n in names for w in words(n)}
    other = [w for w in words(inner) if w not in in_names and w not in STOP and w not in VOCAB]
    return bool(names) and len(other) <= 2  # a list, not a sentence about something
