"""What a line says to do, when it says so itself: "— never notify", "— notify only if …;
otherwise don't", "Never notify me about …", "Avísame siempre que …", "Between 22:00 and
07:00, only notify me about …". Headings say it for the lines under them (``parse``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from engine.triage.classifier.text import fold_with_map
from engine.triage.rules.sections import ALWAYS, CUSTOM, NEVER, Section

NEG: Final = (
    r"(?:never|don'?t|do not|no|nie|nicht|niemals|jamais|ne pas|nunca|nao|non|mai)\s+"
    r"(?:ever\s+)?(?:notify|tell|alert|ping|show|bother|interrupt|me avises|avisar|avises|"
    r"notificar|notifiques|benachrichtigen|melden|notifier|signaler|previens|avise|notifique|"
    r"notificare|avvisare|avvisarmi|segnalare)(?:\s+me)?"
    r"|ignore|skip|mute|silence|drop|ignorar|ignorieren|ignorer|ignorare|stummschalten"
    r"|no me avises|non avvisarmi"
)
POS: Final = (
    r"(?:(?:always|siempre|immer|toujours|sempre)\s+)?(?:notify(?:\s+me)?|tell me|alert me|"
    r"let me know|ping me|show me|surface (?:it|them)|avisame|avisarme|notificame|notificar|"
    r"avisar|benachrichtigen|benachrichtige mich|melden|signaler|signale-le|signale-les|"
    r"previens-moi|notifier|me notifier|avise-me|me avise|notifique-me|notificare|avvisami|"
    r"segnalami|segnalare)(?:\s+(?:always|siempre|immer|toujours|sempre))?"
)
OTHERWISE: Final = (
    r"(?:otherwise|else|for anything (?:later|else|other)|for (?:the )?(?:rest|others)|"
    r"de lo contrario|si no|sonst|ansonsten|sinon|caso contrario|senao|altrimenti)"
)
RESTRICTIVE: Final = (
    r"\b(?:only|unless|except|solo|salvo|excepto|a menos que|nur|ausser|es sei denn|seulement|"
    r"uniquement|sauf|a moins que|somente|apenas|exceto|a nao ser que|tranne|eccetto|"
    r"a meno che)\b"
)
ONLY_IF: Final = (
    r"only (?:if|when)|solo (?:si|cuando)|nur wenn|seulement si|uniquement si|somente se|"
    r"apenas se|so se|solo se"
)


@dataclass(frozen=True)
class Decision:
    """The decision a line states. ``condition`` is the text of its "only if" part; with
    ``otherwise`` the line's own conditions split what it notifies from what it drops
    ("meetings starting in the next 24 hours — notify; for anything later — never")."""

    section: Section
    condition: str = ""
    otherwise: bool = False

    @property
    def conditional(self) -> bool:
        return bool(self.condition) or self.otherwise


def _tail_decision(tail: str) -> tuple[Decision, str] | None:
    """The decision at the start of what follows a dash, and what it leaves to read."""
    low, _ = fold_with_map(tail)
    neg = re.match(rf"\s*(?:{NEG})\b", low, re.I)
    pos = re.match(rf"\s*(?:{POS})\b", low, re.I)
    if neg:
        return Decision(NEVER), tail[neg.end() :]
    if not pos:
        return None
    rest = tail[pos.end() :]
    low_rest = low[pos.end() :]
    only = re.match(rf"\s*(?:{ONLY_IF})\s+(.+?)(?:[;.]\s*(?:{OTHERWISE}).*)?$", low_rest, re.I)
    if only:
        condition = rest[only.start(1) : only.end(1)]
        return Decision(CUSTOM, condition=condition.strip(" ,;.")), ""
    if re.search(rf"[;.,]\s*(?:{OTHERWISE})", low_rest, re.I):
        return Decision(CUSTOM, otherwise=True), ""
    return Decision(ALWAYS), rest


def read_decision(text: str) -> tuple[str, Decision | None]:
    """The line without the words of its own decision, and that decision (None when the
    line says none: its heading decides)."""
    for m in re.finditer(r"\s[—–-]{1,2}\s+", text):
        found = _tail_decision(text[m.end() :])
        if found is not None:
            decision, rest = found
            head, rest = text[: m.start()].rstrip(" .;,"), rest.strip().lstrip(".;, ")
            return (f"{head}. {rest}" if rest else head), decision
    low, _ = fold_with_map(text)
    if re.search(RESTRICTIVE, low) and re.match(rf"^\s*(?:please\s+)?(?:{NEG}|{POS})\b", low):
        return text, Decision(CUSTOM)  # "Notify me about invoices only if they are overdue"
    never = re.match(rf"^\s*(?:please\s+)?(?:{NEG})\b", low, re.I)
    if never:
        return _strip_lead(text, never.end()), Decision(NEVER)
    always = re.match(rf"^\s*(?:please\s+)?(?:{POS})\b", low, re.I)
    if always:
        return _strip_lead(text, always.end()), Decision(ALWAYS)
    if re.search(r"\bonly\s+(?:notify|tell|alert|ping|let)\b|\bnur\s+benachrichtig", low):
        return text, Decision(CUSTOM)
    return text, None


def _strip_lead(text: str, end: int) -> str:
    """ "Never notify me about WhatsApp …" → "WhatsApp …"."""
    rest = text[end:]
    rest = re.sub(
        r"^\s*(?:me\s+)?(?:about|of|when|if|that|on|for|sobre|de|cuando|que|si|uber|wenn|"
        r"dass|quand|lorsque|sur|quando|se|di|su)\b",
        " ",
        rest,
        flags=re.I,
    )
    return rest.strip(" ,.;:")


def line_section(text: str) -> Section | None:
    """The section a line outside the headings puts itself in, or None (it is prose)."""
    _, decision = read_decision(text)
    return decision.section if decision else None
