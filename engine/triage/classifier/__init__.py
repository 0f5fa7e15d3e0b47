"""What kind of event this is, with the evidence for each kind: read from headers, provider
labels, the sender's address and name, and the wording (``kinds``, ``signals``, ``lexicon``)."""

from engine.triage.classifier.calendar import is_in_person, is_video_call
from engine.triage.classifier.kinds import (
    GENERIC,
    KIND_NAMES,
    Classification,
    Kind,
    classify,
)
from engine.triage.classifier.text import address_parts, fold, words

__all__ = [
    "GENERIC",
    "KIND_NAMES",
    "Classification",
    "Kind",
    "address_parts",
    "classify",
    "fold",
    "is_in_person",
    "is_spam",
    "is_video_call",
    "words",
]


def is_spam(kinds: Classification) -> bool:
    """Clearly spam: the provider says so, or the sender is a phishing look-alike."""
    return kinds.has("phishing")
