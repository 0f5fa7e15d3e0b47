"""Text helpers the classifier and the rule reader share: folding for matching, words, and
the parts of an e-mail address."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9]+")
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


_LIGATURES = str.maketrans({"œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae"})
"""Letters no decomposition splits: "sœur" is matched as "soeur"."""


@lru_cache(maxsize=8192)
def fold(text: str | None) -> str:
    """Lower-case without accents, for matching: "Rücklastschrift" → "rucklastschrift"."""
    decomposed = unicodedata.normalize("NFKD", (text or "").translate(_LIGATURES))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def fold_german(text: str | None) -> str:
    """Folded the way German names are written in addresses: "Krämer" → "kraemer"."""
    return fold((text or "").lower().translate(_GERMAN))


@lru_cache(maxsize=8192)
def words(text: str | None) -> tuple[str, ...]:
    return tuple(_WORD.findall(fold(text)))


def address_parts(address: str | None) -> tuple[str, tuple[str, ...]]:
    """(local part, domain labels split on dots and dashes)."""
    if not address or "@" not in address:
        return "", ()
    local, _, domain = fold(address).rpartition("@")
    return local, tuple(p for p in re.split(r"[.\-]", domain) if p)


def domain_of(address: str | None) -> str:
    """The whole domain of an address, folded: "a@mail.Example.org" → "mail.example.org"."""
    if not address or "@" not in address:
        return ""
    return fold(address).rpartition("@")[2].strip(" >")


SECOND_LEVEL = {"co", "com", "org", "net", "gov", "gob", "gouv", "ac", "edu", "ne", "or"}


def registrable(domain: str) -> str:
    """The domain a sender registered: "em.paints.example" → "paints.example", "x.co.uk" →
    "x.co.uk"."""
    labels = [p for p in domain.split(".") if p]
    if len(labels) <= 2:
        return ".".join(labels)
    if labels[-2] in SECOND_LEVEL and len(labels[-1]) == 2:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def registrable_name(domain: str) -> str:
    """The name part of the registered domain: "x.airline-booking.example" → "airline-booking"."""
    return registrable(domain).split(".")[0]


def fold_with_map(text: str) -> tuple[str, list[int]]:
    """``fold(text)`` and, for each folded character, the index of the character it came
    from: a match on folded text can be traced back to the words as written."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        f = fold(ch)
        out.append(f)
        origin.extend([i] * len(f))
    return "".join(out), origin


_LANG_WORDS = {
    "en": {"the", "and", "you", "your", "for", "is", "to", "of", "with", "this", "have", "we",
           "about", "from", "my", "me", "anything", "any", "only", "when", "if", "are", "that",
           "it", "be", "on", "can", "will", "please", "our", "all"},
    "es": {"el", "la", "los", "las", "de", "que", "y", "tu", "su", "para", "con", "por", "del",
           "mi", "mis", "algo", "cuando", "solo", "es", "una", "un", "se", "te", "lo", "nos",
           "tus", "sobre", "pero", "hola", "gracias"},
    "de": {"der", "die", "das", "und", "ist", "sie", "ihr", "ihre", "mit", "fur", "von", "den",
           "mich", "mir", "nur", "wenn", "alle", "ein", "eine", "nicht", "bitte", "ich", "du",
           "dem", "des", "zu", "auf", "wir", "hallo"},
    "fr": {"le", "la", "les", "et", "vous", "votre", "pour", "des", "du", "est", "une", "avec",
           "mes", "mon", "moi", "quand", "seulement", "un", "ne", "pas", "je", "tu", "nous",
           "sur", "dans", "au", "aux", "bonjour", "merci"},
    "pt": {"o", "a", "os", "as", "de", "que", "e", "voce", "seu", "sua", "para", "com", "do",
           "da", "meu", "minha", "quando", "so", "um", "uma", "nao", "em", "no", "na", "dos",
           "das", "obrigado", "ola"},
    "it": {"il", "la", "di", "che", "e", "per", "con", "del", "della", "tuo", "tua", "sono",
           "mio", "mia", "quando", "solo", "un", "una", "non", "gli", "le", "ci", "si", "dei",
           "nel", "alla", "ciao", "grazie"},
    "nl": {"de", "het", "een", "en", "van", "voor", "met", "niet", "ik", "je", "jij", "mijn",
           "wij", "ons", "onze", "dat", "die", "dit", "is", "zijn", "maar", "als", "ook", "nog",
           "alleen", "altijd", "nooit", "hallo", "bedankt", "graag"},
}  # fmt: skip


def language(text: str | None) -> str | None:
    """The language of a short text (en, es, de, fr, pt, it or nl), from its common words; None
    when too few words tell."""
    found = words(text)
    if len(found) < 3:
        return None
    scores = {lang: sum(1 for w in found if w in vocab) for lang, vocab in _LANG_WORDS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    return best if scores[best] >= 2 else None
